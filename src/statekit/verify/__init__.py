"""Verification reports: model-based test runs through a host-supplied adapter.

`verify` plans test paths from the machine, hands them to the host's `execute_verification`
adapter under a policy that denies AI and network, and returns a versioned report.
`generate_test_paths` and `coverage_report` read a report without running anything.
"""
