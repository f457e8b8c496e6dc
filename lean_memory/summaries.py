"""What a reader of the memory is (:class:`Summaries`): its folder (:mod:`lean_memory.folder`)
and what is known of its files without reading them, as far as the hot paths need it: the
shapes of a summary's records (:data:`Link`, :data:`Cost`) and the few functions the warm
query and the prompt call (:func:`hidden_ids`, :func:`grown_from`, :func:`normalize`).

The code of those summaries, and their types (per shard file its ``Summary``, the
``Status`` and its rows; the stats files, the put state, INDEX.md), is
:mod:`lean_memory.putstate`: neither the warm query nor a prompt runs it while its caches
hold (ADR 0055). A :class:`Summaries` reaches it through one documented hook,
:meth:`Summaries._code`, the first time one of its slow paths is called; the ``Memory``
facade (:mod:`lean_memory.store`) derives from its class.

Above :mod:`lean_memory.folder`, below the facade and the features, which import these
records rather than the facade.
"""

from __future__ import annotations

import os

from .folder import Folder
from .fsutil import load_record

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any, Final, Protocol

    from . import format as fmt
    from ._retriever import Retriever

    class Code(Protocol):
        """What this module uses of :data:`CODE` (``lean_memory.putstate``), named for the
        type checker without importing it: that module imports this one."""

        Summarized: type[Summaries]

        def render_index(self, status: Any, max_tokens: int, *,
                         layer: str = "project") -> str: ...

Signature = tuple[int, int, int]  # fsutil.file_signature
Link = tuple[str, str, str]  # per entry: (id, date, supersedes), "" when none
# Per entry: (digest of its raw text, tokens, digest of its normalised main text, its
# said-again signature or None while not computed): what lets a put append without parsing
# the shard. Plain tuples (100k of them are marshalled), read through these positions.
Cost = tuple[bytes, int, bytes, bytes | None]
LINK_ID: Final = 0
LINK_DATE: Final = 1
LINK_TARGET: Final = 2
COST_RAW: Final = 0
COST_TOKENS: Final = 1
COST_KEY: Final = 2
COST_SIG: Final = 3

_TAIL_VERSION = "lean_memory.stats-tail/3"  # 3: steps (ADR 0040)


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used to spot an entry said again."""
    return " ".join(text.casefold().split())


def _stats_file(cache: str, key: str, *, tail: bool = False) -> str:
    # Shard names are [a-z0-9_-] (config.SHARD_NAME): safe as part of a file name.
    kind, _, name = key.rpartition("/")
    return os.path.join(cache, f"stats-{kind or 'live'}-{name}{'.tail' if tail else ''}.marshal")


def grown_from(cache: str, agents: str, name: str,
               new: Sequence[int]) -> frozenset[tuple[int, ...]]:
    """The signatures of the files that puts made live shard ``name``'s file, whose
    signature is ``new``, from by appending: the bytes of each begin this one. Told by the
    shard's stats tail (its steps) in the memory's ``cache`` folder (``agents``: the folder
    it must stay inside), sealed and written by the puts themselves; empty when it does not
    say (no tail, another chain, a hand edit since)."""
    got = load_record(_stats_file(cache, name, tail=True), _TAIL_VERSION, 10, agents)
    if got is None or got[3] != tuple(new) or not isinstance(got[9], tuple):
        return frozenset()
    return frozenset(got[9])


def hidden_ids(links: Iterable[Link]) -> set[str]:
    """Ids superseded by another entry; when two conflict, the newest dated wins."""
    pool = list(links)
    dates = {entry_id: date for entry_id, date, _ in pool}
    return {target for _, date, target in pool
            if target and target in dates and not dates[target] > date}


def render_index(status: Any, max_tokens: int, *, layer: str = "project") -> str:
    """The text of INDEX.md for ``status``, a ``putstate.Status``: that module's
    :func:`~lean_memory.putstate.render_index`, where the code lives (the digest renders it
    only when its cache of the overview is stale)."""
    code: Code = __import__(CODE, fromlist=("render_index",))
    return code.render_index(status, max_tokens, layer=layer)


# The module with the summaries' code (ADR 0055): loaded by name, the first time a reader
# needs it (a stale cache, a status) or with the facade, which imports it.
CODE = "lean_memory.putstate"


class Summaries(Folder):
    """The memory folder with what is known of its files (see the module's docstring): what
    the layers open to read (:func:`lean_memory.globalstore.reader_at`; ADR 0050). The
    methods below are the slow paths: each gives the reader the summaries' code
    (:meth:`_code`) and calls it; :class:`lean_memory.putstate.Summarized` defines them all
    and the ``Memory`` facade derives from it. The types they take and give (``Status``,
    ``Summary``) live there too: ``Any`` here, the callers hold a reader as a
    :class:`~lean_memory._protocols.MemoryLike`, which names them."""

    # the retrievers a caller gave (the facade's ``retrievers=``), None for the configured
    _retrievers: list[Retriever] | None = None

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        super().__init__(root)
        # True once the correction links had to be read from every shard's summary (no
        # valid put state): the prompt hook then has the put state built in the background.
        self.links_without_state = False

    def _code(self) -> None:
        """The lazy hook (ADR 0055): this reader becomes a ``Summarized``, the class of the
        module :data:`CODE` that holds the summaries' code, a subclass adding methods and
        class defaults only. The same object with the same attributes; every later call
        goes to that class's methods directly."""
        code: Code = __import__(CODE, fromlist=("Summarized",))
        self.__class__ = code.Summarized

    # -- the slow paths (each defined again by Summarized) ---------------------------

    def superseded_ids(self, entries: Iterable[fmt.Entry] | None = None) -> set[str]:
        """Ids named by an entry's ``supersedes`` (unless the named entry is newer)."""
        self._code()
        return self.superseded_ids(entries)

    def correction_links(self) -> tuple[Link, ...]:
        """Every link that supersedes an entry, of every shard file (live and archived)."""
        self._code()
        return self.correction_links()

    def _summaries(self, fresh: Mapping[str, fmt.Shard], *, archive: bool = False,
                   signatures: bool = False) -> dict[str, Any]:
        self._code()
        return self._summaries(fresh, archive=archive, signatures=signatures)

    def _status_of(self, summaries: Mapping[str, Any],
                   archived: Mapping[str, Any] | None = None) -> Any:
        self._code()
        return self._status_of(summaries, archived)

    def status(self) -> Any:
        """The memory's shards, token total, budget and compaction threshold."""
        self._code()
        return self.status()

    def write_index(self, fresh: Mapping[str, fmt.Shard | str], *,
                    signatures: bool = False) -> Any:
        """Rewrite INDEX.md if it changed and return the status it shows."""
        self._code()
        return self.write_index(fresh, signatures=signatures)

    def render_index(self, status: Any) -> str:
        """The text of INDEX.md for ``status``."""
        self._code()
        return self.render_index(status)
