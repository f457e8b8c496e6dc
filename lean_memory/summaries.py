"""What a reader of the memory is: its folder (:mod:`lean_memory.folder`) and the types of
what is known of its files without reading them (per shard file its :class:`Summary`, the
:class:`Status` and its rows), with the few functions the hot paths call (:func:`hidden_ids`,
:func:`grown_from`, :func:`normalize`).

The code that reads and writes those summaries (the stats files, the put state, the status,
INDEX.md) is :mod:`lean_memory.putstate`: neither the warm query nor a prompt runs it while
its caches hold (ADR 0055). A :class:`Summaries` reaches it through one documented hook,
:meth:`Summaries._code`, the first time one of its slow paths is called; the ``Memory``
facade (:mod:`lean_memory.store`) derives from its class.

Above :mod:`lean_memory.folder`, below the facade and the features, which import these
records rather than the facade.
"""

from __future__ import annotations

import os

from ._hash import blake2b
from ._record import Record
from .folder import Folder
from .fsutil import load_record
from .tokens import estimate_tokens

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Final, NamedTuple, Protocol

    from . import format as fmt
    from ._retriever import Retriever

    class Code(Protocol):
        """What this module uses of :data:`CODE` (``lean_memory.putstate``), named for the
        type checker without importing it: that module imports this one."""

        Summarized: type[Summaries]

        def render_index(self, status: Status, max_tokens: int, *,
                         layer: str = "project") -> str: ...
else:
    from ._record import NamedTuple

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

# 4: said-again signatures of ADR 0014; 5: a header (signature, entries), tails
STATS_VERSION = "lean_memory.stats/5"
_TAIL_VERSION = "lean_memory.stats-tail/3"  # 3: steps (ADR 0040)


class ShardStatus(Record):
    """One shard's row of the status and of INDEX.md."""

    _fields = ("name", "description", "entries", "superseded", "tokens")
    __slots__ = _fields
    name: str
    description: str
    entries: int  # live entries
    superseded: int
    tokens: int

    def __init__(self, name: str, description: str, entries: int, superseded: int,
                 tokens: int) -> None:
        self._init(name, description, entries, superseded, tokens)


class Status(Record):
    """The memory's shards, token total, budget and compaction threshold."""

    _fields = ("shards", "total_tokens", "token_budget", "compact_threshold")
    __slots__ = _fields
    shards: tuple[ShardStatus, ...]
    total_tokens: int
    token_budget: int
    compact_threshold: int

    def __init__(self, shards: tuple[ShardStatus, ...], total_tokens: int, token_budget: int,
                 compact_threshold: int) -> None:
        self._init(shards, total_tokens, token_budget, compact_threshold)

    @property
    def compaction_due(self) -> bool:
        return self.total_tokens > self.compact_threshold

    @property
    def entries(self) -> int:
        return sum(s.entries for s in self.shards)


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used to spot an entry said again."""
    return " ".join(text.casefold().split())


def text_digest(text: str) -> bytes:
    """The 8-byte digest the summaries keep of a text."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class Summary(NamedTuple):
    """What INDEX.md, status and put need of a shard, cached by file signature."""

    description: str
    tokens: int
    links: tuple[Link, ...]
    costs: tuple[Cost, ...] = ()
    hand: int = 0  # entries without a metadata line (a write must stamp them)
    preamble_tokens: int = 0

    @classmethod
    def of(cls, shard: fmt.Shard, known: Summary | None = None, *,
           signatures: bool = False) -> Summary:
        """Summarise ``shard``, re-estimating only entries ``known`` has not seen; with
        ``signatures``, also compute the near-duplicate signatures still missing."""
        from .dedup import main_text, signature

        memo = {c[COST_RAW]: c for c in known.costs} if known is not None else {}
        costs = []
        for e in shard.entries:
            raw_key = text_digest(e.raw)
            cost = memo.get(raw_key)
            if cost is None:
                cost = (raw_key, estimate_tokens(e.raw),
                        text_digest(normalize(main_text(e.text))), None)
            if signatures and cost[COST_SIG] is None:
                cost = (*cost[:COST_SIG], signature(e.text))
            costs.append(cost)
        preamble = estimate_tokens(shard.preamble)
        return cls(shard.description, preamble + sum(c[COST_TOKENS] for c in costs),
                   tuple((e.id, e.date or "", e.supersedes or "") for e in shard.entries),
                   tuple(costs), sum(1 for e in shard.entries if not e.has_meta), preamble)

    def appended(self, links: Sequence[Link], costs: Sequence[Cost], tokens: int,
                 preamble_tokens: int, relast: Cost | None) -> Summary:
        """This summary with entries appended (``relast``: the new cost of its last)."""
        kept = self.costs if relast is None else (*self.costs[:-1], relast)
        return self._replace(tokens=tokens, links=(*self.links, *links),
                             costs=(*kept, *costs), preamble_tokens=preamble_tokens)



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



def render_index(status: Status, max_tokens: int, *, layer: str = "project") -> str:
    """The text of INDEX.md for ``status`` (:func:`lean_memory.putstate.render_index`, where
    the code lives: the digest renders it only when its cache of the overview is stale)."""
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
    and the ``Memory`` facade derives from it."""

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
                   signatures: bool = False) -> dict[str, Summary]:
        self._code()
        return self._summaries(fresh, archive=archive, signatures=signatures)

    def _status_of(self, summaries: Mapping[str, Summary],
                   archived: Mapping[str, Summary] | None = None) -> Status:
        self._code()
        return self._status_of(summaries, archived)

    def status(self) -> Status:
        """The memory's shards, token total, budget and compaction threshold."""
        self._code()
        return self.status()

    def write_index(self, fresh: Mapping[str, fmt.Shard | str], *,
                    signatures: bool = False) -> Status:
        """Rewrite INDEX.md if it changed and return the status it shows."""
        self._code()
        return self.write_index(fresh, signatures=signatures)

    def render_index(self, status: Status) -> str:
        """The text of INDEX.md for ``status``."""
        self._code()
        return self.render_index(status)
