"""Which memory texts hold a credential, so that no read path carries one into a context.

A credential can reach a shard without the write-time scan: typed by hand, or merged in from
another branch. Every read path (search, ``get SHARD``, the digest and the agent hooks) asks
this module and withholds such an entry, saying so (ADR 0011).

Verdicts honour the configured allowlist (rules, fingerprints, inline markers), never
``allow_paths``: that one is for ``scan`` alone. Each text is scanned once: its verdict is
remembered by content hash in ``.cache/withheld.marshal`` (volatile; a corrupt or stale cache
is ignored). Whole files are remembered too (the file's hash and the hashes of the entries it
withholds), so a warm ``get SHARD`` or prompt hook hashes a file and does not scan or parse.
The cache holds hashes and booleans only, never text.
"""

from __future__ import annotations

import hashlib
import marshal
import os
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import format as fmt
from .fsutil import write_cache

if TYPE_CHECKING:
    from .store import Memory

_CACHE_NAME = "withheld.marshal"
_VERSION = "lean_memory.withhold/1"
MAX_TEXTS = 200_000  # remembered entry verdicts; past this, only those used in this process
MAX_FILES = 64  # remembered whole files (each shard rewrite makes a new one)
TITLE_WITHHELD = "(title withheld: it holds a credential)"
TEXT_WITHHELD = "text withheld: it holds a credential; run `lean-memory scan .agents/memory`"


def content_key(text: str) -> bytes:
    """The hash a verdict is remembered by."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def scanner_signature() -> list[Any]:
    """What the verdicts depend on besides the allowlist: the scanner's source files."""
    out: list[Any] = []
    with os.scandir(Path(__file__).parent) as it:
        for d in it:
            if "secret" in d.name and d.name.endswith(".py"):
                st = d.stat()
                out.append((d.name, st.st_size, st.st_mtime_ns))
    return sorted(out)


def header(mem: Memory) -> list[Any]:
    """The validity key of every verdict: scanner version and the allowlist that counts."""
    c = mem.config
    return [_VERSION, scanner_signature(), sorted(c.allow_rules), sorted(c.allow_fingerprints)]


def notice(entry_id: str) -> str:
    """The one line that stands for a withheld entry."""
    return (f"> [withheld] entry `{entry_id}` holds a credential and is not shown; "
            "run `lean-memory scan .agents/memory`\n")


def count_note(n: int) -> str:
    """What the output says about ``n`` withheld entries ('' for none)."""
    if n <= 0:
        return ""
    what = "1 entry withheld: it holds" if n == 1 else f"{n} entries withheld: they hold"
    return f"{what} a credential; run `lean-memory scan .agents/memory`"


def _batch_findings(texts: Sequence[str], allow: Any) -> list[bool]:
    """For each text, whether it holds a credential; scanned as one text (a call per
    entry costs about twice as much), each followed by a blank line so that no
    ``allow-next-line`` marker reaches the next one."""
    from bisect import bisect_right

    from .secrets import scan_text

    starts: list[int] = []
    pieces: list[str] = []
    line = 1
    for t in texts:
        starts.append(line)
        piece = t if t.endswith("\n") else t + "\n"
        pieces.append(piece + "\n")
        line += piece.count("\n") + 1
    flagged = [False] * len(texts)
    for f in scan_text("".join(pieces), allow=allow):
        flagged[bisect_right(starts, f.line) - 1] = True
    # A match that ran past its text may have claimed (hidden) one in the next: those
    # neighbours are scanned alone.
    for i in [i + 1 for i, hit in enumerate(flagged) if hit and i + 1 < len(texts)]:
        if not flagged[i] and scan_text(texts[i], allow=allow):
            flagged[i] = True
    return flagged


