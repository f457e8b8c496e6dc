"""The on-disk search index: one file per shard file, fixed regions read by offset (ADR 0016,
layout 2).

A part file is ``cache tag | 8-byte meta length | marshal meta | body``. The tag
(fsutil.write_cache, this user's key) covers the length and the meta; the meta holds the
shard file's signature (size, mtime, inode) the part is valid for, the part's counts, where
each region of the body lies, the first term of each block of the term dictionary, and the
BLAKE2b digest of every ``CHUNK`` bytes of the body. So everything a query reads is checked
before it is believed: the meta by the keyed tag, each chunk of the body by its digest (in
the tagged meta) the first time this process reads it. A part from anywhere else, or
changed in any byte a query reads, is never believed: the part is rebuilt.

The body's regions, little-endian, in this order (``_REGIONS``):

* ``lengths``: each document's length (every query needs them all);
* ``spans``, ``lines``: each entry's byte start and end in its file (i64) and first line (i32);
* ``ids``, ``dates``: (n + 1) u32 offsets, then the UTF-8 strings ("" for no date);
* ``dict``: the sorted terms, in blocks of ``BLOCK`` joined by newlines (UTF-8); the meta
  holds each block's first term and byte offset, so a term is found by bisecting the
  first terms in memory, then the one block read;
* ``starts``: (terms + 1) i32: term i's postings are ``[starts[i], starts[i + 1])``;
* ``docs``, ``tfs``: the postings, document numbers and raw frequencies;
* ``keys``: what each entry's indexed text hashes to (16 bytes each), read only when the
  part is rebuilt (a withheld entry's counts are never reused: see below);
* ``supersedes``: marshal list, read only when the superseded entries are worked out again.

``lengths``, ``docs`` and ``tfs`` are stored in the narrowest unsigned type (u8, u16, u32)
that holds each of their numbers exactly, else as f64 (lengths, frequencies: a title
weight that is not a whole number); the meta names the types (``_WIDTHS``). The numbers
read back are those written, so are the scores, bit for bit; a query reads 3 bytes a
posting where it read 12, a fourth of the lengths, and the digests of a body half the
size (at 100k entries: ADR 0053).

Every entry is indexed with its real counts, withheld or not (ADR 0051: withheld is a mask
applied at query time). No credential's text may reach a cache, so only a part whose
verdicts are complete is written, and a term that only its withheld entries hold is written
as its keyed hash (``_private``, this user's cache key): a query looks a term up as written,
then, in a part that has such terms, by its hash. Such a part's withheld entries are read
back without their keys (their counts hold hashes: never reused).

So a query reads the lengths, one dictionary block and the postings of each query term, and
the span, line, id and date of its hits: a few kB to a few MB however large the memory.
Entries appended to a shard file since its part was built go to a small tail part of their
own (``base`` names the signature of the file the part was built from), so a put does not
rewrite the part.

Everything here is derived: a part that fails any check is ``None`` (or raises ``Corrupt``
while a query reads it) and gets rebuilt.
"""

from __future__ import annotations

import marshal
import math
import os
import sys
from bisect import bisect_left, bisect_right
from itertools import accumulate, pairwise

