"""The on-disk search index: one file per shard file, read by offset (ADR 0016).

A part file is ``cache tag | 8-byte header length | marshal header | postings | keys |
supersedes``; the tag (fsutil.write_cache, this user's key) covers the length and the header,
which hold the shard file's signature (size, mtime, inode) the part is valid for, so a part
from anywhere else is never believed.
The header holds what every query needs of the part (entry spans in bytes and line numbers,
document lengths, the term dictionary and its posting offsets; ids and dates as one string
each, split only if a query needs them); the postings of a term are read only when a query
asks for it, the keys (what each entry's indexed text hashes to) only when the part is
rebuilt, the supersedes only when the superseded entries are worked out again. So a query
loads a few kB to a few MB however large the memory. Entries appended to a shard file
since its part was built go to a small tail part of their own (``base`` names the
signature of the file the part was built from), so a put does not rewrite the part.

Everything here is derived: a part that fails any check is ``None`` and gets rebuilt.
"""

from __future__ import annotations

import marshal
import math
import os
import sys
from array import array

from .bm25 import BM25Index, LazySegment
from .fsutil import CACHE_PREFIX, MAX_CACHE_BYTES, open_bounded, tag_matches, write_cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any, BinaryIO

PART_FORMAT = "lean_memory.index/1"
_NO_KEY = bytes(16)
_LITTLE = sys.byteorder == "little"


class Corrupt(Exception):
    """A part file turned out damaged while postings were read from it."""


def _packed(typecode: str, values: Sequence[Any]) -> bytes:
    out = values if isinstance(values, array) else array(typecode, values)
    if not _LITTLE:
        out = array(typecode, out)
        out.byteswap()
    return out.tobytes()


def _unpacked(typecode: str, data: bytes) -> array[Any]:
    out = array(typecode)
    out.frombytes(data)
    if not _LITTLE:
        out.byteswap()
    return out


class Part:
    """What one shard file contributes to the search index.

    ``spans`` holds the byte start and end of each entry's raw text, ``lines`` its first
    line; ``withheld`` the numbers (in the part) of the entries that hold a credential.
    """

    __slots__ = ("_dates", "_ids", "_supersedes", "archived", "base", "digest", "file",
                 "index", "keys", "lines", "n", "name", "sig", "spans", "withheld")  # fmt: skip

    def __init__(self, name: str, archived: bool, sig: tuple[int, int, int],
                 ids: list[str] | str, dates: list[str] | str,
                 supersedes: list[str] | Callable[[], list[str]], spans: array[int],
                 lines: array[int], withheld: list[int], index: BM25Index,
                 keys: list[bytes] | None = None, file: BinaryIO | None = None, *,
                 digest: bytes = b"", base: tuple[int, int, int] | None = None) -> None:
        self.name = name
        self.archived = archived
        self.sig = sig
        self.n = len(lines)
        self._ids = ids  # a list, or joined by newlines until first needed
        self._dates = dates
        self._supersedes = supersedes  # a list, or what reads it from the file
        self.spans = spans
        self.lines = lines
        self.withheld = withheld
        self.index = index
        self.keys = keys
        self.file = file  # the open part file its postings are read from
        self.digest = digest  # of the file's bytes the part covers (a whole part)
        self.base = base  # a tail: the entries appended since the file had this signature

    @property
    def ids(self) -> list[str]:
        if isinstance(self._ids, str):
            self._ids = _split(self._ids, self.n)
        return self._ids

    @property
    def dates(self) -> list[str]:
        if isinstance(self._dates, str):
            self._dates = _split(self._dates, self.n)
        return self._dates

    @property
    def supersedes(self) -> list[str]:
        if not isinstance(self._supersedes, list):
            self._supersedes = self._supersedes()
        return self._supersedes

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


def write_part(path: Path, root: Path | None, header: list[Any], part: Part) -> bool:
    """Write ``part`` (built in memory, keys and supersedes known) atomically."""
    state = part.index.to_state()
    # A withheld entry has no key (b""): stored as zeros to keep the width, read back as b"".
    keys = b"".join(key or _NO_KEY for key in part.keys or ())
    supersedes = marshal.dumps(part.supersedes)
    docs, tfs = state["docs"], state["tfs"]
    meta = marshal.dumps([
        PART_FORMAT, header, part.name, part.archived, part.sig, _joined(part.ids),
        _joined(part.dates), _packed("q", part.spans), _packed("i", part.lines), part.withheld,
        "\n".join(state["terms"]), state["offsets"], state["lengths"], len(docs), len(tfs),
        len(keys), len(supersedes), math.fsum(_unpacked("d", state["lengths"])), part.digest,
        part.base,
    ])  # fmt: skip
    data = b"".join((len(meta).to_bytes(8, "little"), meta, docs, tfs, keys, supersedes))
    return write_cache(path, data, root, covered=8 + len(meta))


