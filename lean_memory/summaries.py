"""What is known of the memory's files without reading them: per shard file its summary
(stats, and the tail of entries quick puts appended since), the put state (the one status
cache: INDEX.md's rows and what a quick put needs, valid for the exact signatures of every
shard file), and INDEX.md, rendered from the status.

Above :mod:`lean_memory.folder`, below the ``Memory`` facade (:mod:`lean_memory.store`) and
the features, which import these records rather than the facade.
"""

from __future__ import annotations

import marshal
import os

from . import format as fmt
from ._hash import blake2b
from ._record import Record, suppress
from .errors import LeanMemoryError
from .folder import DESCRIPTIONS, GLOBAL_DESCRIPTIONS, Folder
from .fsutil import (
    atomic_write,
    dump_record,
    file_signature,
    load_record,
    read_cache,
    write_cache,
)
from .tokens import estimate_tokens

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Final, NamedTuple
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
_STATE_VERSION = "lean_memory.put-state/3"
_STATE_TAIL_VERSION = "lean_memory.put-state-tail/1"
_ROWS_VERSION = "lean_memory.put-state-rows/1"
_TAIL_MAX = 64  # entries a stats tail holds before it is merged (or 1/8 of the shard's)
_STATE_TAIL_MAX = 256  # ids a put state tail holds before the put state is rewritten
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


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used to spot an entry said again."""
    return " ".join(text.casefold().split())


def text_digest(text: str) -> bytes:
    """The 8-byte digest the summaries keep of a text."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


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


class Known:
    """A shard file's summary and the signature it is valid for."""

    __slots__ = ("sig", "summary")

    def __init__(self, sig: Signature, summary: Summary) -> None:
        self.sig = sig
        self.summary = summary


class Head(NamedTuple):
    """What a quick put needs of one live shard, kept in the put state."""

    description: str
    tokens: int
    hand: int
    preamble_tokens: int
    entries: int
    last: Cost | None  # the last entry's cost
    keys: bytes  # the COST_KEY digests, end to end
    sigs: bytes  # the said-again signatures (16 bytes each), end to end
    unsigned: bool  # an entry's signature is not computed
    lines: int | None  # the file's line ends, None until a quick put counts them

    @classmethod
    def of(cls, s: Summary) -> Head:
        return cls(s.description, s.tokens, s.hand, s.preamble_tokens, len(s.links),
                   s.costs[-1] if s.costs else None, b"".join(c[COST_KEY] for c in s.costs),
                   b"".join(c[COST_SIG] or b"" for c in s.costs),
                   any(c[COST_SIG] is None for c in s.costs), None)

    def said_again(self, key: bytes, sig: bytes | None) -> bool:
        """Whether an entry with this main-text digest and signature may fold into one of
        the shard (said again, or a near duplicate): then the general put decides."""
        return self.unsigned or _has_record(self.keys, key) or bool(
            sig and _has_record(self.sigs, sig))


class PutState(NamedTuple):
    """The put state (``.cache/put-state.marshal``), valid while every shard file has the
    signature it records; also the one cache of the status."""

    shards: tuple[str, ...]
    sigs: tuple[Signature, ...]  # of every shard file (Summaries._state_keys)
    rows: tuple[tuple[str, int, int, int], ...]  # INDEX.md's rows, ShardStatus but the name
    ids: str  # every id (live and archived), each on its own line: "\na\nb\n"
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


