"""The memory a command acts on, and its status as ``--json`` shows it (``get``, ``status``)."""

from __future__ import annotations

import os

from ..errors import NotInitialized, quoted
from ..globalstore import (
    _global_root,
    check_project,
    global_memory,
    memory_at,
    open_global,
    reader_at,
)
from ._common import UsageError

TYPE_CHECKING = False  # not typing's: the hot commands never import typing
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any

    from .._protocols import MemoryLike
    from ..store import Memory  # built through globalstore.FACADE: the query never loads it


def memory(args: argparse.Namespace, *, project: bool = False) -> Memory:
    """The memory a command acts on: the global store with ``--global`` (created by a
    put or init; when missing, an error naming ``init --global``) unless ``project`` (where
    `--global` says where to write, not what to read), else the project's, which may never
    be the global store (ADR 0022)."""
    if _global(args, project):
        g = global_memory(create=args.command == "put")
        if args.command not in ("put", "init") and not os.path.isdir(g.dir):
            raise _no_global(g.dir)
    else:
        g = check_project(memory_at(args.root))
    if TYPE_CHECKING:  # globalstore.FACADE holds the facade's class: a Memory
        assert isinstance(g, Memory)
    return g


def reader(args: argparse.Namespace) -> MemoryLike:
    """:func:`memory` to read (``get --query``): the facade's module stays unloaded (ADR
    0050)."""
    if not _global(args, False):
        return check_project(reader_at(args.root))
    g = open_global()
    if g is None:
        raise _no_global(reader_at(_global_root()).dir)  # or its LayerError
    return g


def _global(args: argparse.Namespace, project: bool) -> bool:
    if getattr(args, "global_", False) and not project:
        if args.root:
            raise UsageError("give --global or --root, not both")
        return True
    return False


def _no_global(folder: Path) -> NotInitialized:
    # not the library's "run `lean-memory init`": that makes a project's memory
    return NotInitialized(f"no global memory at {folder}: `lean-memory init --global` "
                          "creates it (a `put --global` too)")


def status_json(mem: Memory) -> dict[str, Any]:
    st = mem.status()
    return {
        "shards": [{"name": s.name, "entries": s.entries, "superseded": s.superseded,
                    "tokens": s.tokens, "description": s.description} for s in st.shards],
        "total_tokens": st.total_tokens,
        "token_budget": st.token_budget,
        "compact_threshold": st.compact_threshold,
        "compaction_due": st.compaction_due,
        **retrievers_json(mem),
    }


def retrievers_json(mem: Memory) -> dict[str, Any]:
    """The configured retrievers, those not installed, and the vectors of ``ollama``."""
    names = mem.config.retrievers  # a cloned config may name a credential: shown redacted
    missing: list[str] = []
    if any(n not in ("bm25", "ollama") for n in names):
        # hot path: with the built-in retrievers alone, .retrievers stays unloaded
        # (tests/test_hot_imports.py)
        from ..retrievers import unknown

        missing = unknown(names)
    out: dict[str, Any] = {"retrievers": [quoted(n) for n in names],
                           "unknown_retrievers": [quoted(n) for n in missing]}
    if "ollama" in names:
        from ..embedcmd import describe  # hot path: the vectors' code only when configured

        out["vectors"] = describe(mem)
    return out


def skip_line(skip: dict[str, str] | None) -> str:
    """When and why the prompt hook last searched without the semantic extra."""
    if not skip:
        return "semantic extra: the prompt hook never searched without it\n"
    return f"semantic extra, last searched without by the prompt hook ({skip['when']}): " \
           f"{skip['why']}\n"