from ._hash import blake2b
from ._record import SequenceBase, array
from .bm25 import BM25Index, LazySegment, _Segment
from .fsutil import (
    CACHE_PREFIX,
    MAX_CACHE_BYTES,
    cache_key,
    open_bounded,
    tag_matches,
    write_cache,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, BinaryIO

    from .fsutil import StrPath

# 4: every entry counted, withheld terms hashed (0051); 5: lengths, docs, tfs narrow (0053)
PART_FORMAT = "lean_memory.index/5"
CHUNK = 2048  # bytes of body per digest: a query checks what it reads, ~1 kB a term
BLOCK = 64  # terms per dictionary block
_DIGEST = 16
_NO_KEY = bytes(16)
_LITTLE = sys.byteorder == "little"
# The body's regions, in file order.
_REGIONS = ("lengths", "spans", "lines", "ids", "dates", "dict", "starts", "docs", "tfs",
            "keys", "supersedes")  # fmt: skip
(_LENGTHS, _SPANS, _LINES, _IDS, _DATES, _DICT, _STARTS, _DOCS, _TFS, _KEYS,
 _SUPERSEDES) = range(len(_REGIONS))  # fmt: skip
_META_FIELDS = 19
# The typecodes ``lengths``, ``docs`` and ``tfs`` may be stored with, and their widths.
_WIDTHS = {"B": 1, "H": 2, "I": 4, "d": 8}
_WHOLE = (("B", 1 << 8), ("H", 1 << 16), ("I", 1 << 32))
_PRIVATE = "\x01"  # starts a hashed term: no token holds a control character
_SMALL = 1 << 18  # a body up to this size is read whole (a small memory's parts)
_FIRST_READ = 1 << 16  # the first read of a part: the tag, the meta length and most metas


class Corrupt(Exception):
    """A part file turned out damaged while it was read."""


def _packed(typecode: str, values: Sequence[Any]) -> bytes:
    out = values if isinstance(values, array) else array(typecode, values)
    if not _LITTLE:
        out = array(typecode, out)
        out.byteswap()
    return out.tobytes()


def _unpacked(typecode: str, data: bytes) -> Sequence[Any]:
    """The numbers of ``data`` (little-endian): a view, so a query imports no ``array``
    (ADR 0039); an array on a big-endian machine."""
    if _LITTLE:
        view: Sequence[Any] = memoryview(data).cast(typecode)  # type: ignore[call-overload]
        return view
    out = array(typecode)
    out.frombytes(data)
    out.byteswap()
    return out


class Part:
    """What one shard file contributes to the search index.

    ``spans`` holds the byte start and end of each entry's raw text, ``lines`` its first
    line; ``withheld`` the numbers (in the part) of the entries known to hold a credential,
    and ``complete`` whether every other entry is known not to (ADR 0051: a cold build
    leaves the verdicts to the query and the warm-up). Every entry is indexed with its
    real counts: withheld is a mask applied at query time.
    Read from a file, ``ids``, ``dates``, ``spans`` and ``lines`` are read by offset, an
    item at a time.
    """

    __slots__ = ("_supersedes", "archived", "base", "complete", "dates", "digest", "file",
                 "ids", "index", "keys", "lines", "n", "name", "sig", "spans",
                 "withheld")  # fmt: skip

    def __init__(self, name: str, archived: bool, sig: tuple[int, int, int],
                 ids: Sequence[str], dates: Sequence[str],
                 supersedes: list[str] | Callable[[], list[str]], spans: Sequence[int],
                 lines: Sequence[int], withheld: list[int], index: BM25Index,
                 keys: list[bytes] | None = None, file: BinaryIO | None = None, *,
                 digest: bytes = b"", base: tuple[int, int, int] | None = None,
                 complete: bool = True) -> None:
        self.name = name
        self.archived = archived
        self.sig = sig
        self.n = len(lines)
        self.ids = ids
        self.dates = dates
        self._supersedes = supersedes  # a list, or what reads it from the file
        self.spans = spans
        self.lines = lines
        self.withheld = withheld
        self.index = index
        self.keys = keys
        self.file = file  # the open part file its postings are read from
        self.digest = digest  # of the file's bytes the part covers (a whole part)
        self.base = base  # a tail: the entries appended since the file had this signature
        self.complete = complete

    @property
    def supersedes(self) -> list[str]:
        if not isinstance(self._supersedes, list):
            self._supersedes = self._supersedes()
        return self._supersedes

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None


# -- writing ------------------------------------------------------------------------------


def _strings(values: Sequence[str]) -> bytes:
    blobs = [v.encode("utf-8", "surrogatepass") for v in values]
    offsets = array("I", [0])
    offsets.extend(accumulate(map(len, blobs)))
    return _packed("I", offsets) + b"".join(blobs)


def _narrow(values: Sequence[Any], typecode: str) -> tuple[str, bytes]:
    """``values`` (of ``typecode``: "I" or "d") packed in the narrowest unsigned type that
    holds each of them exactly, and its typecode; as ``typecode`` if none does."""
    high = max(values, default=0)
    if min(values, default=0) >= 0 and (typecode != "d" or all(map(float.is_integer, values))):
        for code, limit in _WHOLE:
            if high < limit:
                return code, _packed(code, list(map(int, values)))
    return typecode, _packed(typecode, values)


def chunk_digests(body: bytes, chunk: int | None = None) -> bytes:
    """The BLAKE2b digest of every ``chunk`` bytes of ``body``, as :class:`_Body` checks
    them (the vector cache's body too, with its own chunk size)."""
    view = memoryview(body)
    chunk = CHUNK if chunk is None else chunk
    return b"".join(blake2b(view[i:i + chunk], digest_size=_DIGEST).digest()
                    for i in range(0, len(body), chunk))


def _private(term: str, key: bytes) -> str:
    """How a term only withheld entries hold is written: its hash, keyed with ``key``."""
    return _PRIVATE + blake2b(term.encode("utf-8", "surrogatepass"), digest_size=12,
                              key=key).hexdigest()


class _Hidden(_Segment):
    """A segment read whole whose withheld entries' own terms are hashed: a term is looked
    up as written, then by its hash."""

    __slots__ = ("key",)
    key: bytes

    def span(self, term: str) -> tuple[int, int] | None:
        got = super().span(term)
        if got is None and term:
            got = super().span(_private(term, self.key))
        return got


def _hidden_terms(part: Part, key: bytes) -> BM25Index:
    """``part``'s index with every term that only its withheld entries hold hashed."""
    counts = part.index.counts()
    withheld = set(part.withheld)
    clean: set[str] = set()
    for i, (tf, _) in enumerate(counts):
        if i not in withheld:
            clean.update(tf)
    hidden = [({t if t in clean else _private(t, key): f for t, f in tf.items()}, length)
              if i in withheld else (tf, length) for i, (tf, length) in enumerate(counts)]
    index = part.index
    return BM25Index.from_counts(hidden, k1=index.k1, b=index.b, title_weight=index.title_weight)


def encode_part(header: list[Any], part: Part) -> tuple[bytes, int]:
    """The part file's bytes (before the seal) and how many of them the tag covers. A part
    with withheld entries needs this user's cache key (to hash their own terms)."""
    key = cache_key() if part.withheld else None
    if part.withheld and key is None:
        raise ValueError("no cache key to hide the withheld entries' terms with")
    state = (part.index if key is None else _hidden_terms(part, key)).to_state()
    terms: list[str] = state["terms"]
    blocks = [(terms[i], "\n".join(terms[i:i + BLOCK]).encode("utf-8", "surrogatepass"))
              for i in range(0, len(terms), BLOCK)]
    bounds = array("I", [0])
    bounds.extend(accumulate(len(blob) for _, blob in blocks))
    keys = b"".join(key or _NO_KEY for key in part.keys or ())
    lengths = _unpacked("d", state["lengths"])
    (length_code, lengths_raw), (doc_code, docs_raw), (tf_code, tfs_raw) = (
        _narrow(lengths, "d"), _narrow(_unpacked("i", state["docs"]), "I"),
        _narrow(_unpacked("d", state["tfs"]), "d"))
    regions = [lengths_raw, _packed("q", part.spans), _packed("i", part.lines),
               _strings(part.ids), _strings(part.dates), b"".join(b for _, b in blocks),
               state["offsets"], docs_raw, tfs_raw, keys,
               marshal.dumps(list(part.supersedes))]  # fmt: skip
    body = b"".join(regions)
    at = list(accumulate(map(len, regions), initial=0))
    digests = chunk_digests(body)
    meta = marshal.dumps([
        PART_FORMAT, header, part.name, part.archived, list(part.sig), part.n, len(terms),
        len(state["docs"]) // 4, math.fsum(lengths), part.withheld,
        at, "\n".join(first for first, _ in blocks), _packed("I", bounds), digests,
        part.digest, None if part.base is None else list(part.base), key is not None,
        length_code + doc_code + tf_code,
        _packed("I", list(accumulate((len(first) + 1 for first, _ in blocks), initial=0))),
    ])  # fmt: skip
    return b"".join((len(meta).to_bytes(8, "little"), meta, body)), 8 + len(meta)


def write_part(path: StrPath, root: StrPath | None, header: list[Any], part: Part) -> bool:
    """Write ``part`` (built in memory, keys and supersedes known) atomically; False, and
    nothing written, when its verdicts are incomplete (its text may hold a credential)."""
    if not part.complete:
        return False
    try:
        data, covered = encode_part(header, part)
    except ValueError:
        return False
    return write_cache(path, data, root, covered=covered)


# -- reading ------------------------------------------------------------------------------


class _Body:
    """The body of an open part file, read by offset, each chunk checked against its digest
    the first time it is read (then kept, when it is read a piece at a time)."""

    __slots__ = ("at", "checked", "chunk", "chunks", "digests", "f", "size")

    def __init__(self, f: BinaryIO, at: int, size: int, digests: bytes,
                 chunk: int | None = None) -> None:
        self.f = f
        # bytes per digest: CHUNK for a part (read when made: a test shrinks it), the
        # vector file's own for it
        self.chunk = CHUNK if chunk is None else chunk
        self.at = at  # where the body starts in the file
        self.size = size
        self.digests = digests
        self.chunks: dict[int, bytes] = {}
        self.checked = bytearray()  # a small body's chunks checked so far

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``start:end`` of the body, checked; Corrupt if they are not what was
        written."""
        if not 0 <= start <= end <= self.size:
            raise Corrupt("inconsistent search index")
        if start == end:
            return b""
        chunk = self.chunk
        if self.size <= _SMALL:  # read whole, once (fewer reads); each chunk checked when
            # first read, as below (a query reads about half of them)
            whole = self.chunks.get(-1)
            if whole is None:
                whole = self.chunks[-1] = self._pread(0, self.size)
                self.checked = bytearray(-(-self.size // chunk))
            checked = self.checked
            for i in range(start // chunk, (end - 1) // chunk + 1):
                if not checked[i]:
                    self._check(i, memoryview(whole)[i * chunk:(i + 1) * chunk])
                    checked[i] = 1
            return whole[start:end]
        first, last = start // chunk, (end - 1) // chunk
        base = first * chunk
        if last - first <= 1:  # small reads (a dictionary block, a hit's id): kept
            data = self._chunk(first)
            if last != first:
                data += self._chunk(last)
            return data[start - base:end - base]
        # A long run (the postings of a common term): read at once, checked chunk by chunk.
        stop = min((last + 1) * chunk, self.size)
        data = self._pread(base, stop)
        view = memoryview(data)
        for i in range(first, last + 1):
            self._check(i, view[(i - first) * chunk:(i - first + 1) * chunk])
        return data[start - base:end - base]

    def _chunk(self, i: int) -> bytes:
        data = self.chunks.get(i)
        if data is None:
            chunk = self.chunk
            data = self._pread(i * chunk, min((i + 1) * chunk, self.size))
            self._check(i, data)
            self.chunks[i] = data
        return data

    def _check(self, i: int, data: bytes | memoryview) -> None:
        """Corrupt unless ``data``, chunk ``i``, hashes to the digest written for it."""
        if blake2b(data, digest_size=_DIGEST).digest() != \
                self.digests[_DIGEST * i:_DIGEST * (i + 1)]:
            raise Corrupt("damaged search index")

    def _pread(self, start: int, end: int) -> bytes:
        f = self.f
        f.seek(self.at + start)
        data = f.read(end - start)
        if len(data) != end - start:
            raise Corrupt("truncated search index")
        return data


class _Strings(SequenceBase[str]):
    """A region of strings (u32 offsets, then UTF-8), read one at a time, or all at once
    when iterated."""

    __slots__ = ("_all", "body", "n", "start")

    def __init__(self, body: _Body, start: int, n: int) -> None:
        self.body = body
        self.start = start
        self.n = n
        self._all: list[str] | None = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> str:  # type: ignore[override]
        if self._all is not None:
            return self._all[i]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        at = self.start
        lo, hi = _unpacked("I", self.body.read(at + 4 * i, at + 4 * i + 8))
        blob = at + 4 * (self.n + 1)
        return self.body.read(blob + lo, blob + hi).decode("utf-8", "surrogatepass")

    def __iter__(self) -> Iterator[str]:
        return iter(self.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, list | _Strings) and self.values() == list(other)

    __hash__ = None  # type: ignore[assignment]

    def values(self) -> list[str]:
        if self._all is None:
            n, at = self.n, self.start
            offsets = _unpacked("I", self.body.read(at, at + 4 * (n + 1)))
            blob = self.body.read(at + 4 * (n + 1), at + 4 * (n + 1) + offsets[-1])
            out = [blob[lo:hi].decode("utf-8", "surrogatepass")
                   for lo, hi in pairwise(offsets)]
            self._all = out
        return self._all


class _Numbers(SequenceBase[int]):
    """A region of fixed-width numbers, read one at a time."""

    __slots__ = ("body", "n", "start", "typecode", "width")

    def __init__(self, body: _Body, start: int, n: int, typecode: str, width: int) -> None:
        self.body = body
        self.start = start
        self.n = n
        self.typecode = typecode
        self.width = width

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):  # one read for a run (an entry's start and end)
            lo, hi, step = i.indices(self.n)
            if step != 1 or hi <= lo:
                return list(self)[i]
            at = self.start + self.width * lo
            body = self.body.read(at, at + self.width * (hi - lo))
            return list(_unpacked(self.typecode, body))
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        at = self.start + self.width * i
        value: int = _unpacked(self.typecode, self.body.read(at, at + self.width))[0]
        return value

    def __iter__(self) -> Iterator[int]:
        body = self.body.read(self.start, self.start + self.width * self.n)
        return iter(_unpacked(self.typecode, body))


def read_part(path: StrPath, root: StrPath | None, header: list[Any], *, k1: float, b: float,
              title_weight: float, full: bool = False) -> Part | None:
    """The part stored at ``path`` if it was written with ``header``; what a query needs
    is read on demand from the open file (or all at once, with keys and supersedes, if
    ``full``)."""
    try:
        f = open_bounded(path, MAX_CACHE_BYTES, root)
    except Exception:  # missing, refused, unreadable: rebuilt
        return None
    try:
        part = _read(f, os.path.basename(path), header, k1, b, title_weight, full)
    except (ValueError, TypeError, IndexError, EOFError, KeyError, OSError, OverflowError,
            UnicodeError, MemoryError, Corrupt):
        part = None
    if part is None or part.file is None:
        f.close()
    return part


def _read(f: BinaryIO, name: str, header: list[Any], k1: float, b: float, title_weight: float,
          full: bool) -> Part | None:
    size = os.fstat(f.fileno()).st_size
    head = f.read(_FIRST_READ)
    length = int.from_bytes(head[CACHE_PREFIX:CACHE_PREFIX + 8], "little")
    at = CACHE_PREFIX + 8 + length  # where the body starts
    if len(head) < CACHE_PREFIX + 8 or at > size:
        return None
    if at > len(head):
        head += f.read(at - len(head))
        if len(head) != at:
            return None
    if not tag_matches(name, head, memoryview(head)[CACHE_PREFIX:at]):
        return None
    meta = marshal.loads(memoryview(head)[CACHE_PREFIX + 8:at])
    if not (isinstance(meta, list) and len(meta) == _META_FIELDS and meta[0] == PART_FORMAT
            and meta[1] == header):
        return None
    (_, _, name, archived, sig, n, n_terms, n_postings, total, withheld, regions, firsts,
     bounds_raw, digests, digest, base_sig, private, codes, firsts_raw) = meta
    if not (isinstance(codes, str) and len(codes) == 3 and codes[1] != "d"
            and all(code in _WIDTHS for code in codes)):
        return None
    length_code, doc_code, tf_code = codes[0], codes[1], codes[2]
    body_size = size - at
    bounds = _unpacked("I", bounds_raw)
    # where each block's first term starts in ``firsts`` (joined by newlines): a term's
    # block is found by bisecting them there, not splitting a list of them all
    firsts_at = _unpacked("I", firsts_raw)
    n_blocks = len(firsts_at) - 1
    tf_width = _WIDTHS[tf_code]
    expected = {_LENGTHS: _WIDTHS[length_code] * n, _SPANS: 16 * n, _LINES: 4 * n,
                _STARTS: 4 * (n_terms + 1), _DOCS: _WIDTHS[doc_code] * n_postings,
                _TFS: tf_width * n_postings}
    if not (isinstance(regions, list) and len(regions) == len(_REGIONS) + 1
            and regions[0] == 0 and regions[-1] == body_size
            and all(0 <= x <= y for x, y in pairwise(regions))
            and all(regions[r + 1] - regions[r] == w for r, w in expected.items())
            and regions[_KEYS + 1] - regions[_KEYS] in (0, 16 * n)
            and n_blocks == -(-n_terms // BLOCK) and len(bounds) == n_blocks + 1
            and isinstance(firsts, str) and firsts_at[0] == 0
            and firsts_at[-1] == len(firsts) + (n_blocks > 0)
            and bounds[0] == 0 and bounds[-1] == regions[_DICT + 1] - regions[_DICT]
            and len(digests) == _DIGEST * -(-body_size // CHUNK)
            and all(0 <= i < n for i in withheld) and isinstance(private, bool)):
        return None
    key = cache_key() if private else None
    if private and key is None:
        return None
    body = _Body(f, at, body_size, digests)
    lengths = _unpacked(length_code, body.read(regions[_LENGTHS], regions[_LENGTHS + 1]))
    doc_width = _WIDTHS[doc_code]
    dict_at, starts_at = regions[_DICT], regions[_STARTS]
    docs_at, tfs_at = regions[_DOCS], regions[_TFS]

    def find(term: str) -> tuple[int, int] | None:
        got = look(term)
        if got is None and key is not None and term:  # held by withheld entries alone?
            got = look(_private(term, key))
        return got

    def first(block: int) -> str:
        """The first term of dictionary block ``block``."""
        return firsts[firsts_at[block]:firsts_at[block + 1] - 1]

    def look(term: str) -> tuple[int, int] | None:
        block = bisect_right(range(n_blocks), term, key=first) - 1
        if block < 0:
            return None
        terms = body.read(dict_at + bounds[block], dict_at + bounds[block + 1])
        words = terms.decode("utf-8", "surrogatepass").split("\n")
        i = bisect_left(words, term)
        if i == len(words) or words[i] != term:
            return None
        t = BLOCK * block + i
        start, end = _unpacked("i", body.read(starts_at + 4 * t, starts_at + 4 * t + 8))
        if not 0 <= start <= end <= n_postings:
            raise Corrupt("inconsistent search index")
        return start, end

    def fetch(start: int, end: int) -> tuple[Sequence[int], Sequence[float]]:
        # whole frequencies come back as ints: every score takes the same float operations
        # on the same values (an int is converted exactly), so the same bits
        docs = _unpacked(doc_code, body.read(docs_at + doc_width * start,
                                             docs_at + doc_width * end))
        tfs = _unpacked(tf_code, body.read(tfs_at + tf_width * start, tfs_at + tf_width * end))
        return docs, tfs

    def whole() -> _Segment:
        blob = body.read(dict_at, regions[_DICT + 1])
        terms = [term for lo, hi in pairwise(bounds)
                 for term in blob[lo:hi].decode("utf-8", "surrogatepass").split("\n")]
        offsets = _unpacked("i", body.read(starts_at, regions[_STARTS + 1]))
        if len(terms) != n_terms or offsets[0] != 0 or offsets[-1] != n_postings:
            raise Corrupt("inconsistent search index")
        docs, tfs = fetch(0, n_postings)
        # floats, as built: the counts a rebuild reuses are those it would have counted
        tfs, floats = list(map(float, tfs)), list(map(float, lengths))
        if key is None:
            return _Segment(terms, offsets, docs, tfs, floats)
        hidden = _Hidden(terms, offsets, docs, tfs, floats)
        hidden.key = key
        return hidden

    def supersedes() -> list[str]:
        out = marshal.loads(body.read(regions[_SUPERSEDES], regions[_SUPERSEDES + 1]))
        if not isinstance(out, list) or len(out) != n:
            raise Corrupt("inconsistent search index")
        return out

    ids = _Strings(body, regions[_IDS], n)
    dates = _Strings(body, regions[_DATES], n)
    spans: Sequence[int] = _Numbers(body, regions[_SPANS], 2 * n, "q", 8)
    lines: Sequence[int] = _Numbers(body, regions[_LINES], n, "i", 4)
    keys: list[bytes] | None = None
    sup: list[str] | Callable[[], list[str]] = supersedes
    segment: _Segment
    if full:
        raw = body.read(regions[_KEYS], regions[_KEYS + 1])
        keys = [raw[i:i + 16] for i in range(0, len(raw), 16)] or [b""] * n
        for i in withheld if private else ():
            keys[i] = b""  # its counts hold hashed terms
        segment = whole()
        sup = supersedes()
        ids_list, dates_list = ids.values(), dates.values()
        spans = _unpacked("q", body.read(regions[_SPANS], regions[_SPANS + 1]))
        lines = _unpacked("i", body.read(regions[_LINES], regions[_LINES + 1]))
        if len(ids_list) != n or len(dates_list) != n:
            raise Corrupt("inconsistent search index")
        return Part(name, bool(archived), tuple(sig), ids_list, dates_list, sup, spans, lines,
                    list(withheld), BM25Index([segment], k1=k1, b=b, title_weight=title_weight),
                    keys, None, digest=bytes(digest),
                    base=None if base_sig is None else tuple(base_sig))
    segment = LazySegment(find, fetch, whole, lengths, float(total))
    return Part(name, bool(archived), tuple(sig), ids, dates, sup, spans, lines,
                list(withheld), BM25Index([segment], k1=k1, b=b, title_weight=title_weight),
                keys, f, digest=bytes(digest), base=None if base_sig is None else tuple(base_sig))
