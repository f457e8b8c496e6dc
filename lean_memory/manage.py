"""One entry at a time, as a person manages memory: list, show, edit, forget.

Nothing here destroys: ``forget`` moves an entry to its shard's archive with the date and
the reason, and an edit is checked like a put (one entry, same id, no credential, within
the size limit) and written only if the entry did not change meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import format as fmt
from ._record import replace
from .errors import InvalidEntry, LeanMemoryError, SecretFound, quoted
from .folder import MAX_TAGS, MAX_TAGS_CHARS, TOO_MANY_TAGS, check_date, today
from .fsutil import atomic_write
from .tokens import estimate_tokens
from .writelog import note_writes

if TYPE_CHECKING:
    from ._protocols import MemoryLike
    from .format import Entry


class UnknownEntry(LeanMemoryError):
    """No live entry has that id."""


@dataclass(frozen=True)
class Listed:
    """An entry as ``list`` shows it."""

    entry: Entry
    tokens: int
    superseded: bool
    said_again: int


def list_entries(mem: MemoryLike, shard: str | None = None) -> list[Listed]:
    """Every live entry (of ``shard``, or of all shards in order), marked."""
    entries = mem.entries(shard)
    hidden = mem.superseded_ids()
    out = []
    for e in entries:
        # a value that is not a count (hand-edited, damaged) lists as none (ADR 0033)
        out.append(Listed(e, estimate_tokens(e.raw), e.id in hidden,
                          fmt.parse_count(e.get("said_again")) or 0))
    return out


def find_entry(mem: MemoryLike, entry_id: str) -> Entry:
    """The live entry with ``entry_id``."""
    if not isinstance(entry_id, str) or not entry_id.strip():
        raise UnknownEntry("an entry id is needed (see `lean-memory list`)")
    for e in mem.entries():
        if e.id == entry_id:
            return e
    archived = any(e.id == entry_id for e in mem.entries(archive=True))
    where = " (it is in the archive: `get --archive`)" if archived else ""
    raise UnknownEntry(f"no live entry has id {_shown(entry_id)}{where}")


def _shown(value: str) -> str:
    return quoted(repr(value), 40)


def _locate(mem: MemoryLike, entry_id: str) -> tuple[fmt.Shard, int]:
    for name in mem.shards:
        shard = mem.read_shard(name)
        for i, e in enumerate(shard.entries):
            if e.id == entry_id:
                return shard, i
    raise UnknownEntry(f"no live entry has id {_shown(entry_id)}")


def _write(mem: MemoryLike, shard: fmt.Shard, entries: Sequence[Entry]) -> None:
    text = shard.preamble + "".join(e.raw for e in entries)
    atomic_write(mem.shard_path(shard.name), text)
    mem.write_index({shard.name: text})


def replace_entry(mem: MemoryLike, entry_id: str, new_raw: str, *, expected_raw: str) -> Entry:
    """Replace the entry ``entry_id`` by ``new_raw`` (its edited Markdown), if the entry is
    still ``expected_raw``. Raises and writes nothing when the edit is not one valid entry."""
    if "\0" in new_raw:
        raise InvalidEntry("the edited entry contains a NUL character")
    with mem.lock():
        shard, i = _locate(mem, entry_id)
        old = shard.entries[i]
        if old.raw != expected_raw:
            raise InvalidEntry(f"entry {entry_id} changed while it was being edited; nothing "
                               "was written (edit it again)")
        piece = fmt.parse(fmt.ensure_separated(new_raw) if i + 1 < len(shard.entries)
                          else new_raw, shard.name)
        if piece.preamble.strip() or len(piece.entries) != 1:
            raise InvalidEntry("the edit must be exactly one entry: a `## Title` line, then "
                               "its text (nothing was written)")
        new = piece.entries[0]
        if new.has_meta and new.id != old.id:
            raise InvalidEntry(f"the id of an entry cannot change ({entry_id}); nothing was "
                               "written")
        if not new.has_meta:  # the metadata line was deleted: keep the entry's identity
            new = fmt.with_raw(replace(old, title=new.title, text=new.text))
        if fmt.open_fence_at_end(new.raw):
            raise InvalidEntry("the edit leaves a code fence open, which would swallow other "
                               "entries; nothing was written")
        _check(mem, new)
        entries = list(shard.entries)
        entries[i] = new
        check = fmt.parse(shard.preamble + "".join(e.raw for e in entries), shard.name)
        if [e.id for e in check.entries] != [e.id for e in shard.entries]:
            raise InvalidEntry("the edit would change other entries (an unclosed code fence?); "
                               "nothing was written")
        _write(mem, shard, entries)

    note_writes(mem.root, [check.entries[i]], enabled=mem.config.capture_asks)
    return check.entries[i]


def _check(mem: MemoryLike, entry: Entry) -> None:
    from .secrets import scan_text

    if len(entry.tags) > MAX_TAGS or sum(len(t) for t in entry.tags) > MAX_TAGS_CHARS:
        raise InvalidEntry(TOO_MANY_TAGS)
    found = scan_text(entry.raw, allow=mem.allowlist)
    if found:
        raise SecretFound(found)
    limit = mem.config.max_entry_tokens
    size = estimate_tokens(entry.text)
    if size > limit:
        raise InvalidEntry(f"entry is ~{size:,} tokens, over max_entry_tokens={limit:,}")


def archive_entries(mem: MemoryLike, shard: fmt.Shard, gone: Sequence[Entry],
                    extra: Sequence[tuple[str, str]] = ()) -> None:
    """Move ``gone`` (entries of ``shard``) to the archive, marked with ``extra`` metadata.
    The archive is written first and skips ids it holds already, so a repeat after a crash
    converges. Holds the lock (the caller takes it)."""
    from .compaction import archive_piece, archive_preamble

    if not gone:
        return
    path = mem.shard_path(shard.name, archive=True)
    archived = mem.read_text(path) or archive_preamble(shard.name)
    have = {e.id for e in fmt.parse(archived, shard.name).entries}
    pieces = [archive_piece(fmt.with_raw(replace(e, meta=(*e.meta, *extra))) if extra else e)
              for e in gone if e.id not in have]
    if pieces:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, fmt.ensure_separated(archived) + "".join(pieces))
    ids = {e.id for e in gone}
    _write(mem, shard, [e for e in shard.entries if e.id not in ids])


def forget(mem: MemoryLike, entry_id: str, *, reason: str, date: str | None = None) -> Entry:
    """Move a live entry to the archive with the date and the reason; returns it."""
    if not isinstance(reason, str) or not reason.strip() or "\n" in reason:
        raise InvalidEntry("a reason is needed: one line saying why the entry goes")
    if len(reason) > 200:
        raise InvalidEntry("keep the reason under 200 characters")
    from .secrets import scan_text

    found = scan_text(reason, allow=mem.allowlist)
    if found:
        raise SecretFound(found, where="the reason")
    day = today() if date is None else check_date(date)
    with mem.lock():
        try:
            shard, i = _locate(mem, entry_id)
        except UnknownEntry:
            find_entry(mem, entry_id)  # raises, with the archive's hint when it is there
            raise
        entry = shard.entries[i]
        archive_entries(mem, shard, [entry], [("forgotten", day),
                                              ("reason", " ".join(reason.split()))])
    return entry

