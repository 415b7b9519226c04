"""Launch `python -m statekit.server` with the test-only demo tools registered (a subprocess target)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import server_demo_tools

from statekit.server.__main__ import main

if __name__ == "__main__":
    server_demo_tools.install()
    sys.exit(main(sys.argv[1:]))
