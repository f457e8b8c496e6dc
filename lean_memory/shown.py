"""What a read shows of a memory's files and entries: a shard or INDEX.md as ``get`` and
the memory tool print it, an entry as ``list``, ``show`` and the server list it, a compacted
entry's line, each with what holds a credential withheld (ADR 0011) and, in a whole shard,
superseded entries marked.

The verdicts themselves are :mod:`lean_memory.withhold`'s (the read paths a prompt and a
warm query run need those alone); this is what the other commands add on top of them, kept
off the hot paths (ADR 0057).
"""

from __future__ import annotations

import os

from . import format as fmt
from ._record import replace
from .errors import quoted
from .fsutil import dump_record, load_record
from .withhold import MAX_FILES, Verdicts, content_key

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from ._protocols import MemoryLike, Writable
    from .fsutil import StrPath

TITLE_WITHHELD = "(title withheld: it holds a credential)"
PREAMBLE_WITHHELD = "> [withheld] this shard's preamble holds a credential and is not shown"
TEXT_WITHHELD = "text withheld: it holds a credential; run `lean-memory scan .agents/memory`"


def notice(entry_id: str) -> str:
    """The one line that stands for a withheld entry (its id redacted: it may be the
    credential)."""
    return (f"> [withheld] entry `{quoted(entry_id)}` holds a credential and is not shown; "
            "run `lean-memory scan .agents/memory`\n")


def shown_file(mem: MemoryLike, path: StrPath, name: str,
               verdicts: Verdicts | None = None) -> tuple[str, list[str]]:
    """The shard file at ``path`` with every entry that holds a credential replaced by a
    one-line notice naming its id (a preamble that holds one, by a notice too); and the ids
    withheld."""
    v = verdicts or Verdicts(mem)
    try:
        text, bad = v.read(path, name)
    finally:
        if verdicts is None:
            v.save()
    if not bad:
        return mark_superseded(mem, text, name), []
    spans = _withheld_spans(mem, v.file_keys.get(path), text, name, bad)
    parts: list[str] = []
    ids: list[str] = []
    at = 0
    for start, end, entry_id in spans:
        parts.append(text[at:start])
        if start == 0 and not text.startswith(fmt.HEADING):  # the preamble
            parts.append(PREAMBLE_WITHHELD + "\n\n")
        else:
            ids.append(entry_id)
            raw = text[start:end]
            tail = raw[len(raw.rstrip("\r\n")):]
            parts.append(notice(entry_id) + ("\n" if tail.count("\n") > 1 else ""))
        at = end
    parts.append(text[at:])
    return mark_superseded(mem, "".join(parts), name), ids


def superseders(mem: MemoryLike) -> dict[str, tuple[str, str]]:
    """Each superseded entry's id -> (id, date) of the newest entry that supersedes it."""
    hidden = mem.superseded_ids()
    out: dict[str, tuple[str, str]] = {}
    if hidden:
        for entry_id, date, target in sorted(mem.correction_links(),
                                             key=lambda link: (link[1], link[0])):
            if target in hidden:
                out[target] = (entry_id, date)  # sorted by date: the newest is kept
    return out


def mark_superseded(mem: MemoryLike, text: str, name: str) -> str:
    """``text`` (a shard file as shown) with the heading of each superseded entry marked
    "superseded by <id> on <date>": a whole-shard read tells the agent what no longer
    holds. Only what is shown changes, never the file; the line count stays."""
    by = superseders(mem)
    if not by:
        return text
    shard = fmt.parse(text, name)
    if not any(e.id in by for e in shard.entries):
        return text
    parts = [shard.preamble]
    for e in shard.entries:
        raw = e.raw
        if e.id in by:
            new_id, date = by[e.id]
            head, sep, rest = raw.partition("\n")
            end = "\r" if head.endswith("\r") else ""
            when = f" on {date}" if date else ""
            raw = f"{head.removesuffix(end)} _(superseded by {new_id}{when})_{end}{sep}{rest}"
        parts.append(raw)
    return "".join(parts)


def withheld_spans(mem: MemoryLike, path: StrPath,
                   name: str) -> tuple[str, list[tuple[int, int, str]]]:
    """The shard file at ``path`` as read, and (start, end, id) of each piece of it that
    :func:`shown_file` withholds, in file order (the preamble's id is "")."""
    v = Verdicts(mem)
    try:
        text, bad = v.read(path, name)
    finally:
        v.save()
    return text, (_withheld_spans(mem, v.file_keys.get(path), text, name, bad) if bad else [])


_SPANS_NAME = "withheld-spans.marshal"
_SPANS_VERSION = "lean_memory.withheld-spans/1"  # {file content key: [withheld keys, spans]}


