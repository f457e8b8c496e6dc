"""Which memory texts hold a credential, so that no read path carries one into a context.

A credential can reach a shard without the write-time scan: typed by hand, or merged in from
another branch. Every read path (search, ``get SHARD``, the digest and the agent hooks) asks
this module and withholds such an entry, saying so (ADR 0011).

Verdicts honour the configured allowlist (rules, fingerprints, inline markers), never
``allow_paths``: that one is for ``scan`` alone. Each text is scanned once: its verdict is
remembered by content hash in ``.cache/verdicts.marshal`` (volatile; a corrupt, stale or
foreign cache is ignored: every cache file is tagged with this user's key, see
``fsutil.write_cache``). Whole files are remembered too, in the small
``.cache/withheld.marshal`` (the file's hash, the hashes of what it withholds, and its
signature), so a warm ``get SHARD`` or prompt hook neither scans nor parses, nor hashes a
file that did not change. The caches hold hashes, signatures and booleans only, never text.
"""

from __future__ import annotations

import marshal
import os

from . import format as fmt
from ._hash import blake2b
from .fsutil import dump_record, file_signature, load_record

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from ._protocols import MemoryLike
    from .fsutil import StrPath

_CACHE_NAME = "withheld.marshal"
_TEXTS_NAME = "verdicts.marshal"
_RECENT_NAME = "verdicts.recent.marshal"
RECENT_MAX = 1024  # verdicts of the entries the last puts stored (a search's tail needs them)
_VERSION = "lean_memory.withhold/1"
_SCANNER_FILES = ("secrets.py", "_secret_rules.py")
MAX_TEXTS = 200_000  # remembered entry verdicts; past this, only those used in this process
MAX_FILES = 64  # remembered whole files (each shard rewrite makes a new one)


def _relative(path: StrPath, folder: str) -> str:
    """``Path(path).relative_to(folder).as_posix()``, in strings (both normalized)."""
    text = os.fspath(path)
    if not text.startswith(folder + os.sep):
        raise ValueError(f"{text!r} is not in the subpath of {folder!r}")
    return text[len(folder) + 1:].replace(os.sep, "/")


def content_key(text: str) -> bytes:
    """The hash a verdict is remembered by."""
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def scanner_signature() -> list[Any]:
    """What the verdicts depend on besides the allowlist: the scanner's source files."""
    out: list[Any] = []
    for name in _SCANNER_FILES:
        try:
            st = os.stat(os.path.join(os.path.dirname(__file__), name))
        except OSError:
            continue
        out.append((name, st.st_size, st.st_mtime_ns))
    return out


