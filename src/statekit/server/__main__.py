"""`python -m statekit.server [options]`: the same as `statekit serve`."""

from __future__ import annotations

import sys

from statekit.server.command import build_parser, run


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` and serve."""
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