def read_part(path: Path, root: Path | None, header: list[Any], *, k1: float, b: float,
              title_weight: float, full: bool = False) -> Part | None:
    """The part stored at ``path`` if it was written with ``header``; postings are read on
    demand from the open file (or all at once, with keys and supersedes, if ``full``)."""
    try:
        f = open_bounded(path, MAX_CACHE_BYTES, root)
    except Exception:  # missing, refused, unreadable: rebuilt
        return None
    try:
        return _read(f, path.name, header, k1, b, title_weight, full)
    except (ValueError, TypeError, IndexError, EOFError, KeyError, OSError, OverflowError,
            Corrupt):
        f.close()
        return None


def _read(f: BinaryIO, name: str, header: list[Any], k1: float, b: float, title_weight: float,
          full: bool) -> Part | None:
    prefix = f.read(CACHE_PREFIX)
    length = f.read(8)
    size = int.from_bytes(length, "little")
    if size > os.fstat(f.fileno()).st_size - CACHE_PREFIX - 8:
        raise ValueError("truncated search index")
    raw = f.read(size)
    if not tag_matches(name, prefix, length + raw):
        f.close()
        return None
    meta = marshal.loads(raw)
    (fmt_, head, name, archived, sig, ids, dates, spans, lines, withheld, terms, offsets,
     lengths, n_docs, n_tfs, n_keys, n_sup, total, digest, base_sig) = meta
    if fmt_ != PART_FORMAT or head != header:
        f.close()
        return None
    offsets_a = _unpacked("i", offsets)
    lengths_a = _unpacked("d", lengths)
    spans_a = _unpacked("q", spans)
    lines_a = _unpacked("i", lines)
    terms = terms.split("\n") if terms else []
    n = len(lines_a)
    if not (isinstance(terms, list) and len(offsets_a) == len(terms) + 1 and offsets_a[0] == 0
            and n_docs == 4 * offsets_a[-1] and n_tfs == 8 * offsets_a[-1]
            and isinstance(ids, str) and isinstance(dates, str) and len(lengths_a) == n
            and len(spans_a) == 2 * n and (n > 0 or not ids)
            and n_keys in (0, 16 * n) and all(0 <= i < n for i in withheld)):
        f.close()
        return None
    base = CACHE_PREFIX + 8 + size
    tfs_at = base + n_docs

    def fetch(start: int, end: int) -> tuple[array[int], array[float]]:
        f.seek(base + 4 * start)
        docs = _unpacked("i", f.read(4 * (end - start)))
        f.seek(tfs_at + 8 * start)
        tfs = _unpacked("d", f.read(8 * (end - start)))
        if len(docs) != len(tfs) or len(docs) != end - start:
            raise Corrupt("truncated search index")
        return docs, tfs

    def supersedes() -> list[str]:
        f.seek(tfs_at + n_tfs + n_keys)
        out = marshal.loads(f.read(n_sup))
        if not isinstance(out, list) or len(out) != n:
            raise Corrupt("inconsistent search index")
        return out

    keys: list[bytes] | None = None
    if full:
        f.seek(tfs_at + n_tfs)
        raw = f.read(n_keys)
        if len(raw) != n_keys:
            raise ValueError("truncated search index")
        keys = [raw[i:i + 16] for i in range(0, n_keys, 16)] or [b""] * n
        for i in withheld:
            keys[i] = b""
        docs, tfs = fetch(0, offsets_a[-1])
        sup: list[str] | Callable[[], list[str]] = supersedes()
        f.close()
        segment: Any = LazySegment(terms, offsets_a, lengths_a, lambda s, e: (docs[s:e], tfs[s:e]))
    else:
        segment = LazySegment(terms, offsets_a, lengths_a, fetch, float(total))
        sup = supersedes
    index = BM25Index([segment], k1=k1, b=b, title_weight=title_weight)
    return Part(name, bool(archived), tuple(sig), ids, dates, sup, spans_a, lines_a,
                list(withheld), index, keys, None if full else f, digest=bytes(digest),
                base=None if base_sig is None else tuple(base_sig))


def _joined(values: list[str]) -> str:
    return "\n".join(values)


def _split(joined: str, n: int) -> list[str]:
    # Ids and dates never hold a newline (one header line each), "" stands for no date.
    out = joined.split("\n") if n else []
    if len(out) != n:
        raise Corrupt("inconsistent search index")
    return out
