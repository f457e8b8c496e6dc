"""The memory a command acts on, and its status as ``--json`` shows it (``get``, ``status``);
``get --query`` reads through :func:`lean_memory.commands.get.reader`, so that a query
loads neither this module nor ``commands._common`` (ADR 0057)."""

from __future__ import annotations

import os

from ..errors import quoted
from ..globalstore import check_project, global_memory, memory_at
from . import global_asked, no_global

TYPE_CHECKING = False  # not typing's: the hot commands never import typing
if TYPE_CHECKING:
    import argparse
    from typing import Any

    from ..store import Memory  # built through globalstore.FACADE: the query never loads it


def memory(args: argparse.Namespace, *, project: bool = False) -> Memory:
    """The memory a command acts on: the global store with ``--global`` (created by a
    put or init; when missing, an error naming ``init --global``) unless ``project`` (where
    `--global` says where to write, not what to read), else the project's, which may never
    be the global store (ADR 0022)."""
    if global_asked(args, project):
        g = global_memory(create=args.command == "put")
        if args.command not in ("put", "init") and not os.path.isdir(g.dir):
            raise no_global(g.dir)
    else:
        g = check_project(memory_at(args.root))
    if TYPE_CHECKING:  # globalstore.FACADE holds the facade's class: a Memory
        assert isinstance(g, Memory)
    return g


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
