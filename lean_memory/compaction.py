"""Budgeted, deterministic compaction (SPEC section 7, ADR 0005).

When the estimated total of the shards exceeds ``token_budget * compact_at_percent / 100``
(the *target*), the oldest entries of the largest shards are moved, byte for byte, to
``archive/<shard>.md`` and replaced by one *compacted entry* per shard, a summary of every
original in that shard's archive (title, extractive gist, id, date).

The plan is a pure function of the files: no clock, no randomness, no dict-order or
locale dependence, so two copies of the same memory compact to the same bytes.

* Candidates: every entry except the newest ``keep_recent`` of its shard (newest by date,
  then file order; undated counts as oldest) and except compacted entries (derived data,
  regenerated from the archive whenever their shard is compacted). Superseded entries go
  first, then the oldest.
* Detail levels of the summary, richest first: ``gists`` (title and a gist of up to 200
  characters per original), ``short`` (gists of up to 80), ``titles``, ``ids`` (ids and a
  count), ``count`` (count, date range and where the archive is), ``none`` (no compacted
  entry; the archive alone keeps the trail).
* For each level in turn, fold the next candidate of the currently largest shard until
  the estimated total is under the target; the first level that reaches it wins (so
  folding is preferred to terseness), then each touched shard is given back the richest
  level that still fits. When no level reaches the target (the untouchable entries alone do
  not fit), every candidate is folded at the ``count`` level in each shard this makes
  smaller, and the report says so.
* A compacted entry never grows past ``max_entry_tokens`` when a terser level keeps it
  within: it is "folded again, more tersely" instead.
* Estimates during planning add up per-entry token counts; the plan is then rendered and
  checked with the real estimate of each whole shard, tightening the goal if needed.

Writing, under the memory's lock: INDEX.md is rendered first (it may refuse), the intent
goes to a journal, then for each touched shard the archive, then the shard (each
atomically), then INDEX.md. A crash between two files leaves the originals in both places,
never in neither, and the next write under the lock finishes the job from the journal;
without a journal, the planner does not count an archived copy of a live entry as archived
(ADR 0015). Nothing is written when nothing would change.
"""

from __future__ import annotations

import contextlib
import heapq
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import format as fmt
from ._hash import sha256
from ._record import replace
from .dedup import main_text
from .errors import LeanMemoryError, NotInitialized, ShardError
from .folder import COMPACTION_JOURNAL as JOURNAL
from .fsutil import MAX_CACHE_BYTES, atomic_write, read_bounded, sealed, unsealed
from .putstate import Summary
from .shown import checked_item
from .tokens import estimate_tokens

if TYPE_CHECKING:
    from ._protocols import MemoryLike

Entry = fmt.Entry

LEVELS = ("gists", "short", "titles", "ids", "count", "none")
GIST_CHARS = (200, 80)  # gist length at the levels "gists" and "short"
FALLBACK_LEVEL = LEVELS.index("count")
COMPACTED_KEY = "compacted"
DETAIL_KEY = "detail"
_MAX_CHECKS = 8  # planning rounds with a tightened goal before moving to a terser level


# -- the report ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShardCompaction:
    """What compaction does (or would do) to one shard."""

    shard: str
    folded: tuple[str, ...]  # ids moved to the archive by this run, in file order
    superseded: int  # how many of them were superseded
    replaced: tuple[str, ...]  # ids of the compacted entries this run replaces
    compacted_id: str | None  # the shard's new compacted entry (None at detail "none")
    summarised: int  # originals the compacted entry summarises (the whole archive)
    detail: str  # one of LEVELS
    tokens_before: int
    tokens_after: int

    def to_json(self) -> dict[str, Any]:
        return {
            "shard": self.shard,
            "folded": list(self.folded),
            "superseded": self.superseded,
            "replaced": list(self.replaced),
            "compacted_id": self.compacted_id,
            "summarised": self.summarised,
            "detail": self.detail,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "archive": f"archive/{self.shard}.md",
        }


@dataclass(frozen=True)
class Shortfall:
    """Why compaction cannot reach its target, and what would.

    What stays after every fold: the newest ``keep_recent`` entries of each shard
    (``kept_tokens``), the shards' preambles (``preamble_tokens``) and the rest
    (``other_tokens``: the compacted entries at their tersest, and candidates in a shard that
    folding would not make smaller). ``largest`` names the largest kept entries, (id, shard,
    tokens), largest first: candidates for ``forget``.
    """

    kept_tokens: int
    preamble_tokens: int
    other_tokens: int
    needed_budget: int  # the smallest token_budget whose threshold holds what stays
    keep_recent: int
    largest: tuple[tuple[str, str, int], ...] = ()

    @property
    def reason(self) -> str:
        return (f"what compaction may not fold exceeds the threshold: the newest "
                f"keep_recent={self.keep_recent} entries of each shard (~{self.kept_tokens:,} "
                f"tokens), the shards' preambles (~{self.preamble_tokens:,}) and the compacted "
                f"entries at their tersest (~{self.other_tokens:,})")

    @property
    def advice(self) -> tuple[str, ...]:
        out = [f"raise token_budget to at least {self.needed_budget:,} in .agents/config.toml"]
        if self.keep_recent:
            out.append(f"lower keep_recent (now {self.keep_recent}) in .agents/config.toml")
        if self.largest:
            named = ", ".join(f"{i} (~{t:,} tokens)" for i, _, t in self.largest)
            out.append("retire what is no longer true with `lean-memory forget ID "
                       f"--reason ...` (largest kept: {named})")
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "advice": list(self.advice),
            "kept_tokens": self.kept_tokens,
            "preamble_tokens": self.preamble_tokens,
            "other_tokens": self.other_tokens,
            "needed_budget": self.needed_budget,
            "largest": [{"id": i, "shard": sh, "tokens": t} for i, sh, t in self.largest],
        }


