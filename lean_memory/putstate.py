"""The code of a memory's summaries (see :mod:`lean_memory.summaries`): per shard file its
summary (stats, and the tail of entries quick puts appended since), the put state (the one
status cache: INDEX.md's rows and what a quick put needs, valid for the exact signatures of
every shard file), the status and INDEX.md, rendered from it.

What a hot path runs only when a cache is stale, and what a put runs: so not on the warm
query's nor the prompt's path (ADR 0055). :class:`Summarized` is the reader's class with
this code; the ``Memory`` facade derives from it, and a reader takes it on first need
(:meth:`lean_memory.summaries.Summaries._code`).
"""

from __future__ import annotations

import marshal
import os

from . import format as fmt
from ._hash import blake2b
from ._record import Record, suppress
from .errors import LeanMemoryError
from .folder import DESCRIPTIONS, GLOBAL_DESCRIPTIONS
from .fsutil import (
    CACHE_PREFIX,
    MAX_CACHE_BYTES,
    atomic_write,
    dump_record,
    file_signature,
    load_record,
    open_bounded,
    read_cache,
    tag_matches,
    write_cache,
)
from .summaries import (
    _TAIL_VERSION,
    COST_KEY,
    COST_RAW,
    COST_SIG,
    COST_TOKENS,
    LINK_ID,
    LINK_TARGET,
    Cost,
    Link,
    Signature,
    Summaries,
    _stats_file,
    hidden_ids,
    normalize,
)
from .tokens import estimate_tokens

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator, Mapping, Sequence
    from typing import Any, NamedTuple
else:
    from ._record import NamedTuple

# 4: said-again signatures of ADR 0014; 5: a header (signature, entries), tails
STATS_VERSION = "lean_memory.stats/5"
# 4: a sealed meta, the sets (ids, per shard its keys and sigs) read a chunk at a time
_STATE_VERSION = "lean_memory.put-state/4"
_STATE_TAIL_VERSION = "lean_memory.put-state-tail/2"
_ROWS_VERSION = "lean_memory.put-state-rows/1"
_TAIL_MAX = 64  # entries a stats tail holds before it is merged (or 1/8 of the shard's)
_STATE_TAIL_MAX = 256  # ids a put state tail holds before the put state is rewritten
_CHUNK = 4096  # bytes of a put state set per digest (a multiple of every record's width)
_DIGEST = 16
_FIRST_READ = 1 << 16  # the put state file's first read: its tag, meta length and meta
_HEX = "0123456789abcdef"
MAX_DESCRIPTION = 90  # characters of a shard's description INDEX.md shows


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


# Records read by name. Those never marshalled nor compared are plain classes with slots:
# a NamedTuple class costs ~0.2 ms to create, at every start of every command.


class Appended:
    """One entry appended to a shard's end: what its summary gains."""

    __slots__ = ("cost", "link", "preamble_tokens", "relast", "tokens")

    def __init__(self, tokens: int, preamble_tokens: int, relast: Cost | None, link: Link,
                 cost: Cost) -> None:
        self.tokens = tokens  # the shard's tokens after
        self.preamble_tokens = preamble_tokens
        self.relast = relast  # the new cost of the previous last entry (a blank line added)
        self.link = link
        self.cost = cost


class Known:
    """A shard file's summary and the signature it is valid for."""

    __slots__ = ("sig", "summary")

    def __init__(self, sig: Signature, summary: Summary) -> None:
        self.sig = sig
        self.summary = summary


class StaleState(Exception):
    """A part of the put state file is not what its sealed meta says (damaged, or the file
    replaced meanwhile): the put state is not trusted, the put takes the general way."""


class _Body:
    """The put state file's body, read a chunk at a time by offset, each chunk checked
    against the digest the file's sealed meta holds for it (as a search index part's)."""

    __slots__ = ("at", "path", "read_first", "root", "sig")

    def __init__(self, path: str, root: str, sig: Signature, at: int, read_first: bytes) -> None:
        self.path = path
        self.root = root
        self.sig = sig  # of the file whose meta was read
        self.at = at  # where the body starts in it
        self.read_first = read_first  # the body's first bytes, read with the meta

    def read(self, start: int, end: int, digest: bytes) -> bytes:
        if end <= len(self.read_first):  # a small memory's put state: read with its meta
            data = self.read_first[start:end]
            if blake2b(data, digest_size=_DIGEST).digest() != digest:
                raise StaleState
            return data
        try:
            f = open_bounded(self.path, MAX_CACHE_BYTES, self.root)
        except (OSError, LeanMemoryError):
            raise StaleState from None
        with f:
            st = os.fstat(f.fileno())
            data = os.pread(f.fileno(), end - start, self.at + start) \
                if (st.st_size, st.st_mtime_ns, st.st_ino) == self.sig else b""
        if len(data) != end - start or \
                blake2b(data, digest_size=_DIGEST).digest() != digest:
            raise StaleState
        return data


