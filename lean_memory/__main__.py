"""``python -m lean_memory``: the command line.

Python puts the current folder first on ``sys.path`` for ``-m``: run from a folder that
holds a ``lean_memory/`` of its own (a hostile clone), that one runs, before any code here.
So every command lean_memory writes or starts (hooks, merge driver, warm-up) adds ``-P``,
or is the ``lean-memory`` script, whose own folder comes first instead (ADR 0012).
"""

import sys

from . import _require_python

_require_python()  # before anything a Python older than 3.11 cannot import

import gc  # noqa: E402

# A read (``get``, ``--root DIR get``) is short and builds little that is cyclic: the
# collections its imports would trigger (~2 ms of a warm query, measured) are not run.
if sys.argv[1:2] == ["get"] or (sys.argv[1:2] == ["--root"] and sys.argv[3:4] == ["get"]):
    gc.disable()

from .cli import main  # noqa: E402

code = main()
# The process ends here. Its last garbage collection would walk every object the loaded
# modules hold (~5 ms of a warm query, measured) to free what the exit frees anyway: frozen,
# they are left to the exit (issue 24). atexit handlers and the flush of stdout still run.
gc.freeze()
sys.exit(code)