@dataclass(frozen=True)
class CompactionReport:
    """The outcome of :func:`compact`.

    ``to_json()`` shape (stable; keys are never removed)::

        {"dry_run": bool, "due": bool, "changed": bool, "reached_target": bool,
         "tokens_before": int, "tokens_after": int, "target": int, "token_budget": int,
         "keep_recent": int, "folded": int,
         "shortfall": null | {"reason": str, "advice": [str, ...], "kept_tokens": int,
                              "preamble_tokens": int, "other_tokens": int,
                              "needed_budget": int,
                              "largest": [{"id": str, "shard": str, "tokens": int}, ...]},
         "shards": [{"shard": str, "folded": [id, ...], "superseded": int,
                     "replaced": [id, ...], "compacted_id": str | null, "summarised": int,
                     "detail": "gists" | "short" | "titles" | "ids" | "count" | "none",
                     "tokens_before": int, "tokens_after": int, "archive": str}, ...]}

    ``shards`` lists only the shards that change, in config order. With ``dry_run`` the
    figures are those the run would produce; nothing was written. ``shortfall`` says why
    the target is out of reach and what to do (None when it is reached).
    """

    dry_run: bool
    due: bool
    changed: bool
    tokens_before: int
    tokens_after: int
    target: int
    token_budget: int
    keep_recent: int
    shards: tuple[ShardCompaction, ...] = field(default=())
    shortfall: Shortfall | None = None

    @property
    def reached_target(self) -> bool:
        return self.tokens_after <= self.target

    @property
    def folded(self) -> int:
        return sum(len(s.folded) for s in self.shards)

    def to_json(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "due": self.due,
            "changed": self.changed,
            "reached_target": self.reached_target,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "target": self.target,
            "token_budget": self.token_budget,
            "keep_recent": self.keep_recent,
            "folded": self.folded,
            "shortfall": self.shortfall.to_json() if self.shortfall else None,
            "shards": [s.to_json() for s in self.shards],
        }

    def describe(self) -> str:
        """Human-readable text for the CLI, ending with a newline."""
        figures = (f"~{self.tokens_before:,} tokens, threshold {self.target:,} "
                   f"(budget {self.token_budget:,})")
        if not self.due:
            return f"Compaction not due: {figures}. Nothing to do.\n"
        verb = "would fold" if self.dry_run else "folded"
        head = "Compaction (dry run, nothing written)" if self.dry_run else "Compaction"
        lines = [f"{head}: ~{self.tokens_before:,} -> ~{self.tokens_after:,} tokens, "
                 f"threshold {self.target:,} (budget {self.token_budget:,})."]
        for s in self.shards:
            sup = f" ({s.superseded} superseded)" if s.superseded else ""
            into = (f"compacted entry {s.compacted_id} (summarises {s.summarised}, "
                    f"detail: {s.detail})" if s.compacted_id else "the archive only (detail: none)")
            lines.append(f"  {s.shard}: {verb} {len(s.folded)} "
                         f"{'entry' if len(s.folded) == 1 else 'entries'}{sup} into {into}; "
                         f"~{s.tokens_before:,} -> ~{s.tokens_after:,} tokens; "
                         f"originals in archive/{s.shard}.md")
            if s.folded:
                shown = ", ".join(s.folded[:12])
                more = f" and {len(s.folded) - 12} more" if len(s.folded) > 12 else ""
                lines.append(f"    {verb}: {shown}{more}")
        if not self.shards:
            lines.append("  Nothing can be folded: every entry is among the newest "
                         f"keep_recent={self.keep_recent} of its shard.")
        if self.shortfall is not None:
            lines.append(f"Target not reached: {self.shortfall.reason}.")
            lines.extend(f"  {'To fix:' if i == 0 else '    or:'} {a}"
                         for i, a in enumerate(self.shortfall.advice))
        elif not self.reached_target:
            lines.append("Target not reached.")
        return "\n".join(lines) + "\n"


# -- gists and the compacted entry -------------------------------------------------------------

_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|>\s*|[-*+]\s+|\d{1,3}[.)]\s+)+")
_AFTER_TITLE = ":;,.!?-\u2013\u2014 "
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _flat(text: str) -> str:
    """One line of text, safe inside a list item (no HTML comment can open)."""
    return " ".join(text.split()).replace("<!--", "&lt;!--")


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut.rstrip(" ,;:.-") + "…"