class FramedIds:
    """Membership in ids kept as one string, each id on its own line (``"\\na\\nb\\n"``):
    a substring search in C, instead of a set built from every entry of the memory."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and f"\n{item}\n" in self.text


# Above this many superseded ids, every shard file is parsed for the links (searching each
# file's text for every target would cost more).
_FEW_TARGETS = 64


def _parsed_links(text: str, name: str) -> list[Link]:
    return [(e.id, e.date or "", e.supersedes or "") for e in fmt.parse(text, name).entries]


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


class Summaries(Folder):
    """The memory folder with what is known of its files (see the module's docstring)."""

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        super().__init__(root)
        self._stats: dict[str, Known | None] | None = None
        # True once the correction links had to be read from every shard's summary (no
        # valid put state): the prompt hook then has the put state built in the background.
        self.links_without_state = False
        # what _load_state read from the put state file (its signature, its ids' length,
        # each head's keys and sigs lengths), for _append_state
        self._state_base: tuple[Signature, int, tuple[tuple[int, int], ...]] | None = None
        # the put state last read, by the signatures of its file and its tail
        self._state_memo: tuple[tuple[Signature, Signature], PutState,
                                tuple[Signature, int, tuple[tuple[int, int], ...]] | None] | None \
            = None

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
        put state file, with what quick puts appended since it was written (its tail)."""
        path = os.path.join(self._cache, "put-state.marshal")
        base_file = file_signature(path)  # before reading: a change meanwhile voids the tail
        # Read once per process while neither file changes (`status` asks twice: its rows and
        # the overview of its context line; at 100k entries each read is ~15 ms of CPU).
        seen = (base_file, file_signature(self._state_tail_path()))
        memo = self._state_memo
        if memo is not None and memo[0] == seen and base_file[0] >= 0:
            state, self._state_base = memo[1], memo[2]
            if state.sigs != tuple(file_signature(p) for _, p in self._state_keys()):
                return None
            return state
        got = load_record(path, _STATE_VERSION, 6, self._agents)
        if got is None or got[0] != self.shards:
            return None
        shards, sigs, rows, ids, corrections, heads = got
        self._state_base = None
        try:
            heads = tuple(Head(*h) for h in heads)
            base = (base_file, len(ids), tuple((len(h.keys), len(h.sigs)) for h in heads))
            # the file read is the one whose signature the tail names (signed before and
            # after reading it: a put state replaced meanwhile may not take the old tail)
            stable = base_file == file_signature(path)
            tail = load_record(self._state_tail_path(), _STATE_TAIL_VERSION, 5, self._agents) \
                if stable else None
            if tail is not None and tail[0] == base_file and len(tail[4]) == len(heads):
                _, sigs, rows, more_ids, tail_heads = tail
                ids += more_ids
                heads = tuple(Head._make((*t[:6], h.keys + t[6], h.sigs + t[7], *t[8:]))
                              for h, t in zip(heads, tail_heads, strict=True))
            state = PutState(shards, sigs, rows, ids, corrections, heads)
        except TypeError:  # a head of another shape
            return None
        if sigs != tuple(file_signature(path) for _, path in self._state_keys()):
            return None
        self._state_base = base if stable else None
        if stable:
            self._state_memo = (seen, state, self._state_base)
        return state

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
        base = self._state_base
        if base is None:
            self._write_state(state)
            return
        base_file, id_chars, blobs = base
        more_ids = state.ids[id_chars:]
        if more_ids.count("\n") > _STATE_TAIL_MAX:
            self._write_state(state)
            return
        heads = tuple((*h[:6], h.keys[keys:], h.sigs[sigs:], *h[8:])
                      for h, (keys, sigs) in zip(state.heads, blobs, strict=True))
        dump_record(self._state_tail_path(), _STATE_TAIL_VERSION,
                    (base_file, state.sigs, state.rows, more_ids, heads), self._agents)
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
            if "/" not in key:
                heads.append(Head.of(hit.summary))
        if current and tuple(sigs) != tuple(file_signature(path) for _, path in keys):
            return
        self._write_state(PutState(
            self.shards, tuple(sigs),
            tuple((r.description, r.entries, r.superseded, r.tokens) for r in status.shards),
            "\n" + "".join(f"{i}\n" for i in ids), tuple(corrections), tuple(heads)))

    def _write_state(self, state: PutState) -> None:
        self._state_base = None
        dump_record(os.path.join(self._cache, "put-state.marshal"), _STATE_VERSION,
                    (*state[:5], tuple(tuple(h) for h in state.heads)), self._agents)
        with suppress(OSError):
            os.unlink(self._state_tail_path())  # void anyway: another base
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

