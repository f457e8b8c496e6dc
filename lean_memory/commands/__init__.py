"""One module per command of the command line, each with a ``run(args, out)``.

``lean_memory.cli`` builds the parser and imports a command's module only when that command
runs (its dispatch table, ``COMMANDS``). What every command shares to choose its memory
(``--global`` or the project's) is here: the package is loaded with any command, the hot
``get --query`` included, at no module's cost of its own (ADR 0057); the rest is in
``_common`` and ``_memory``, which the query does not load.
"""

from __future__ import annotations

from ..cli import UsageError
from ..errors import NotInitialized

TYPE_CHECKING = False  # not typing's: the hot commands never import typing
if TYPE_CHECKING:
    import argparse
    from pathlib import Path


def global_asked(args: argparse.Namespace, project: bool) -> bool:
    """Whether the command acts on the global store (``--global``, unless ``project``)."""
    if getattr(args, "global_", False) and not project:
        if args.root:
            raise UsageError("give --global or --root, not both")
        return True
    return False


def no_global(folder: Path) -> NotInitialized:
    # not the library's "run `lean-memory init`": that makes a project's memory
    return NotInitialized(f"no global memory at {folder}: `lean-memory init --global` "
                          "creates it (a `put --global` too)")