def gist(entry: Entry, limit: int) -> str:
    """A deterministic extractive gist: the leading sentences of the prose, up to ``limit``
    characters (code blocks and a first sentence that repeats the title are skipped)."""
    prose: list[str] = []
    code: list[str] = []
    fence: str | None = None
    for line in main_text(entry.text).splitlines():
        if fence is not None:
            if fmt.closes_fence(fence, line):
                fence = None
            elif line.strip():
                code.append(line.strip())
            continue
        fence = fmt.opens_fence(line)
        if fence is not None:
            continue
        prose.append(_MARKUP.sub("", line))
    text = _flat(" ".join(prose)) or _flat(code[0] if code else "")
    norm_title = " ".join(entry.title.casefold().split()).rstrip(".!?…")
    head, rest = text[: len(norm_title)], text[len(norm_title):]
    if norm_title and rest and head.casefold() == norm_title and rest[0] in _AFTER_TITLE:
        text = rest.lstrip(_AFTER_TITLE) or text  # the body opens with the title: say it once
    sentences = _SENTENCE_END.split(text)
    if len(sentences) > 1 and " ".join(sentences[0].casefold().split()).rstrip(".!?…") \
            == norm_title:
        sentences = sentences[1:]
    out = ""
    for sentence in sentences:
        joined = f"{out} {sentence}" if out else sentence
        if len(joined) > limit:
            return out or _cut(sentence, limit)
        out = joined
    return out


def _item(entry: Entry, level: int, superseded: bool) -> str:
    """One line of the compacted entry's list, at ``level`` (gists, short or titles);
    never a credential (ADR 0011)."""
    return checked_item(entry, lambda e: _plain_item(e, level, superseded))


def _plain_item(entry: Entry, level: int, superseded: bool) -> str:
    when = f"{entry.date}, " if entry.date else ""
    mark = " (superseded)" if superseded else ""
    line = f"- **{_flat(entry.title)}** ({when}`{entry.id}`){mark}"
    if level < 2 and not superseded:
        text = gist(entry, GIST_CHARS[level])
        if text:
            line += f": {text}"
    return line


def _date_range(items: Sequence[Entry]) -> tuple[str | None, str | None]:
    dates = sorted(e.date for e in items if e.date)
    return (dates[0], dates[-1]) if dates else (None, None)


def _header(shard: str, items: Sequence[Entry]) -> str:
    """The first line of a compacted entry's body (the title already has count and dates)."""
    undated = sum(1 for e in items if not e.date)
    note = f" ({undated} undated)" if undated and undated < len(items) else ""
    return (f"Folded by compaction{note}; the originals are in `archive/{shard}.md` "
            f"(`lean-memory get {shard} --archive`).")


def _title(items: Sequence[Entry]) -> str:
    n = len(items)
    first, last = _date_range(items)
    span = "" if not first else f", {first}" if first == last else f", {first} to {last}"
    return f"Compacted: {n} older {'entry' if n == 1 else 'entries'}{span}"


def _body(shard: str, items: Sequence[Entry], level: int, hidden: set[str],
          item_lines: Sequence[str] | None = None) -> str:
    lines = [_header(shard, items)]
    if level <= 2:
        lines.append("")
        if item_lines is not None:
            lines.extend(item_lines)
        else:
            lines.extend(_item(e, level, e.id in hidden) for e in items)
    elif level == 3:
        lines += ["", "Ids: " + " ".join(f"`{e.id}`" for e in items)]
    return "\n".join(lines)


def compacted_entry(shard: str, items: Sequence[Entry], level: int, hidden: set[str],
                    taken: set[str], item_lines: Sequence[str] | None = None) -> Entry:
    """The compacted entry summarising ``items`` (archive order) at ``level`` (< 5);
    ``item_lines``, when given, are the items' list lines already rendered."""
    title = _title(items)
    body = _body(shard, items, level, hidden, item_lines)
    date = _date_range(items)[1]
    entry = Entry(id=fmt.new_id(shard, title, body, date or "", taken), shard=shard,
                  title=title, text=body, date=date,
                  meta=((COMPACTED_KEY, str(len(items))), (DETAIL_KEY, LEVELS[level])))
    return fmt.with_raw(entry)


def is_compacted(entry: Entry) -> bool:
    return entry.get(COMPACTED_KEY) is not None


# -- archive pieces ----------------------------------------------------------------------------


def _separated(raw: str) -> str:
    """``raw`` ending with a blank line in its own line-ending style."""
    return fmt.ensure_separated(raw) if raw else "\n\n"


def _round_trips(piece: str, entry: Entry) -> bool:
    parsed = fmt.parse(piece + "## probe\n", entry.shard).entries
    return (len(parsed) == 2 and parsed[0].id == entry.id and parsed[0].text == entry.text
            and parsed[0].title == entry.title and parsed[0].date == entry.date)


def archive_piece(entry: Entry) -> str:
    """The text that keeps ``entry`` in the archive, or wherever its derived id could change:
    its own bytes when they parse back to the same entry (a hand-written entry gets its id
    stamped in a metadata line, nothing else), else the entry rendered anew (same id,
    metadata and body)."""
    piece = _separated(entry.raw if entry.has_meta else _stamp_id(entry).raw)
    if _round_trips(piece, entry):
        return piece
    piece = fmt.render_entry(entry)
    if _round_trips(piece, entry):
        return piece
    raise ShardError(f"cannot archive entry {entry.id} of {entry.shard!r} losslessly; "
                     "nothing was written")


def archive_preamble(shard: str) -> str:
    return (f"# Archive: {shard}\n\n"
            f"Originals folded away by compaction, kept byte for byte. Never loaded by default; "
            f"search them with `--archive`.\n\n")


# -- planning ----------------------------------------------------------------------------------


