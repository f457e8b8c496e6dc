"""lean_memory: durable, token-lean Markdown memory for coding agents.

Names are loaded on first use, so ``import lean_memory`` costs almost nothing and a
hook that only needs the scanner never pays for the store.

This file and ``__main__.py`` must run on old Pythons (3.8 at least): ``python -m
lean_memory`` from a clone reaches them first, and they say which Python is needed.
"""

# No `from __future__ import annotations`: it imports the __future__ module, a third of what
# `import lean_memory` costs; the annotations below are strings instead (an old Python must
# still read this file). Not typing.TYPE_CHECKING: importing typing would cost more than all
# of this module.
TYPE_CHECKING = False

__version__ = "0.2.0"
MIN_PYTHON = (3, 11)

__all__ = [
    "BM25",
    "CompactionReport",
    "ConfigError",
    "Entry",
    "Finding",
    "Hit",
    "InvalidEntry",
    "LeanMemoryError",
    "Memory",
    "NotInitialized",
    "QueryError",
    "Retriever",
    "SecretFound",
    "ShardError",
    "Status",
    "UnknownShard",
    "estimate_tokens",
    "open",
    "scan_text",
]

_WHERE = {
    "BM25": "bm25",
    "CompactionReport": "compaction",
    "ConfigError": "errors",
    "Entry": "format",
    "Finding": "secrets",
    "Hit": "search",
    "InvalidEntry": "errors",
    "LeanMemoryError": "errors",
    "Memory": "store",
    "NotInitialized": "errors",
    "QueryError": "errors",
    "Retriever": "retrievers",
    "SecretFound": "errors",
    "ShardError": "errors",
    "Status": "store",
    "UnknownShard": "errors",
    "estimate_tokens": "tokens",
    "open": "store",
    "scan_text": "secrets",
}

if TYPE_CHECKING:
    from typing import Any

    from .bm25 import BM25
    from .compaction import CompactionReport
    from .errors import (
        ConfigError,
        InvalidEntry,
        LeanMemoryError,
        NotInitialized,
        QueryError,
        SecretFound,
        ShardError,
        UnknownShard,
    )
    from .format import Entry
    from .retrievers import Retriever
    from .search import Hit
    from .secrets import Finding, scan_text
    from .store import Memory, Status, open
    from .tokens import estimate_tokens


def _require_python(version: "tuple[int, ...] | None" = None) -> None:
    """Exit 2 with one line when this Python is older than ``MIN_PYTHON``: the modules
    behind the commands use newer syntax and modules, and would fail one by one."""
    import sys

    have = tuple(sys.version_info[:2] if version is None else version[:2])
    if have < MIN_PYTHON:
        need = ".".join(map(str, MIN_PYTHON))
        sys.stderr.write(f"lean_memory needs Python >= {need} (this is "
                         f"{'.'.join(map(str, have))}: {sys.executable})\n")
        raise SystemExit(2)


def __getattr__(name: str) -> "Any":
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'lean_memory' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> "list[str]":
    return sorted([*globals(), *__all__])
