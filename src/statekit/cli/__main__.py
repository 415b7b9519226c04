"""`python -m statekit.cli`: the `statekit` command."""

import sys

from statekit.cli import main

sys.exit(main())