@dataclass
class _Shard:
    """One shard while planning."""

    name: str
    order: int
    text: str
    parsed: fmt.Shard
    tokens: int
    queue: list[Entry]  # candidates, in folding order
    compacted: list[Entry]  # existing compacted entries (replaced when touched)
    superseded: set[str]
    archive_text: str | None = None  # without copies of live entries (see _Planner.archived)
    archive_disk: str | None = None  # the archive file as it is
    archive_items: list[Entry] = field(default_factory=list)
    edited: list[Entry] = field(default_factory=list)  # compacted entries changed by hand


def _sort_key(pair: tuple[int, Entry]) -> tuple[str, int]:
    return (pair[1].date or "", pair[0])


class _Planner:
    def __init__(self, mem: MemoryLike) -> None:
        self._item_costs: dict[tuple[str, str, int], int] = {}
        self._raw_costs: dict[str, int] = {}
        self._lines: dict[tuple[str, str, int], str] = {}
        self._id_cost: dict[int, int] = {}
        self._fixed: dict[tuple[str, int], int] = {}
        self.mem = mem
        self._archives: dict[str, tuple[str, fmt.Shard]] = {}
        self._raw_live: dict[str, fmt.Shard] = {}
        self.config = mem.config
        self.target = self.config.compact_threshold
        self.cap = self.config.max_entry_tokens
        names = self.config.shards
        texts = {n: mem.read_text(mem.shard_path(n)) for n in names}
        parsed = {n: fmt.parse(texts[n], n) for n in names}
        self._raw_live = dict(parsed)
        live = [e for n in names for e in parsed[n].entries]
        self.hidden = mem.superseded_ids(live)
        named = {e.supersedes for e in live if e.supersedes}
        self.taken = {e.id for e in live}
        self.shards: list[_Shard] = []
        keep = self.config.keep_recent
        for order, n in enumerate(names):
            entries = self._unclash(parsed[n])
            parsed[n] = replace(parsed[n], entries=entries)
            real = sorted(((i, e) for i, e in enumerate(entries) if not is_compacted(e)),
                          key=_sort_key)
            movable = real[: max(len(real) - keep, 0)]
            queue = [e for _, e in sorted(movable, key=lambda p: (p[1].id not in self.hidden,
                                                                   *_sort_key(p)))]
            self.shards.append(_Shard(
                name=n, order=order, text=texts[n], parsed=parsed[n],
                tokens=self.shard_tokens(parsed[n]), queue=queue,
                compacted=[e for e in entries if is_compacted(e)],
                superseded=set(named)))
        self.before = sum(s.tokens for s in self.shards)

    def _unclash(self, shard: fmt.Shard) -> tuple[Entry, ...]:
        """The shard's entries, a hand-written one whose derived id an archived entry already
        has given a fresh id (stamped on it if it is folded or kept)."""
        if all(e.has_meta for e in shard.entries):
            return shard.entries
        archived = {e.id for e in self.archived(shard.name)[1].entries}
        out = []
        for e in shard.entries:
            if not e.has_meta and e.id in archived:
                taken = self.taken | archived
                e = replace(e, id=fmt.new_id(shard.name, e.title, e.text, e.date or "", taken))
                self.taken.add(e.id)
            out.append(e)
        return tuple(out)

    # archive and estimates ---------------------------------------------------------------

    def shard_tokens(self, shard: fmt.Shard) -> int:
        """Tokens of a shard as status and INDEX.md count them: preamble plus each entry."""
        return self.raw_cost(shard.preamble) + sum(self.raw_cost(e.raw) for e in shard.entries)

    def archived(self, name: str) -> tuple[str, fmt.Shard]:
        """(the archive file's text, the archive without copies of live entries).

        An archived entry with the id, title and text of an entry still in the shard (one
        with a metadata line) is what a crash between the archive write and the shard
        write leaves behind: the
        plan treats it as not archived yet, so the next run appends it once, not twice,
        and ends with the bytes a run without the crash writes (ADR 0015).
        """
        got = self._archives.get(name)
        if got is None:
            disk = self.mem.read_text(self.mem.shard_path(name, archive=True))
            shard = fmt.parse(disk, name)
            # Only ids from a metadata line: those are unique by construction, while a
            # note typed again by hand derives the id of its archived namesake.
            live = {(e.id, e.title, e.text) for e in self._raw_live[name].entries
                    if e.has_meta}
            kept = tuple(e for e in shard.entries
                         if is_compacted(e) or (e.id, e.title, e.text) not in live)
            if len(kept) != len(shard.entries):
                shard = fmt.Shard(name, shard.preamble, kept)
            got = self._archives[name] = (disk, shard)
        return got

    def load_archive(self, s: _Shard) -> None:
        if s.archive_text is not None:
            return
        s.archive_disk, virtual = self.archived(s.name)
        s.archive_text = virtual.render()
        s.archive_items = [e for e in virtual.entries if not is_compacted(e)]
        self.taken.update(e.id for e in virtual.entries)
        for e in s.archive_items:
            if e.supersedes:
                s.superseded.add(e.supersedes)
        for e in s.queue:
            if e.supersedes:
                s.superseded.add(e.supersedes)
        s.edited = [e for e in s.compacted if not self._pristine(s, e)]

    def _pristine(self, s: _Shard, e: Entry) -> bool:
        """Whether the compacted entry ``e`` is what compaction wrote (else someone typed
        into it, and replacing it must not lose that: it is archived byte for byte)."""
        detail = e.get(DETAIL_KEY)
        if detail not in LEVELS[:-1] or not s.archive_items:
            return False
        level = LEVELS.index(str(detail))
        items = s.archive_items
        if e.title != _title(items) or e.date != _date_range(items)[1]:
            return False
        if level > 2:
            return e.text == _body(s.name, items, level, s.superseded)
        head = _body(s.name, items, level, set(), []).split("\n")
        got = e.text.split("\n")
        if len(got) != len(head) + len(items) or got[: len(head)] != head:
            return False
        # An item may have been superseded since: either form of its line is ours.
        return all(line == self.item_line(s, x, level) or line == _item(x, level, hidden)
                   for line, x in zip(got[len(head):], items, strict=True)
                   for hidden in (x.id not in s.superseded,))

    def cost(self, s: _Shard, e: Entry) -> int:
        return self.raw_cost(e.raw)

    def raw_cost(self, raw: str) -> int:
        c = self._raw_costs.get(raw)
        if c is None:
            c = self._raw_costs[raw] = estimate_tokens(raw)
        return c

    def item_line(self, s: _Shard, e: Entry, level: int) -> str:
        key = (s.name, e.id, level)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = _item(e, level, e.id in s.superseded)
        return line

    def item_cost(self, s: _Shard, e: Entry, level: int) -> int:
        if level >= 4:
            return 0
        key = (s.name, e.id, level)
        c = self._item_costs.get(key)
        if c is None:
            if level == 3:
                c = self._id_cost.get(len(e.id))
                if c is None:
                    c = self._id_cost[len(e.id)] = estimate_tokens(f"`{e.id}` ")
            else:
                c = estimate_tokens(self.item_line(s, e, level) + "\n")
            self._item_costs[key] = c
        return c

    def fixed_cost(self, s: _Shard, level: int) -> int:
        """Tokens of a compacted entry without its items (an upper bound over the run)."""
        if level == 5:
            return 0
        key = (s.name, level)
        c = self._fixed.get(key)
        if c is None:
            items = [*s.archive_items, *s.queue]
            probe = compacted_entry(s.name, items, 4, set(), set())
            c = self._fixed[key] = estimate_tokens(probe.raw) + 4
        return c

    def summary_cost(self, s: _Shard, items: Sequence[Entry], level: int) -> tuple[int, int]:
        """(estimated tokens, level) of the compacted entry of ``items`` at the richest level
        from ``level`` on whose entry stays within ``max_entry_tokens`` (``count`` at worst)."""
        if not items or level >= len(LEVELS) - 1:
            return 0, level
        while True:
            cost = self.fixed_cost(s, level)
            for e in items:
                cost += self.item_cost(s, e, level)
                if cost > self.cap and level < FALLBACK_LEVEL:
                    break
            if cost <= self.cap or level >= FALLBACK_LEVEL:
                return cost, level
            level += 1

    def richest_feasible(self) -> int:
        """The richest level at which folding every candidate could reach the target
        (checked from the tersest up: a richer summary is never smaller)."""
        best = len(LEVELS) - 1
        for level in range(len(LEVELS) - 1, -1, -1):
            total = 0
            for s in self.shards:
                if not (s.queue or s.compacted):
                    total += s.tokens
                    continue
                self.load_archive(s)
                moved = {id(e) for e in s.queue}
                total += self.raw_cost(s.parsed.preamble) + sum(
                    self.cost(s, e) for e in s.parsed.entries
                    if id(e) not in moved and not is_compacted(e))
                total += self.summary_cost(s, [*s.archive_items, *s.queue], level)[0]
            if total > self.target + _slack(self.target):
                break
            best = level
        return best

    # one greedy pass -----------------------------------------------------------------------

    def greedy(self, level: int, goal: int) -> tuple[dict[str, int], int]:
        """Fold candidates of the largest shard, one at a time, until the estimated total is
        at most ``goal``. Returns how many candidates of each touched shard are folded, and
        the estimated total."""
        folded: dict[str, int] = {}
        cur = {s.name: s.tokens for s in self.shards}
        rest: dict[str, int] = {}
        summary: dict[str, int] = {}
        lvl: dict[str, int] = {}
        total = self.before
        heap = [(-s.tokens, s.order) for s in self.shards if s.queue or s.compacted]
        heapq.heapify(heap)
        while total > goal and heap:
            _, order = heapq.heappop(heap)
            s = self.shards[order]
            n = folded.get(s.name)
            if n is None:  # first touch: the summary is regenerated at this level
                self.load_archive(s)
                rest[s.name] = (self.raw_cost(s.parsed.preamble) + sum(
                    self.cost(s, e) for e in s.parsed.entries if not is_compacted(e)))
                summary[s.name], lvl[s.name] = self.summary_cost(s, s.archive_items, level)
                n = 0
                if not s.queue:  # only the existing summary can change: worth it if smaller
                    new = rest[s.name] + (summary[s.name] if s.archive_items else 0)
                    if new >= cur[s.name]:
                        continue
                    folded[s.name] = 0
                    total += new - cur[s.name]
                    cur[s.name] = new
                    continue
            if n >= len(s.queue):
                continue
            e = s.queue[n]
            folded[s.name] = n + 1
            rest[s.name] -= self.cost(s, e)
            if n == 0 and not s.archive_items:
                summary[s.name], lvl[s.name] = self.summary_cost(s, [e], level)
            else:
                summary[s.name] += self.item_cost(s, e, lvl[s.name])
                if summary[s.name] > self.cap and lvl[s.name] < FALLBACK_LEVEL:
                    summary[s.name], lvl[s.name] = self.summary_cost(
                        s, [*s.archive_items, *s.queue[: n + 1]], lvl[s.name] + 1)
            new = rest[s.name] + summary[s.name]
            total += new - cur[s.name]
            cur[s.name] = new
            heapq.heappush(heap, (-new, order))
        return folded, total

    # rendering -----------------------------------------------------------------------------

    def render(self, s: _Shard, n: int, level: int) -> _Rendered:
        """The shard when ``n`` candidates are folded and summarised at ``level`` (or
        tersely enough for the compacted entry to stay within ``max_entry_tokens``)."""
        self.load_archive(s)
        moved = {e.id for e in s.queue[:n]}
        out_entries = [e for e in s.parsed.entries if e.id in moved]  # file order
        items = [*s.archive_items, *out_entries]
        summary = None
        if items and level < len(LEVELS) - 1:
            edited = {e.id for e in s.edited}  # archived: their ids stay taken
            own = {e.id for e in s.compacted} - edited  # replaced: a summary keeps its id
            taken = (self.taken | {e.id for e in s.parsed.entries}) - own
            level = max(level, self.summary_cost(s, items, level)[1])
            while True:
                lines = [self.item_line(s, e, level) for e in items] if level <= 2 else None
                summary = compacted_entry(s.name, items, level, s.superseded, taken, lines)
                if level >= FALLBACK_LEVEL or self.raw_cost(summary.raw) <= self.cap:
                    break
                level += 1
        kept = [e for e in s.parsed.entries if e.id not in moved and not is_compacted(e)]
        text, pieces = self._live_text(s, kept, summary)
        tokens = self.raw_cost(s.parsed.preamble) + sum(self.raw_cost(x) for x in pieces)
        return _Rendered(text, summary, tokens, level)

    def archive(self, s: _Shard, n: int) -> str:
        """The new text of the shard's archive when ``n`` candidates are folded."""
        self.load_archive(s)
        assert s.archive_text is not None
        moved = {e.id for e in s.queue[:n]}
        out_entries = [e for e in s.parsed.entries if e.id in moved]  # file order
        if not out_entries and not s.edited:
            return s.archive_text
        base = _separated(s.archive_text) if s.archive_text else archive_preamble(s.name)
        # A compacted entry someone typed into goes first, byte for byte (its bytes are
        # ours but for what was typed, so they parse back as they are).
        base += "".join(_separated(e.raw) for e in s.edited)
        # The common case checked with one parse; entry by entry only when that fails.
        quick = [_separated(e.raw if e.has_meta else _stamp_id(e).raw) for e in out_entries]
        back = fmt.parse("".join(quick) + "## probe\n", s.name).entries
        if len(back) == len(out_entries) + 1 and all(
                b.id == e.id and b.text == e.text and b.title == e.title and b.date == e.date
                for b, e in zip(back, out_entries, strict=False)):
            return base + "".join(quick)
        return base + "".join(archive_piece(e) for e in out_entries)

    @staticmethod
    def _live_text(s: _Shard, kept: list[Entry], summary: Entry | None) -> tuple[str, list[str]]:
        """The shard's new text, and its entries' raw texts."""
        preamble = s.parsed.preamble
        if summary is not None and preamble and not preamble.endswith("\n"):
            preamble += "\n"
        parts = [preamble]
        if summary is not None:
            parts.append(summary.raw)
        parts.extend(e.raw for e in kept)
        text = "".join(parts)
        if all(e.has_meta for e in kept):
            return text, parts[1:]
        # Removing an entry can renumber the derived id of a hand-written entry with the
        # same title; give such entries their id in a metadata line, as put_entry does.
        again = fmt.parse(text, s.name).entries
        want = [e.id for e in kept]
        got = [e.id for e in again if not is_compacted(e)]
        if got != want:
            stamped = [e.raw if e.has_meta or e.id == g else archive_piece(e)
                       for e, g in zip(kept, got, strict=False)]
            parts = parts[: len(parts) - len(kept)] + stamped
            text = "".join(parts)
        return text, parts[1:]