class Verdicts:
    """Verdicts of one memory, loaded on first use; ``save`` writes what was learned."""

    def __init__(self, mem: Memory) -> None:
        self.mem = mem
        self.path = mem.cache_dir / _CACHE_NAME
        self._header: list[Any] | None = None
        self._files: dict[bytes, tuple[bytes, ...]] | None = None
        self._payload: bytes = b""
        self._texts: dict[bytes, bool] | None = None
        self._used: set[bytes] = set()
        self._dirty = False

    def _load(self) -> dict[bytes, tuple[bytes, ...]]:
        if self._files is not None:
            return self._files
        self._header = header(self.mem)
        self._files = {}
        try:
            cached = marshal.loads(self.path.read_bytes())
        except (OSError, EOFError, ValueError, TypeError):
            return self._files
        if (isinstance(cached, list) and len(cached) == 4 and cached[0] == self._header
                and isinstance(cached[1], dict) and isinstance(cached[3], bytes)
                and cached[2] == _key_bytes(cached[3])
                and all(isinstance(v, tuple) for v in cached[1].values())):
            self._files = cached[1]
            self._payload = cached[3]
        return self._files

    def _entries(self) -> dict[bytes, bool]:
        if self._texts is None:
            self._load()
            self._texts = {}
            if self._payload:
                try:
                    texts = marshal.loads(self._payload)
                except (EOFError, ValueError, TypeError):
                    texts = None
                if isinstance(texts, dict):
                    self._texts = texts
        return self._texts

    def holding(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether it holds a credential (by the configured allowlist)."""
        if not texts:
            return []
        known = self._entries()
        keys = [content_key(t) for t in texts]
        self._used.update(keys)
        todo: dict[bytes, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in known and k not in todo:
                todo[k] = t
        if todo:
            allow = self.mem.allowlist
            for k, flag in zip(todo, _batch_findings(list(todo.values()), allow), strict=True):
                known[k] = flag
            self._dirty = True
        return [known[k] is True for k in keys]

    def withheld_in(self, text: str, shard: fmt.Shard | None) -> set[bytes]:
        """Keys of the entries and preamble of ``shard``, parsed from the file ``text``
        (the whole ``text`` when None), that hold a credential; remembered by the hash of
        the file."""
        files = self._load()
        key = content_key(text)
        found = files.get(key)
        if found is None:
            raws = [text] if shard is None else [shard.preamble, *(e.raw for e in shard.entries)]
            found = tuple(content_key(r) for r, bad in zip(raws, self.holding(raws), strict=True)
                          if bad)
            files.pop(key, None)
            files[key] = found
            while len(files) > MAX_FILES:
                del files[next(iter(files))]
            self._dirty = True
        return set(found)

    def clean_file(self, text: str) -> bool | None:
        """True when ``text`` is a file known to withhold nothing; None when not known."""
        found = self._load().get(content_key(text))
        return None if found is None else not found

    def save(self) -> None:
        """Write the cache if anything was learned; a failure only costs speed."""
        if not self._dirty or self._files is None:
            return
        texts = self._entries()
        if len(texts) > MAX_TEXTS:
            texts = {k: v for k, v in texts.items() if k in self._used}
        payload = marshal.dumps(texts)
        write_cache(self.path, marshal.dumps([self._header, self._files, _key_bytes(payload),
                                              payload]))
        self._dirty = False


def _key_bytes(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def shown_file(mem: Memory, text: str, name: str,
               verdicts: Verdicts | None = None) -> tuple[str, list[str]]:
    """A shard file's ``text`` with every entry that holds a credential replaced by a
    one-line notice naming its id (a preamble that holds one, by a notice too); and the ids
    withheld."""
    v = verdicts or Verdicts(mem)
    try:
        if v.clean_file(text):
            return text, []
        shard = fmt.parse(text, name)
        bad = v.withheld_in(text, shard)
    finally:
        if verdicts is None:
            v.save()
    if not bad:
        return text, []
    preamble = shard.preamble
    if content_key(preamble) in bad:
        preamble = "> [withheld] this shard's preamble holds a credential and is not shown\n\n"
    parts = [preamble]
    ids: list[str] = []
    for e in shard.entries:
        if content_key(e.raw) in bad:
            ids.append(e.id)
            tail = e.raw[len(e.raw.rstrip("\r\n")):]
            parts.append(notice(e.id) + ("\n" if tail.count("\n") > 1 else ""))
        else:
            parts.append(e.raw)
    return "".join(parts), ids


def shown_index(mem: Memory, text: str, verdicts: Verdicts | None = None) -> str:
    """INDEX.md as read, or rendered afresh when the file holds a credential (typed in by
    hand: it is derived data)."""
    v = verdicts or Verdicts(mem)
    try:
        clean = v.clean_file(text)
        if clean is None:
            clean = not v.withheld_in(text, None)
    finally:
        if verdicts is None:
            v.save()
    if clean:
        return text
    from .indexfile import render_index

    return render_index(mem.status(), mem.config.max_index_tokens)


def read_shown(mem: Memory, shard: str | None = None, *,
               archive: bool = False) -> tuple[str, list[str]]:
    """What ``get`` prints: INDEX.md (``shard`` None) or a shard file, withholding as above."""
    mem._require_init()
    v = Verdicts(mem)
    try:
        if shard is None:
            text = mem.read_text(mem.index_path) or mem.index()
            return shown_index(mem, text, v), []
        return shown_file(mem, mem.read_text(mem.shard_path(shard, archive=archive)), shard, v)
    finally:
        v.save()


def live_entries(mem: Memory, entries: Sequence[fmt.Entry],
                 verdicts: Verdicts | None = None) -> tuple[list[fmt.Entry], int]:
    """``entries`` without those that hold a credential, and how many those were."""
    v = verdicts or Verdicts(mem)
    try:
        flags = v.holding([e.raw for e in entries])
    finally:
        if verdicts is None:
            v.save()
    kept = [e for e, bad in zip(entries, flags, strict=True) if not bad]
    return kept, len(entries) - len(kept)


@lru_cache(maxsize=65536)
def _holds(text: str) -> bool:
    from .secrets import scan_text

    return bool(scan_text(text))


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
