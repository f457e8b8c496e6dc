"""``python -m lean_memory``: the command line.

Python puts the current folder first on ``sys.path`` for ``-m``: run from a folder that
holds a ``lean_memory/`` of its own (a hostile clone), that one runs, before any code here.
So no command lean_memory writes or starts (hooks, merge driver, warm-up) uses ``-m``: they
run ``python -I -c`` with the install's folder given (ADR 0033), or the ``lean-memory``
script, whose own folder comes first instead (ADR 0012).
"""

import sys

from . import _require_python

_require_python()  # before anything a Python older than 3.11 cannot import

from .cli import run  # noqa: E402

sys.exit(run())
