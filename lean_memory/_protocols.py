"""What the features use of the memory they are handed, as a protocol.

The ``Memory`` facade (:mod:`lean_memory.store`) imports the features; a feature that named
it, even for the type checker only, would depend on its own user (``layers.py --types``).
Features take :class:`MemoryLike` instead, imported under ``TYPE_CHECKING`` only: this
module imports ``typing``, which the hot paths never load. Most of it is the folder
(:class:`~lean_memory.folder.Folder`) and its summaries: what a reader of the layers is
(:class:`~lean_memory.summaries.Summaries`, ADR 0050). :class:`Writable` adds the facade's
writes (``init``, ``put_entry``, ``index``), for the features that write.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager
from typing import Protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from . import format as fmt
    from ._retriever import Retriever
    from .config import Config
    from .fsutil import StrPath
    from .putstate import Status, Summary
    from .secrets import Allowlist
    from .summaries import Link


class MemoryLike(Protocol):
    """A memory as the features read it (a :class:`lean_memory.summaries.Summaries`, the
    ``Memory`` facade too)."""

    # the folder's paths, as strings (ADR 0026)
    _root: str
    _agents: str
    _dir: str
    _cache: str
    _index: str
    layer: str  # "project", or "global" for the global store (lean_memory.folder.Folder)
    # the retrievers given to the facade, None for the configured ones
    _retrievers: list[Retriever] | None
    # the correction links were read from every shard's summary (no put state to read)
    links_without_state: bool

    def __init__(self, root: StrPath | None = None) -> None: ...

    # -- the folder ----------------------------------------------------------------------
    @property
    def root(self) -> Path: ...
    @property
    def agents_dir(self) -> Path: ...
    @property
    def dir(self) -> Path: ...
    @property
    def archive_dir(self) -> Path: ...
    @property
    def cache_dir(self) -> Path: ...
    @property
    def index_path(self) -> Path: ...
    @property
    def config(self) -> Config: ...
    @property
    def shards(self) -> tuple[str, ...]: ...
    @property
    def allowlist(self) -> Allowlist: ...
    def shard_path(self, shard: str, *, archive: bool = False) -> Path: ...
    def _shard_file(self, shard: str, *, archive: bool = False) -> str: ...
    def _require_init(self) -> None: ...
    def read_text(self, path: StrPath) -> str: ...
    def read_shard(self, shard: str, *, archive: bool = False) -> fmt.Shard: ...
    def entries(self, shard: str | None = None, *, archive: bool = False) -> list[fmt.Entry]: ...
    def lock(self) -> AbstractContextManager[None]: ...

    # -- its summaries and INDEX.md ------------------------------------------------------
    def superseded_ids(self, entries: Iterable[fmt.Entry] | None = None) -> set[str]: ...
    def correction_links(self) -> tuple[Link, ...]: ...
    def _summaries(self, fresh: Mapping[str, fmt.Shard], *, archive: bool = False,
                   signatures: bool = False) -> dict[str, Summary]: ...
    def _status_of(self, summaries: Mapping[str, Summary],
                   archived: Mapping[str, Summary] | None = None) -> Status: ...
    def status(self) -> Status: ...
    def write_index(self, fresh: Mapping[str, fmt.Shard | str], *,
                    signatures: bool = False) -> Status: ...
    def render_index(self, status: Status) -> str: ...


class Writable(MemoryLike, Protocol):
    """A memory the features write to: the facade (:class:`lean_memory.store.Memory`)."""

    def init(self) -> list[Path]: ...
    def index(self) -> str: ...
    def put_entry(self, shard: str, text: str, *, title: str | None = None,
                  tags: Iterable[str] = (), date: str | None = None,
                  supersedes: str | None = None, new: bool = False) -> fmt.Entry: ...
    def _validate(self, text: str, title: str | None, tags: Iterable[str],
                  date: str | None) -> tuple[str, str, tuple[str, ...], str]: ...


__all__ = ["MemoryLike", "Writable"]