def _withheld_spans(mem: MemoryLike, file_key: bytes | None, text: str, name: str,
                    bad: set[bytes]) -> list[tuple[int, int, str]]:
    """(start, end, id) of what ``text`` withholds, in file order (the preamble's id is
    ""). Remembered by the file's content key and the withheld keys (as ``Verdicts`` found
    them: this never decides what is withheld), each span checked against ``text``; else
    found from the entries' bounds, parsing only the withheld entries (the whole shard
    when one has no id of its own: a derived id depends on the other entries)."""
    path = os.path.join(mem._cache, _SPANS_NAME)
    want = sorted(bad)
    record = load_record(path, _SPANS_VERSION, 1, mem._agents) if file_key else None
    cached = record[0] if record is not None and isinstance(record[0], dict) else {}
    hit = cached.get(file_key)
    if (isinstance(hit, list) and len(hit) == 2 and hit[0] == want
            and _spans_fit(hit[1], text, bad)):
        return list(hit[1])
    heads = fmt.entry_offsets(text)
    starts = heads if heads and heads[0] == 0 else [0, *heads]  # the preamble, if any
    spans = [(start, end) for start, end in zip(starts, [*starts[1:], len(text)], strict=True)
             if content_key(text[start:end]) in bad]
    entries = {start: fmt.parse(text[start:end], name).entries[0] for start, end in spans
               if text.startswith(fmt.HEADING, start)}
    if not all(_own_id(e) for e in entries.values()):
        whole = dict(zip(heads, fmt.parse(text, name).entries, strict=True))
        entries = {start: whole[start] for start in entries}
    out = [(start, end, entries[start].id if start in entries else "")
           for start, end in spans]
    if file_key is not None:
        cached.pop(file_key, None)
        cached[file_key] = [want, out]
        while len(cached) > MAX_FILES:
            del cached[next(iter(cached))]
        dump_record(path, _SPANS_VERSION, (cached,), mem._agents)
    return out


def _spans_fit(spans: Any, text: str, bad: set[bytes]) -> bool:
    """Whether remembered spans are withheld pieces of ``text`` (each in ``bad``)."""
    if not isinstance(spans, list):
        return False
    at = 0
    for span in spans:
        if not (isinstance(span, tuple) and len(span) == 3 and isinstance(span[0], int)
                and isinstance(span[1], int) and isinstance(span[2], str)
                and at <= span[0] < span[1] <= len(text)
                and content_key(text[span[0]:span[1]]) in bad):
            return False
        at = span[1]
    return True


def _own_id(e: fmt.Entry) -> bool:
    """Whether the entry's id is written in its metadata (not derived from its text)."""
    if not e.has_meta:
        return False
    start = fmt.line_end(e.raw)
    pairs = fmt.parse_meta(e.raw[start:fmt.line_end(e.raw, start)]) or []
    return bool(next((v for k, v in pairs if k == "id"), ""))


def shown_index(mem: MemoryLike, verdicts: Verdicts | None = None) -> str:
    """INDEX.md as read ('' when missing), or rendered afresh when the file holds a
    credential (typed in by hand: it is derived data)."""
    v = verdicts or Verdicts(mem)
    try:
        text, bad = v.read(mem._index, None)
    finally:
        if verdicts is None:
            v.save()
    if not bad:
        return text

    return mem.render_index(mem.status())  # the store's own (the global one says so)


def read_shown(mem: Writable, shard: str | None = None, *,
               archive: bool = False) -> tuple[str, list[str]]:
    """What ``get`` prints: INDEX.md (``shard`` None) or a shard file, withholding as above."""
    mem._require_init()
    v = Verdicts(mem)
    try:
        if shard is None:
            return shown_index(mem, v) or mem.index(), []
        return shown_file(mem, mem._shard_file(shard, archive=archive), shard, v)
    finally:
        v.save()


def shown_path(mem: MemoryLike, path: Path) -> str:
    """Any file of the memory folder as read, withholding as above: INDEX.md, a shard or
    archive file (by its name), else the whole file when it holds a credential."""
    v = Verdicts(mem)
    try:
        if path == mem.index_path:
            return shown_index(mem, v)
        if path.suffix == ".md" and path.stem in mem.shards and path.parent in (
                mem.dir, mem.archive_dir):
            return shown_file(mem, path, path.stem, v)[0]
        text, bad = v.read(path, None)
    finally:
        v.save()
    return "> [withheld] this file holds a credential and is not shown\n" if bad else text


def masked(mem: MemoryLike, entries: Sequence[fmt.Entry]) -> tuple[list[fmt.Entry], int]:
    """``entries`` with each one that holds a credential replaced by a stand-in that keeps
    its id (redacted), shard and date (its title, text, tags and metadata withheld; its raw
    text the one-line notice); and how many were."""
    v = Verdicts(mem)
    try:
        flags = v.holding([e.raw for e in entries])
    finally:
        v.save()

    out = [replace(e, id=quoted(e.id), title=TITLE_WITHHELD, text=TEXT_WITHHELD, tags=(),
                   supersedes=None, meta=(), raw=notice(e.id)) if bad else e
           for e, bad in zip(entries, flags, strict=True)]
    return out, sum(flags)


_HELD: dict[str, bool] = {}  # a memo, as lru_cache was (functools is off the hot path)
_HELD_MAX = 65536


def _holds(text: str) -> bool:
    held = _HELD.get(text)
    if held is None:
        from .secrets import scan_text

        held = bool(scan_text(text))
        if len(_HELD) >= _HELD_MAX:
            _HELD.clear()
        _HELD[text] = held
    return held


def checked_item(entry: fmt.Entry, render: Any) -> str:
    """A compacted entry's list line for ``entry``, made by ``render(entry)``, that holds
    no credential: when the entry or the line holds one, the line names the entry by its
    title (or a placeholder when the title holds one too) and id only, with a note.

    Compaction has no allowlist at hand, so this is the stricter check: at worst an
    allowlisted entry is listed without its gist.
    """
    line: str = render(entry)
    if not _holds(entry.raw) and not _holds(line):
        return line
    title = TITLE_WITHHELD if _holds(entry.title) else entry.title
    bare: str = render(replace(entry, title=title, text=""))
    return f"{bare.rstrip()} ({TEXT_WITHHELD})"