def _stamp_id(entry: Entry) -> Entry:
    return fmt.stamp(entry, [("id", fmt.meta_escape(entry.id))])


@dataclass(frozen=True)
class _Rendered:
    text: str
    summary: Entry | None
    tokens: int
    level: int  # the level used (terser than asked when the entry would be too large)


@dataclass
class _Outcome:
    levels: dict[str, int]  # asked for
    folded: dict[str, int]
    texts: dict[str, _Rendered]
    total: int


def _evaluate(p: _Planner, folded: dict[str, int], levels: dict[str, int],
              base: _Outcome | None = None) -> _Outcome:
    """Render the plan and measure it; shards whose plan equals ``base``'s are reused."""
    texts = {}
    total = 0
    for s in p.shards:
        if s.name in folded:
            if (base is not None and s.name in base.texts and base.folded[s.name] == folded[s.name]
                    and base.levels[s.name] == levels[s.name]):
                texts[s.name] = base.texts[s.name]
            else:
                texts[s.name] = p.render(s, folded[s.name], levels[s.name])
            total += texts[s.name].tokens
        else:
            total += s.tokens
    return _Outcome(dict(levels), dict(folded), texts, total)


def _plan(p: _Planner) -> _Outcome | None:
    """The folding plan, or None when nothing needs to change."""
    if p.before <= p.target:
        return None
    for level in range(p.richest_feasible(), len(LEVELS)):
        goal = p.target
        for _ in range(_MAX_CHECKS):
            folded, estimate = p.greedy(level, goal)
            if not folded:
                break
            if estimate > goal + _slack(goal):  # far off even with every candidate folded
                break
            outcome = _evaluate(p, folded, dict.fromkeys(folded, level))
            if outcome.total <= p.target:
                return _richer(p, outcome)
            if estimate > goal or goal <= 0:  # every candidate folded: try a terser level
                break
            goal = max(min(goal, estimate) - (outcome.total - p.target), 0)
    # Out of reach: fold every candidate of each shard that it makes smaller, tersely.
    folded = {s.name: len(s.queue) for s in p.shards if (s.queue or s.compacted)
              and p.render(s, len(s.queue), FALLBACK_LEVEL).tokens < s.tokens}
    if not folded:
        return None
    return _evaluate(p, folded, dict.fromkeys(folded, FALLBACK_LEVEL))


