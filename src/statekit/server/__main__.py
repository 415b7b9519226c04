"""`python -m statekit.server [options]`: the same as `statekit serve`.

A process entry point, not a library module: it hands its arguments to the command line,
which owns every parser (the layer contract lists this one import from the top layer).
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Parse `argv` as `statekit serve` does, and serve."""
    from statekit.cli import main as cli_main

    return cli_main(["serve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
