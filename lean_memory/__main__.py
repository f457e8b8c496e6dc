"""``python -m lean_memory``: the command line."""

import sys

from .cli import main

sys.exit(main())
