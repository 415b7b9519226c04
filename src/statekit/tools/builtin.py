"""Imports every tool module so that each registers its tools."""

from statekit.tools import machine_tools  # noqa: F401
