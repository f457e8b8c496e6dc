"""``python -m lean_memory``: the command line."""

import sys

from . import _require_python

_require_python()  # before anything a Python older than 3.11 cannot import

from .cli import main  # noqa: E402

sys.exit(main())