def header(mem: MemoryLike) -> list[Any]:
    """The validity key of every verdict: scanner version and the allowlist that counts."""
    c = mem.config
    return [_VERSION, scanner_signature(), sorted(c.allow_rules), sorted(c.allow_fingerprints)]


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
    """Verdicts of one memory, loaded on first use; ``save`` writes what was learned.

    Two cache files: ``withheld.marshal`` (small, read on every hot path) maps each file
    seen to the keys of what it withholds, and ``verdicts.marshal`` maps each entry's key
    to its verdict; the second is read only when a file is new.
    """

    def __init__(self, mem: MemoryLike) -> None:
        self.mem = mem
        self.files_path = os.path.join(mem._cache, _CACHE_NAME)
        self.texts_path = os.path.join(mem._cache, _TEXTS_NAME)
        self._header: list[Any] = []
        self._files: dict[bytes, tuple[bytes, ...]] | None = None
        self._sigs: dict[str, Any] = {}
        self._texts: dict[bytes, bool] | None = None
        self._recent: dict[bytes, bool] | None = None  # what puts recorded (record_put)
        self._used: set[bytes] = set()
        self.file_keys: dict[StrPath, bytes] = {}  # the content key of each file read
        self._dirty_files = self._dirty_texts = False

    def _load(self) -> dict[bytes, tuple[bytes, ...]]:
        if self._files is not None:
            return self._files
        self._header = header(self.mem)
        self._files = {}
        cached = load_record(self.files_path, self._header, 2, self.mem._agents)
        if (cached is not None and isinstance(cached[0], dict) and isinstance(cached[1], dict)
                and all(isinstance(v, tuple) for v in cached[0].values())):
            self._files, self._sigs = cached
        return self._files

    def _entries(self) -> dict[bytes, bool]:
        if self._texts is None:
            self._load()
            self._texts = {}
            cached = load_record(self.texts_path, self._header, 1, self.mem._agents)
            # the cache's own tag (fsutil) vouches for the payload: no checksum of its own
            if cached is not None and isinstance(cached[0], bytes):
                texts = _loads(cached[0])
                if isinstance(texts, dict):
                    self._texts = texts
        return self._texts

    def holding(self, texts: Sequence[str]) -> list[bool]:
        """For each text, whether it holds a credential (by the configured allowlist)."""
        if not texts:
            return []
        keys = [content_key(t) for t in texts]
        if self._texts is None:
            if self._recent is None:
                self._recent = _read_recent(self.mem, header(self.mem))
            if all(k in self._recent for k in keys):
                # entries puts just stored (a search's tail): neither the verdicts cache
                # nor the scanner is loaded
                return [self._recent[k] is True for k in keys]
        if self._texts is None and len(texts) <= _FEW_TEXTS and _size(self.texts_path) > _LARGE:
            # A text or two (the overview `status` and `context` show): scanned, rather than
            # every entry's verdict read to look them up (2 MB at 100k entries: ~30 ms).
            return [flag is True for flag in _batch_findings(list(texts), self.mem.allowlist)]
        known = self._entries()
        self._used.update(keys)
        recent = self._recent or {}
        todo: dict[bytes, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in known and k not in todo:
                if k in recent:
                    known[k] = recent[k]
                    self._dirty_texts = True
                else:
                    todo[k] = t
        if todo:
            allow = self.mem.allowlist
            for k, flag in zip(todo, _batch_findings(list(todo.values()), allow), strict=True):
                known[k] = flag
            self._dirty_texts = True
        return [known[k] is True for k in keys]

    def known(self, texts: Sequence[str]) -> list[bool | None]:
        """For each text, its remembered verdict (the cache, the recent puts'), None when
        unknown: nothing is scanned (a cold search index, ADR 0051)."""
        if self._recent is None:
            self._recent = _read_recent(self.mem, header(self.mem))
        recent = self._recent
        keys: list[bytes] = []
        if self._texts is None and recent:
            keys = [content_key(t) for t in texts]
            if all(k in recent for k in keys):
                return [recent[k] is True for k in keys]
        known = self._entries()
        if not known and not recent:
            return [None] * len(texts)  # nothing remembered (a fresh clone): nothing hashed
        keys = keys or [content_key(t) for t in texts]
        self._used.update(keys)
        out: list[bool | None] = []
        for k in keys:
            flag = known.get(k)
            if flag is None and k in recent:
                flag = known[k] = recent[k]
                self._dirty_texts = True
            out.append(None if flag is None else flag is True)
        return out

    def read(self, path: StrPath, name: str | None) -> tuple[str, set[bytes]]:
        """A memory file's text and the keys of what in it holds a credential: its
        preamble and entries (shard ``name``), or the whole text (``name`` None).

        Remembered by the hash of the file; a file whose signature (size, mtime, inode)
        did not change while it was read is not even hashed again.
        """
        files = self._load()
        before = file_signature(path)
        text = self.mem.read_text(path)
        steady = before == file_signature(path) and before[0] >= 0
        rel = _relative(path, self.mem._dir)
        seen = self._sigs.get(rel)
        key = seen[1] if (steady and isinstance(seen, tuple) and len(seen) == 2
                          and seen[0] == before) else content_key(text)
        found = files.get(key)
        if found is None:
            if name is None:
                raws = [text]
            else:
                shard = fmt.parse(text, name)
                raws = [shard.preamble, *(e.raw for e in shard.entries)]
            found = tuple(content_key(r) for r, bad in zip(raws, self.holding(raws), strict=True)
                          if bad)
            files.pop(key, None)
            files[key] = found
            while len(files) > MAX_FILES:
                del files[next(iter(files))]
            self._dirty_files = True
        if steady and seen != (before, key):
            self._sigs[rel] = (before, key)
            self._dirty_files = True
        self.file_keys[path] = key
        return text, set(found)

    def save(self) -> None:
        """Write what was learned; a failure only costs speed."""
        if self._dirty_texts and self._texts is not None:
            texts = self._texts
            if len(texts) > MAX_TEXTS:
                texts = {k: v for k, v in texts.items() if k in self._used}
            payload = marshal.dumps(texts)
            dump_record(self.texts_path, self._header, (payload,))
        if self._dirty_files and self._files is not None:
            dump_record(self.files_path, self._header, (self._files, self._sigs))
        self._dirty_files = self._dirty_texts = False


def _read_recent(mem: MemoryLike, head: list[Any]) -> dict[bytes, bool]:
    got = load_record(os.path.join(mem._cache, _RECENT_NAME), head, 1, mem._agents)
    if got is not None and isinstance(got[0], dict) and all(
            isinstance(k, bytes) and isinstance(v, bool) for k, v in got[0].items()):
        return got[0]
    return {}


def record_put(mem: MemoryLike, raws: Sequence[str]) -> None:
    """Remember the verdicts of entries a put just stored (``raws``: their text as the shard
    file holds it) in the small ``verdicts.recent.marshal``, under the verdicts' header: the
    search that indexes them next (the tail of an appended shard) then reads neither the
    verdicts cache nor the scanner's tables. Scanned here as :meth:`Verdicts.holding` scans
    (the put has loaded the scanner); a failure only costs speed."""
    head = header(mem)
    recent = _read_recent(mem, head)
    for key, flag in zip(map(content_key, raws), _batch_findings(raws, mem.allowlist),
                         strict=True):
        recent.pop(key, None)  # the newest last: the oldest go first
        recent[key] = flag
    while len(recent) > RECENT_MAX:
        del recent[next(iter(recent))]
    dump_record(os.path.join(mem._cache, _RECENT_NAME), head, (recent,), mem._agents)


_FEW_TEXTS = 2
_LARGE = 512 << 10  # a verdicts cache this large costs more to read than two texts to scan


def _size(path: StrPath) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _loads(data: bytes) -> Any:
    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError):
        return None


def live_entries(mem: MemoryLike, entries: Sequence[fmt.Entry],
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