def _slack(goal: int) -> int:
    """How far above the goal an additive estimate may be and still be worth checking."""
    return max(64, goal // 20)


def _richer(p: _Planner, outcome: _Outcome) -> _Outcome:
    """Give each touched shard (largest first) the richest level that still fits, one
    level at a time (a richer summary is never smaller)."""
    order = sorted(outcome.folded, key=lambda n: (-len(outcome.texts[n].text), n))
    by_name = {s.name: s for s in p.shards}
    for name in order:
        s = by_name[name]
        items = [*s.archive_items, *s.queue[: outcome.folded[name]]]
        if not items:
            continue
        for level in range(outcome.levels[name] - 1, -1, -1):
            now = outcome.texts[name].level
            cost, used = p.summary_cost(s, items, level)
            if used >= now:  # richer would make the compacted entry too large
                break
            grow = cost - p.summary_cost(s, items, now)[0]
            if outcome.total + grow > p.target + _slack(p.target):
                break
            trial = _evaluate(p, outcome.folded, {**outcome.levels, name: level}, outcome)
            if trial.total > p.target or trial.texts[name].level >= now:
                break
            outcome = trial
    return outcome


# -- the entry point ---------------------------------------------------------------------------


def compact(mem: MemoryLike, *, dry_run: bool = False) -> CompactionReport:
    """Fold the oldest entries of the largest shards until the memory is under its target.

    Deterministic and idempotent; ``dry_run`` plans and reports without writing.
    """
    if not mem.dir.is_dir():
        raise NotInitialized(f"no memory at {mem.dir}: run `lean-memory init` first")
    with mem.lock():  # which finishes a compaction a crash interrupted
        status = mem.status()  # cheap (cached per shard file); the same count as the planner's
        if not status.compaction_due:
            c = mem.config
            return CompactionReport(dry_run, False, False, status.total_tokens,
                                    status.total_tokens, status.compact_threshold,
                                    c.token_budget, c.keep_recent)
        p = _Planner(mem)
        outcome = _plan(p)
        c = p.config
        if outcome is None:
            return CompactionReport(dry_run, p.before > p.target, False, p.before, p.before,
                                    p.target, c.token_budget, c.keep_recent,
                                    shortfall=_shortfall(p, p.before))
        rows: list[ShardCompaction] = []
        writes: list[tuple[_Shard, str, str]] = []
        for s in p.shards:
            if s.name not in outcome.texts:
                continue
            done = outcome.texts[s.name]
            shard_text, summary, tokens_after = done.text, done.summary, done.tokens
            archive_text = p.archive(s, outcome.folded[s.name])
            if shard_text == s.text and archive_text == s.archive_disk:
                continue
            moved = s.queue[: outcome.folded[s.name]]
            ids = {e.id for e in moved}
            folded = tuple(e.id for e in s.parsed.entries if e.id in ids)
            rows.append(ShardCompaction(
                shard=s.name, folded=folded,
                superseded=sum(1 for i in folded if i in p.hidden),
                replaced=tuple(e.id for e in s.compacted),
                compacted_id=summary.id if summary else None,
                summarised=len(s.archive_items) + len(folded),
                detail=LEVELS[done.level],
                tokens_before=s.tokens, tokens_after=tokens_after))
            writes.append((s, shard_text, archive_text))
        after = p.before + sum(r.tokens_after - r.tokens_before for r in rows)
        if writes and not dry_run:
            _write(mem, [(s.name, s.text, s.archive_disk or "", shard_text, archive_text)
                         for s, shard_text, archive_text in writes])
        return CompactionReport(dry_run, True, bool(writes), p.before, after, p.target,
                                c.token_budget, c.keep_recent, tuple(rows),
                                _shortfall(p, after))


def _shortfall(p: _Planner, after: int) -> Shortfall | None:
    """What stays when ``after`` misses the target, by kind (None when it does not)."""
    if after <= p.target:
        return None
    kept: list[tuple[int, str, str]] = []
    preambles = 0
    for s in p.shards:
        queued = {id(e) for e in s.queue}  # the same objects; ids may repeat in a hand edit
        preambles += p.raw_cost(s.parsed.preamble)
        kept.extend((p.raw_cost(e.raw), e.id, s.name) for e in s.parsed.entries
                    if id(e) not in queued and not is_compacted(e))
    kept_tokens = sum(t for t, _, _ in kept)
    largest = sorted(kept, key=lambda k: (-k[0], k[2], k[1]))[:3]
    pct = p.config.compact_at_percent
    return Shortfall(kept_tokens=kept_tokens, preamble_tokens=preambles,
                     other_tokens=max(after - kept_tokens - preambles, 0),
                     needed_budget=-(-after * 100 // pct), keep_recent=p.config.keep_recent,
                     largest=tuple((i, sh, t) for t, i, sh in largest))


# -- writing: all or nothing -------------------------------------------------------------------

_JOURNAL_VERSION = "lean_memory.compaction-journal/1"


def _write(mem: MemoryLike, plan: Sequence[tuple[str, str, str, str, str]]) -> None:
    """Write a compaction's files: (shard, shard text before, archive text before, shard
    text after, archive text after) per touched shard.

    INDEX.md is rendered first (it may refuse, and then nothing is written). The intent
    goes to a journal before the first file, so a crash or a full disk between two files
    is finished by the next write under the lock (:func:`recover`).
    """
    live = dict(mem._summaries({}))
    archived = dict(mem._summaries({}, archive=True))
    fresh: dict[str, fmt.Shard] = {}
    files: list[dict[str, Any]] = []
    for name, shard_before, archive_before, shard_after, archive_after in plan:
        fresh[name] = fmt.parse(shard_after, name)
        live[name] = Summary.of(fresh[name])
        archived[name] = Summary.of(fmt.parse(archive_after, name))
        if archive_after != archive_before:
            files.append({"shard": name, "archive": True, "before": _hash(archive_before),
                          "after": archive_after})
        if shard_after != shard_before:
            files.append({"shard": name, "archive": False, "before": _hash(shard_before),
                          "after": shard_after})
    mem.render_index(mem._status_of(live, archived))  # raises before anything is written
    journal = mem.cache_dir / JOURNAL
    mem.cache_dir.mkdir(parents=True, exist_ok=True)
    # Sealed with this user's key: a journal committed to a clone is never replayed. With
    # no key there is no journal to replay: the planner's own check keeps a crash safe.
    record = sealed(JOURNAL, json.dumps({"v": _JOURNAL_VERSION, "files": files}).encode())
    if record is not None:
        atomic_write(journal, record)
    _apply(mem, files)
    mem.write_index(fresh)
    journal.unlink(missing_ok=True)  # last: a crash before it has the next write refresh INDEX.md


def _apply(mem: MemoryLike, files: Sequence[dict[str, Any]]) -> None:
    for f in files:
        path = mem.shard_path(f["shard"], archive=f["archive"])
        if f["archive"]:
            mem.archive_dir.mkdir(parents=True, exist_ok=True)
        if mem.read_text(path) != f["after"]:
            atomic_write(path, f["after"])


def _hash(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def recover(mem: MemoryLike) -> bool:
    """Finish the compaction a crash interrupted (call under the lock); True if it did.

    The journal is replayed only when every file it names is still as the compaction
    found it or as it left it; a file changed since (a checkout, a hand edit) voids it,
    and the planner's own check (an archived copy of a live entry is not archived yet)
    keeps the next compaction from archiving anything twice. A journal that cannot be
    read as one (a link, a device, too large, not the journal's JSON) is set aside,
    bytes kept, and never blocks a write: the shards alone hold every entry.
    """
    journal = mem.cache_dir / JOURNAL
    try:
        body = unsealed(JOURNAL, read_bounded(journal, MAX_CACHE_BYTES, mem.agents_dir))
        if body is None:
            raise ValueError
        data = json.loads(body)
        files = data["files"] if data.get("v") == _JOURNAL_VERSION else None
        if not isinstance(files, list):
            raise ValueError
        paths = []
        for f in files:
            paths.append(mem.shard_path(f["shard"], archive=bool(f["archive"])))
            if not isinstance(f["after"], str) or not isinstance(f["before"], str):
                raise ValueError
    except FileNotFoundError:
        return False
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError,
            LeanMemoryError):
        _set_aside(mem, journal)
        return False
    try:
        for f, path in zip(files, paths, strict=True):
            now = mem.read_text(path)
            if now != f["after"] and _hash(now) != f["before"]:
                raise ValueError
    except ValueError:  # voided by a change since (ADR 0015)
        with contextlib.suppress(OSError):
            journal.unlink()
        return False
    except LeanMemoryError:  # a shard it names cannot be read now: keep it for a look
        _set_aside(mem, journal)
        return False
    _apply(mem, files)
    journal.unlink()
    mem.write_index({})
    return True


def _set_aside(mem: MemoryLike, journal: Path) -> None:
    """Move a damaged journal (or the link or special file in its place) out of the way
    under a name no write uses, so that writes go on and its bytes stay for a look."""
    for n in range(1, 100):
        aside = journal.with_name(f"{JOURNAL}.damaged{'' if n == 1 else f'-{n}'}")
        if os.path.lexists(aside):
            continue
        with contextlib.suppress(OSError):
            os.rename(journal, aside)  # renames a link itself, never what it points to
            return
        break
    where = journal.relative_to(mem.root) if journal.is_relative_to(mem.root) else journal
    raise LeanMemoryError(f"the compaction journal {where} is damaged and could not be set "
                          "aside: move or delete it (the shards hold every entry), then retry")