class Records:
    """Records of one width (digests, ids) kept as a set: those of the put state file,
    sorted and read a chunk at a time (the chunk that may hold a record, found by the
    first record of each chunk), then those added since, end to end. A put checks the
    bytes of the few chunks it asks about, not the whole put state (ADR 0040)."""

    __slots__ = ("body", "digests", "fences", "length", "more", "offset", "ordered", "width")

    def __init__(self, width: int, more: bytes = b"", body: _Body | None = None,
                 region: tuple[int, int, bytes, bytes] = (0, 0, b"", b""), *,
                 ordered: bool = False) -> None:
        self.width = width
        self.more = more
        self.body = body
        self.ordered = ordered and body is None  # all in ``more``, sorted
        # where the sorted records lie in the body, the first record of each chunk, and
        # each chunk's digest
        self.offset, self.length, self.fences, self.digests = region

    def has(self, record: bytes) -> bool:
        """Whether ``record`` is one of these (StaleState when a chunk read is not what
        was written)."""
        if _has_record(self.more, record):
            return True
        if self.body is None or not self.length or len(record) != self.width:
            return False
        w = self.width
        lo, hi = 0, len(self.fences) // w
        if record < self.fences[:w]:
            return False
        while hi - lo > 1:  # the last chunk whose first record is <= record
            mid = (lo + hi) // 2
            if self.fences[mid * w:(mid + 1) * w] <= record:
                lo = mid
            else:
                hi = mid
        return _has_record(self._chunk(lo), record)

    def _chunk(self, i: int) -> bytes:
        assert self.body is not None
        start = self.offset + i * _CHUNK
        return self.body.read(start, min(start + _CHUNK, self.offset + self.length),
                              self.digests[i * _DIGEST:(i + 1) * _DIGEST])

    def in_order(self) -> bytes:
        """Every record, sorted, end to end (as the put state file holds them)."""
        return self.more if self.ordered else b"".join(_split(self.whole(), self.width))

    def whole(self) -> bytes:
        """Every record, end to end (the file's, checked, then those added since)."""
        if self.body is None or not self.length:
            return self.more
        return b"".join((*(self._chunk(i) for i in range(-(-self.length // _CHUNK))),
                         self.more))

    def __add__(self, more: bytes) -> Records:
        return Records(self.width, self.more + more, self.body,
                       (self.offset, self.length, self.fences, self.digests))

    def __eq__(self, other: object) -> bool:  # as sets of records (tests compare states)
        return isinstance(other, Records) and self.width == other.width and \
            _split(self.whole(), self.width) == _split(other.whole(), other.width)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Records({self.width}, {len(self.whole()) // self.width} records)"


def _split(blob: bytes, width: int) -> list[bytes]:
    """``blob``'s records of ``width`` bytes, sorted."""
    return sorted(blob[i:i + width] for i in range(0, len(blob), width))


def _is_hex_id(name: str) -> bool:
    """Whether ``name`` has the form of the ids a put makes (fmt.new_id): kept as 4 bytes."""
    return len(name) == 8 and not name.strip(_HEX)


class Ids:
    """Every id (live and archived), a container for ``fmt.new_id``: the ids it makes
    (8 lowercase hex digits) as 4-byte records, any other id (written by hand) framed in
    a string, each on its own line (``"\\na\\nb\\n"``): those of the put state file, then
    those added since."""

    __slots__ = ("added", "hexes", "others")

    def __init__(self, hexes: Records, others: str = "\n", added: str = "\n") -> None:
        self.hexes = hexes
        self.others = others
        self.added = added

    @classmethod
    def of(cls, ids: Sequence[str]) -> Ids:
        # lowercase hex digits sort as the bytes they spell: one sort of 100k short
        # strings and one conversion; every id checked at once when all are a put's
        joined = "".join(ids)
        if len(joined) == 8 * len(ids) and not joined.strip(_HEX):
            hexes, others = sorted(ids), []
        else:
            hexes = sorted(i for i in ids if _is_hex_id(i))
            others = [i for i in ids if not _is_hex_id(i)]
        return cls(Records(4, bytes.fromhex("".join(hexes)), ordered=True),
                   "".join(("\n", *(f"{i}\n" for i in others))))

    def __contains__(self, item: object) -> bool:
        if not isinstance(item, str):
            return False
        if _is_hex_id(item):
            return self.hexes.has(bytes.fromhex(item))
        return f"\n{item}\n" in self.others or f"\n{item}\n" in self.added

    def plus(self, name: str) -> Ids:
        """These ids and ``name``."""
        if _is_hex_id(name):
            return Ids(self.hexes + bytes.fromhex(name), self.others, self.added)
        return Ids(self.hexes, self.others, f"{self.added}{name}\n")

    def more(self) -> int:
        """How many ids were added since the put state file was written."""
        return len(self.hexes.more) // 4 + self.added.count("\n") - 1

    def __iter__(self) -> Iterator[str]:
        blob = self.hexes.whole()
        yield from (blob[i:i + 4].hex() for i in range(0, len(blob), 4))
        yield from self.others.split()
        yield from self.added.split()

    def __eq__(self, other: object) -> bool:  # as sets (tests compare states)
        return isinstance(other, Ids) and sorted(self) == sorted(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Ids({sorted(self)!r})"


class Head(NamedTuple):
    """What a quick put needs of one live shard, kept in the put state."""

    description: str
    tokens: int
    hand: int
    preamble_tokens: int
    entries: int
    last: Cost | None  # the last entry's cost
    keys: Records  # the COST_KEY digests (8 bytes each)
    sigs: Records  # the said-again signatures (16 bytes each)
    unsigned: bool  # an entry's signature is not computed
    lines: int | None  # the file's line ends, None until a quick put counts them

    @classmethod
    def of(cls, s: Summary) -> Head:
        return cls(s.description, s.tokens, s.hand, s.preamble_tokens, len(s.links),
                   s.costs[-1] if s.costs else None,
                   Records(8, b"".join(c[COST_KEY] for c in s.costs)),
                   Records(16, b"".join(c[COST_SIG] or b"" for c in s.costs)),
                   any(c[COST_SIG] is None for c in s.costs), None)

    def said_again(self, key: bytes, sig: bytes | None) -> bool:
        """Whether an entry with this main-text digest and signature may fold into one of
        the shard (said again, or a near duplicate): then the general put decides."""
        return self.unsigned or self.keys.has(key) or bool(sig and self.sigs.has(sig))


class PutState(NamedTuple):
    """The put state (``.cache/put-state.marshal``), valid while every shard file has the
    signature it records; also the one cache of the status."""

    shards: tuple[str, ...]
    sigs: tuple[Signature, ...]  # of every shard file (Summaries._state_keys)
    rows: tuple[tuple[str, int, int, int], ...]  # INDEX.md's rows, ShardStatus but the name
    ids: Ids  # every id (live and archived)
    corrections: tuple[Link, ...]  # every link that supersedes an entry (a quick put adds none)
    heads: tuple[Head, ...]  # per live shard

    @property
    def targets(self) -> frozenset[str]:
        """Every id an entry supersedes."""
        return frozenset(link[LINK_TARGET] for link in self.corrections)


class PutRows:
    """What ``status`` and the rules need of the put state (its rows record)."""

    __slots__ = ("corrections", "rows")

    def __init__(self, rows: tuple[tuple[str, int, int, int], ...],
                 corrections: tuple[Link, ...]) -> None:
        self.rows = rows
        self.corrections = corrections


class _StatsTail:
    """What quick puts appended to a shard since its stats file was written."""

    __slots__ = (
        "base_entries",
        "base_file",
        "base_sig",
        "costs",
        "links",
        "preamble_tokens",
        "relast",
        "sig",
        "steps",
        "tokens",
    )

    def __init__(self, base_file: Signature, base_sig: Signature, base_entries: int,
                 sig: Signature, tokens: int, preamble_tokens: int, relast: Cost | None,
                 links: tuple[Link, ...], costs: tuple[Cost, ...],
                 steps: tuple[Signature, ...]) -> None:
        # the stats file's own file signature: while it holds, a put appending to the tail
        # knows the file's header (base_sig, base_entries) without reading the whole file
        self.base_file = base_file
        self.base_sig = base_sig  # the stats file's
        self.base_entries = base_entries
        self.sig = sig  # the shard file's after the last append
        self.tokens = tokens
        self.preamble_tokens = preamble_tokens
        self.relast = relast  # the new cost of the stats file's last entry, if it changed
        self.links = links
        self.costs = costs
        # the shard file's signature before each append: each file a byte prefix of the
        # next and of the file at ``sig`` (every append copies the whole file, checked
        # unchanged), which lets the search index only what was appended (grew_from)
        self.steps = steps

    def fields(self) -> tuple[object, ...]:
        return (self.base_file, self.base_sig, self.base_entries, self.sig, self.tokens,
                self.preamble_tokens, self.relast, self.links, self.costs, self.steps)


def _is_row(row: object) -> bool:
    """Whether ``row`` has the shape of a put state's row (ShardStatus but the name)."""
    return isinstance(row, tuple) and len(row) == 4 and isinstance(row[0], str) \
        and all(type(n) is int for n in row[1:])


def _is_link(link: object) -> bool:
    return isinstance(link, tuple) and len(link) == 3 and all(type(x) is str for x in link)


def _has_record(blob: bytes, record: bytes) -> bool:
    """Whether ``blob``, records of ``len(record)`` bytes end to end, holds ``record``."""
    at = blob.find(record)
    while at >= 0:
        if at % len(record) == 0:
            return True
        at = blob.find(record, at + 1)
    return False


class _StatsHead:
    """A stats file's header: read alone, so a put can tell which file a tail extends
    without loading the summary."""

    __slots__ = ("entries", "sig", "start")

    def __init__(self, start: int, sig: Signature, entries: int) -> None:
        self.start = start  # where the summary starts
        self.sig = sig
        self.entries = entries


def _stats_head(raw: bytes | None) -> _StatsHead | None:
    """The header of the stats file ``raw``, None when it has none of this version."""
    if raw is None or len(raw) < 8:
        return None
    size = int.from_bytes(raw[:8], "little")
    try:
        head = marshal.loads(raw[8:8 + size])
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(head, tuple) and len(head) == 3 and head[0] == STATS_VERSION):
        return None
    return _StatsHead(8 + size, tuple(head[1]), head[2])


# Above this many superseded ids, every shard file is parsed for the links (searching each
# file's text for every target would cost more).
_FEW_TARGETS = 64


def _parsed_links(text: str, name: str) -> list[Link]:
    return [(e.id, e.date or "", e.supersedes or "") for e in fmt.parse(text, name).entries]


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1].rstrip() + "…"


def render_index(status: Status, max_tokens: int, *, layer: str = "project") -> str:
    """The text of INDEX.md (deterministic). Raises rather than truncate when it outgrows
    ``max_tokens``. The global store's (``layer="global"``) says so and gives its commands
    with ``--global``: without it they reach the project's memory."""
    on = " --global" if layer == "global" else ""
    lines = [
        "# Memory index",
        "",
        "<!-- Generated by lean_memory from the shards beside it; edit those, not this file. -->",
        *(["Your own memory, for every project (the global layer)."] if on else []),
        f"Pull a shard with `lean-memory get <shard>{on}`; "
        f'find entries with `lean-memory get --query "<words>"{on}`.',
        "",
    ]
    for s in status.shards:
        extra = f", {s.superseded} superseded" if s.superseded else ""
        about = s.description
        if on and s.name in GLOBAL_DESCRIPTIONS and about in ("", DESCRIPTIONS.get(s.name)):
            about = GLOBAL_DESCRIPTIONS[s.name]  # a global store an older version made
        desc = f": {_short(about)}" if about else ""
        count = f"{s.entries} {'entry' if s.entries == 1 else 'entries'}"
        lines.append(f"- **{s.name}** ({count}{extra}, ~{s.tokens:,} tokens){desc}")
    pct = 100 * status.total_tokens // max(status.token_budget, 1)
    lines += ["", f"Total ~{status.total_tokens:,} of {status.token_budget:,} tokens ({pct}%)."]
    if status.compaction_due:
        lines.append(f"Over the compaction threshold ({status.compact_threshold:,}): "
                     f"run `lean-memory compact{on}`.")
    text = "\n".join(lines) + "\n"
    size = estimate_tokens(text)
    if size > max_tokens:
        raise LeanMemoryError(
            f"INDEX.md would be ~{size} tokens, over max_index_tokens={max_tokens}; "
            "use fewer shards or shorter shard descriptions")
    return text


class Summarized(Summaries):
    """A :class:`~lean_memory.summaries.Summaries` with the summaries' code: the stats, the
    put state, the status and INDEX.md. Methods and class defaults only (no ``__init__``,
    no slots): a reader becomes one in place (``Summaries._code``)."""

    # what is known of each shard file, read on first use (_stat)
    _stats: dict[str, Known | None] | None = None
    # the signature of the put state file _load_state read, for _append_state: its sets
    # hold what was added since (Records.more, Ids.added), which the tail records
    _state_base: Signature | None = None
    # the put state last read, by the signatures of its file and its tail
    _state_memo: tuple[tuple[Signature, Signature], PutState, Signature] | None = None

    # -- links ----------------------------------------------------------------------

    def superseded_ids(self, entries: Iterable[fmt.Entry] | None = None) -> set[str]:
        """Ids named by an entry's ``supersedes`` (unless the named entry is newer)."""
        if entries is None:
            state = self._load_state()
            if state is not None and not state.corrections:
                return set()  # no entry supersedes another: no summary need be read
            return hidden_ids(self._all_links())
        return hidden_ids((e.id, e.date or "", e.supersedes or "") for e in entries)

    def correction_links(self) -> tuple[Link, ...]:
        """Every link that supersedes an entry, of every shard file (live and archived):
        what decides, with a shard's own text, which of its entries are superseded."""
        known = self._load_rows()
        if known is not None:
            return known.corrections
        state = self._load_state()
        if state is not None:
            return state.corrections
        self.links_without_state = True
        return tuple(link for link in self._all_links() if link[LINK_TARGET])

    def _all_links(self) -> list[Link]:
        """The links of every shard file: from its cached summary when still valid, else
        from a parse alone (a summary also estimates every entry's tokens: five times the
        cost, too much for a prompt hook on a fresh clone of a large memory)."""
        found: list[list[Link] | None] = []
        texts: dict[int, tuple[str, str]] = {}  # files not parsed yet: (name, text)
        for archive in (False, True):
            for name in self.shards:
                path = self._shard_file(name, archive=archive)
                sig = file_signature(path)
                hit = self._stat(f"archive/{name}" if archive else name)
                if hit is not None and hit.sig == sig:
                    found.append(list(hit.summary.links))
                    continue
                text = self.read_text(path)
                if "supersedes" in text:  # a link may start here: parsed
                    found.append(_parsed_links(text, name))
                else:
                    texts[len(found)] = (name, text)
                    found.append(None)
        # A file no entry of which supersedes another matters only if it holds a target
        # (its date decides): a fresh clone's prompt hook parses only those (ADR 0036).
        targets = {link[LINK_TARGET] for links in found if links for link in links
                   if link[LINK_TARGET]}
        for i, (name, text) in texts.items():
            if len(targets) > _FEW_TARGETS or any(
                    t in text or fmt.meta_escape(t) in text for t in targets):
                found[i] = _parsed_links(text, name)
        return [link for links in found if links for link in links]

    def _links(self, live: dict[str, Summary]) -> list[Link]:
        """(id, date, supersedes) of every entry, archived ones included: a correction
        folded into the archive still hides what it corrected."""
        archived = self._summaries({}, archive=True)
        return [link for s in (*live.values(), *archived.values()) for link in s.links]

    # -- per shard file: its summary ------------------------------------------------

    def _summaries(self, fresh: Mapping[str, fmt.Shard], *, archive: bool = False,
                   signatures: bool = False) -> dict[str, Summary]:
        """Per-shard summaries: from the stats cache when the file's (size, mtime, inode)
        still match, else from the ``fresh`` shard in hand, else parsed anew."""
        out: dict[str, Summary] = {}
        for name in self.shards:
            path = self._shard_file(name, archive=archive)
            key = f"archive/{name}" if archive else name
            sig = file_signature(path)  # before reading: a later change then shows as stale
            hit = self._stat(key)
            if hit is not None and hit.sig == sig:
                out[name] = hit.summary
                continue
            shard = fresh[name] if name in fresh else fmt.parse(self.read_text(path), name)
            summary = Summary.of(shard, hit.summary if hit is not None else None,
                                 signatures=signatures and name in fresh)
            out[name] = summary
            self._keep_stat(key, sig, summary)
        return out

    def _stat(self, key: str) -> Known | None:
        """The cached (signature, summary) of one shard file (``key``: its name, or
        ``archive/<name>``), read from its stats file (and the tail of entries a quick put
        appended since) on first use; None if none."""
        stats = self._stats if self._stats is not None else {}
        self._stats = stats
        if key not in stats:
            raw = read_cache(self._stat_path(key), self._agents)
            head = _stats_head(raw)
            hit = None
            try:
                if raw is not None and head is not None:
                    hit = Known(head.sig, Summary(*marshal.loads(memoryview(raw)[head.start:])))
            except (EOFError, ValueError, TypeError):  # damaged, or of another version
                hit = None
            tail = self._stat_tail(key) if hit is not None and head is not None else None
            if hit is not None and head is not None and tail is not None \
                    and (tail.base_sig, tail.base_entries) == (hit.sig, head.entries):
                hit = Known(tail.sig, hit.summary.appended(tail.links, tail.costs, tail.tokens,
                                                 tail.preamble_tokens, tail.relast))
            stats[key] = hit
        return stats[key]

    def _stat_tail(self, key: str) -> _StatsTail | None:
        """The tail of a shard's stats: what quick puts appended since its stats file was
        written; None if none."""
        got = load_record(self._stat_path(key, tail=True), _TAIL_VERSION, 10, self._agents)
        return None if got is None else _StatsTail(*got)

    def _keep_stat(self, key: str, sig: Signature, summary: Summary) -> None:
        # One file per shard file: a put rewrites the summary of the shard it wrote only.
        if self._stats is None:
            self._stats = {}
        self._stats[key] = Known(sig, summary)
        head = marshal.dumps((STATS_VERSION, sig, len(summary.links)))
        write_cache(self._stat_path(key), b"".join((
            len(head).to_bytes(8, "little"), head, marshal.dumps(tuple(summary)))))
        with suppress(OSError):
            os.unlink(self._stat_path(key, tail=True))  # void anyway: another base

    def _stat_path(self, key: str, *, tail: bool = False) -> str:
        return _stats_file(self._cache, key, tail=tail)

    def _append_stat(self, name: str, before: Signature, after: Signature,
                     change: Appended) -> None:
        """Record in the stats of shard ``name`` (which had signature ``before``, now
        ``after``) one appended entry. It goes to the stats tail, so the stats file is not
        rewritten; the tail is merged into it past max(64, 1/8 of it)."""

        if self._stats is not None:
            self._stats.pop(name, None)  # what is on disk now is what counts
        tail = self._stat_tail(name)
        relast = change.relast
        base: _StatsTail | None = None
        # taken before the file is read: a change meanwhile then shows at the next append
        stats_file = file_signature(self._stat_path(name))
        entries = -1  # the stats file's, when known
        if tail is not None and stats_file[0] >= 0 and tail.base_file == stats_file:
            # the file the tail extends, unchanged: its header is the tail's base (read
            # when the tail began); not reading it keeps a put's cost that of the entry
            entries = tail.base_entries
            base = tail if tail.sig == before else None
        else:
            head = _stats_head(read_cache(self._stat_path(name), self._agents))
            if head is not None:
                entries = head.entries
                if tail is not None and (tail.base_sig, tail.base_entries, tail.sig) == \
                        (head.sig, head.entries, before):
                    base = tail
                    base.base_file = stats_file
                elif head.sig == before:
                    base = _StatsTail(stats_file, head.sig, head.entries, before, 0, 0, None,
                                      (), (), ())
        if base is not None and relast is not None:
            if base.costs:
                base.costs = (*base.costs[:-1], relast)
            else:
                base.relast = relast
        if base is None or len(base.links) >= max(_TAIL_MAX, entries // 8):
            hit = self._stat(name)
            if hit is None or hit.sig != before:
                return  # stale: whoever needs the summary rebuilds it
            self._keep_stat(name, after, hit.summary.appended(
                (change.link,), (change.cost,), change.tokens, change.preamble_tokens, relast))
            return
        base.sig, base.tokens, base.preamble_tokens = after, change.tokens, change.preamble_tokens
        base.links, base.costs = (*base.links, change.link), (*base.costs, change.cost)
        base.steps = (*base.steps, before)
        dump_record(self._stat_path(name, tail=True), _TAIL_VERSION, base.fields(),
                    self._agents)

    # -- the status, and the put state that caches it -------------------------------

    def status(self) -> Status:
        self._require_init()
        # The put state holds the rows for one exact set of shard file signatures: at 100k
        # entries, reading every summary's links and working out the superseded ones costs
        # more than the rest of the command.
        known = self._load_rows()
        if known is not None:
            return self._state_status(self.shards, known.rows)
        state = self._load_state()
        if state is not None:
            self._write_rows(state)  # a put state older than its rows record
            return self._state_status(state.shards, state.rows)
        st = self._status({})
        # kept like the stats (without the lock, as readers do): signatures taken before
        # each file was read, so a change meanwhile voids it; and not written over the put
        # state of a put that changed a file meanwhile (the background warm-up, at 100k
        # entries, takes seconds here)
        self._save_state(st, current=True)
        return st

    def _status(self, fresh: dict[str, fmt.Shard], *, signatures: bool = False) -> Status:
        """Status from the shards, reusing ``fresh`` shards already in hand."""
        return self._status_of(self._summaries(fresh, signatures=signatures))

    def _status_of(self, summaries: Mapping[str, Summary],
                   archived: Mapping[str, Summary] | None = None) -> Status:
        """Status from per-shard summaries (the archive's read from disk unless given)."""
        if archived is None:
            archived = self._summaries({}, archive=True)
        hidden = hidden_ids(link for s in (*summaries.values(), *archived.values())
                            for link in s.links)
        rows = []
        for name, s in summaries.items():
            gone = sum(1 for link in s.links if link[LINK_ID] in hidden)
            rows.append(ShardStatus(name, s.description or DESCRIPTIONS.get(name, ""),
                                    len(s.links) - gone, gone, s.tokens))
        c = self.config
        return Status(tuple(rows), sum(r.tokens for r in rows), c.token_budget,
                      c.compact_threshold)

    def _state_status(self, names: Sequence[str],
                      rows: Sequence[tuple[str, int, int, int]]) -> Status:
        """The status of the put state's INDEX.md rows."""
        shown = tuple(ShardStatus(n, *row) for n, row in zip(names, rows, strict=True))
        c = self.config
        return Status(shown, sum(r.tokens for r in shown), c.token_budget, c.compact_threshold)

    def _state_keys(self) -> list[tuple[str, str]]:
        """(stats key, path) of every shard file: the live ones, then the archived ones."""
        return [*((name, self._shard_file(name)) for name in self.shards),
                *((f"archive/{name}", self._shard_file(name, archive=True))
                  for name in self.shards)]

    def _load_state(self) -> PutState | None:
        """The put state, when every shard file still has the signature it records: the
        put state file's sealed meta (its sets are read a chunk at a time, when asked),
        with what quick puts appended since it was written (its tail)."""
        path = self._state_path()
        # Read once per process while neither file changes (`status` asks twice: its rows and
        # the overview of its context line).
        seen = (file_signature(path), file_signature(self._state_tail_path()))
        memo = self._state_memo
        if memo is not None and memo[0] == seen and seen[0][0] >= 0:
            state, self._state_base = memo[1], memo[2]
            if state.sigs != tuple(file_signature(p) for _, p in self._state_keys()):
                return None
            return state
        self._state_base = None
        got = self._read_state_meta(path)
        if got is None:
            return None
        base_file, body, meta = got
        try:
            shards, sigs, rows, corrections, others, heads, regions = meta
            if shards != self.shards or len(regions) != 2 * len(heads) + 1:
                return None

            def records(width: int, i: int, more: bytes = b"") -> Records:
                offset, length, fences, digests = regions[i]
                return Records(width, more, body, (offset, length, fences, digests))

            ids = Ids(records(4, -1), others)
            tail = load_record(self._state_tail_path(), _STATE_TAIL_VERSION, 6, self._agents)
            if tail is not None and tail[0] == base_file and len(tail[5]) == len(heads):
                _, sigs, rows, more_hex, added, tail_heads = tail
                ids = Ids(ids.hexes + more_hex, others, added)
            else:
                tail_heads = [(*h[:6], b"", b"", *h[8:]) for h in heads]
            heads = tuple(Head._make((*t[:6], records(8, 2 * i, t[6]),
                                      records(16, 2 * i + 1, t[7]), *t[8:]))
                          for i, t in enumerate(tail_heads))
            state = PutState(shards, sigs, rows, ids, corrections, heads)
        except (TypeError, ValueError):  # of another shape
            return None
        if sigs != tuple(file_signature(path) for _, path in self._state_keys()):
            return None
        self._state_base = base_file
        self._state_memo = (seen, state, base_file) if seen[0] == base_file else None
        return state

    def _read_state_meta(self, path: str) -> tuple[Signature, _Body, list[Any]] | None:
        """(the file's signature, its body, its meta) of the put state file when its meta
        is sealed with this user's key; the body is checked a chunk at a time, when read."""
        try:
            f = open_bounded(path, MAX_CACHE_BYTES, self._agents)
        except (OSError, LeanMemoryError):
            return None
        with f:
            fd = f.fileno()
            st = os.fstat(fd)
            head = os.pread(fd, _FIRST_READ, 0)
            at = CACHE_PREFIX + 8 + int.from_bytes(head[CACHE_PREFIX:CACHE_PREFIX + 8], "little")
            if len(head) < CACHE_PREFIX + 8 or at > st.st_size:
                return None
            if at > len(head):
                head += os.pread(fd, at - len(head), len(head))
        name = os.path.basename(path)
        if len(head) < at or not tag_matches(name, head, memoryview(head)[CACHE_PREFIX:at]):
            return None
        try:
            meta = marshal.loads(memoryview(head)[CACHE_PREFIX + 8:at])
        except (EOFError, ValueError, TypeError):
            return None
        if not isinstance(meta, list) or len(meta) != 8 or meta[0] != _STATE_VERSION:
            return None
        sig = (st.st_size, st.st_mtime_ns, st.st_ino)
        return sig, _Body(path, self._agents, sig, at, head[at:]), meta[1:]

    def _state_path(self) -> str:
        return os.path.join(self._cache, "put-state.marshal")

    def _state_tail_path(self) -> str:
        return os.path.join(self._cache, "put-state.tail.marshal")

    def _rows_path(self) -> str:
        return os.path.join(self._cache, "put-state.rows.marshal")

    def _load_rows(self) -> PutRows | None:
        """The put state's rows and correction links alone (its rows record, a few hundred
        bytes), while every shard file has the signature it records: at 100k entries the
        put state itself is ~2 MB that `status` would decode for six rows (ADR 0008)."""
        got = load_record(self._rows_path(), _ROWS_VERSION, 4, self._agents)
        if got is None:
            return None
        shards, sigs, rows, corrections = got
        if shards != self.shards or not isinstance(rows, tuple) \
                or len(rows) != len(shards) or not all(_is_row(r) for r in rows) \
                or not isinstance(corrections, tuple) or not all(
                    _is_link(link) for link in corrections):
            return None
        if sigs != tuple(file_signature(path) for _, path in self._state_keys()):
            return None
        return PutRows(rows, corrections)

    def _write_rows(self, state: PutState) -> None:
        """Record the rows and links the put state (or its tail) just recorded."""
        dump_record(self._rows_path(), _ROWS_VERSION,
                    (self.shards, state.sigs, state.rows, state.corrections), self._agents)

    def _append_state(self, state: PutState) -> None:
        """Record ``state``, the put state loaded here plus entries a quick put appended:
        only what changed goes to the put state's tail (a put then writes in proportion to
        its entry, not to the memory); past _STATE_TAIL_MAX ids, the whole put state."""
        base_file = self._state_base
        if base_file is None or state.ids.more() > _STATE_TAIL_MAX:
            self._write_state(state)
            return
        heads = tuple((*h[:6], h.keys.more, h.sigs.more, *h[8:]) for h in state.heads)
        dump_record(self._state_tail_path(), _STATE_TAIL_VERSION,
                    (base_file, state.sigs, state.rows, state.ids.hexes.more, state.ids.added,
                     heads), self._agents)
        self._write_rows(state)

    def _save_state(self, status: Status, *, current: bool = False) -> None:
        """Record the put state after a general put, from the summaries it holds (every
        shard file's, under the signature it was summarised with) and its ``status``;
        with ``current``, only if every file still has that signature."""
        stats = self._stats or {}
        keys = self._state_keys()
        ids: list[str] = []
        corrections: list[Link] = []
        sigs = []
        heads = []
        for key, _ in keys:
            hit = stats.get(key)
            if hit is None:
                return
            sigs.append(hit.sig)
            for link in hit.summary.links:
                ids.append(link[LINK_ID])
                if link[LINK_TARGET]:
                    corrections.append(link)
            if "/" not in key:  # its sets sorted as the file holds them
                costs = hit.summary.costs
                heads.append(Head.of(hit.summary)._replace(
                    keys=Records(8, b"".join(sorted(c[COST_KEY] for c in costs)), ordered=True),
                    sigs=Records(16, b"".join(sorted(c[COST_SIG] or b"" for c in costs)),
                                 ordered=True)))
        if current and tuple(sigs) != tuple(file_signature(path) for _, path in keys):
            return
        self._write_state(PutState(
            self.shards, tuple(sigs),
            tuple((r.description, r.entries, r.superseded, r.tokens) for r in status.shards),
            Ids.of(ids), tuple(corrections), tuple(heads)))

    def _write_state(self, state: PutState) -> None:
        """Write the put state file: its meta (sealed: every field but the sets, and per
        set where it lies, the first record and the digest of each chunk), then the sets,
        sorted, each read a chunk at a time (a put checks the few chunks it asks about)."""
        self._state_base = None
        self._state_memo = None
        path = self._state_path()
        try:
            sets = [(w, r.in_order()) for h in state.heads for w, r in ((8, h.keys), (16, h.sigs))]
            sets.append((4, state.ids.hexes.in_order()))
        except StaleState:  # the file read is not what was written: no put state until the
            # next general put writes one from the summaries
            sets = []
        body: list[bytes] = []
        regions = []
        at = 0
        for width, ordered in sets:
            chunks = [ordered[i:i + _CHUNK] for i in range(0, len(ordered), _CHUNK)]
            regions.append((at, len(ordered), b"".join(c[:width] for c in chunks),
                            b"".join(blake2b(c, digest_size=_DIGEST).digest()
                                     for c in chunks)))
            body.append(ordered)
            at += len(ordered)
        with suppress(OSError):
            os.unlink(self._state_tail_path())  # void anyway: another base
        if not sets:
            with suppress(OSError):
                os.unlink(path)
            return
        others = state.ids.others + state.ids.added[1:]
        meta = marshal.dumps([_STATE_VERSION, state.shards, state.sigs, state.rows,
                              state.corrections, others,
                              tuple((*h[:6], None, None, *h[8:]) for h in state.heads), regions])
        write_cache(path, b"".join((len(meta).to_bytes(8, "little"), meta, *body)),
                    self._agents, covered=8 + len(meta))
        self._write_rows(state)

    # -- INDEX.md -------------------------------------------------------------------

    def write_index(self, fresh: Mapping[str, fmt.Shard | str], *,
                    signatures: bool = False) -> Status:
        """Rewrite INDEX.md if it changed and return the status it shows; ``fresh`` maps
        shard names to shards (or texts) already in hand."""
        status = self._status({name: fmt.parse(s, name) if isinstance(s, str) else s
                               for name, s in fresh.items()}, signatures=signatures)
        self._store_index(self.render_index(status))
        return status

    def render_index(self, status: Status) -> str:
        """The text of INDEX.md for ``status``; raises when it outgrows max_index_tokens,
        which writers check before they write anything."""
        return render_index(status, self.config.max_index_tokens, layer=self.layer)

    def _store_index(self, text: str) -> None:
        if self.read_text(self._index) != text:
            # Derived data: atomic (never half written) but not fsynced, as any command
            # regenerates it from the shards.
            atomic_write(self._index, text, durable=False)

