"""The vector cache: unit-length embeddings by content key, in one chunk-sealed binary file.

Layout (after the cache seal, ADR 0036): a header — an 8-byte magic (with the byte order),
the dimension and the count (unsigned 32-bit), the first key of every block of ``BLOCK``
keys, the BLAKE2b digest of every ``CHUNK`` bytes of the body — then the body: the 16-byte
keys, sorted, then the float32 vectors in key order. The seal's keyed tag covers the
header; each chunk of the body is checked against its digest the first time it is read
(as the search index's parts are). So a query reads the header, one block of keys and one
vector per candidate, never the whole file, and believes nothing this user's key did not
seal: a file from anywhere else counts as empty, one damaged where a query reads marks the
store ``damaged`` (its file vectors are then dropped). Derived data under ``.cache/``
(ADR 0019). A file in the older layout (sealed whole) is still read, whole, until the next
``embed`` rewrites it.
"""

from __future__ import annotations

import io
import math
import os
import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from operator import mul

from .fsutil import (
    CACHE_PREFIX,
    MAX_CACHE_BYTES,
    open_bounded,
    read_cache,
    tag_matches,
    write_cache,
)
from .index import Corrupt, _Body, chunk_digests

_ORDER = b"L\0" if sys.byteorder == "little" else b"B\0"
MAGIC = b"LMVEC2" + _ORDER
OLD_MAGIC = b"LMVEC1" + _ORDER  # sealed whole, read whole (before ADR 0036)
KEY_BYTES = 16
# bytes of body per digest: the part files' old size, kept (index.CHUNK became 2 kB in
# ADR 0039's amendment; this file's layout, LMVEC2, did not change)
CHUNK = 8192
BLOCK = CHUNK // KEY_BYTES  # keys per block: a block is one chunk of the body
_DIGEST = 16
_FIRST_READ = 1 << 16

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

    from .fsutil import StrPath


def unit(vector: Sequence[float]) -> array[float]:
    """The vector scaled to length 1 (float32); ValueError if empty or not finite."""
    out = array("f", vector)
    norm = math.sqrt(math.fsum(x * x for x in out))
    if not out or not math.isfinite(norm):
        raise ValueError("not a finite vector")
    if norm > 0:
        out = array("f", (x / norm for x in out))
    return out


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return float(sum(map(mul, a, b)))


def _pair(raw: bytes, at: int) -> tuple[int, int]:
    """The dimension and the count (two little-endian u32) at ``at``."""
    return (int.from_bytes(raw[at:at + 4], "little"),
            int.from_bytes(raw[at + 4:at + 8], "little"))


def _packed_pair(dim: int, count: int) -> bytes:
    return dim.to_bytes(4, "little") + count.to_bytes(4, "little")


def _header_size(dim: int, count: int) -> int:
    body = count * (KEY_BYTES + 4 * dim)
    return len(MAGIC) + 8 + KEY_BYTES * -(-count // BLOCK) + _DIGEST * -(-body // CHUNK)


class _File:
    """The vectors of one file, read by offset: a block of keys, then a vector, each chunk
    checked when first read."""

    def __init__(self, body: _Body, dim: int, count: int, firsts: list[bytes]) -> None:
        self.body = body
        self.dim = dim
        self.count = count
        self.firsts = firsts
        self.blocks: dict[int, dict[bytes, int]] = {}
        self.width = 4 * dim
        self.start = KEY_BYTES * count  # where the vectors begin

    def find(self, key: bytes) -> int | None:
        """The key's position in the file, or None."""
        b = bisect_right(self.firsts, key) - 1
        if b < 0:
            return None
        block = self.blocks.get(b)
        if block is None:
            lo = b * BLOCK
            hi = min(lo + BLOCK, self.count)
            raw = self.body.read(KEY_BYTES * lo, KEY_BYTES * hi)
            block = self.blocks[b] = {raw[o:o + KEY_BYTES]: lo + j
                                      for j, o in enumerate(range(0, len(raw), KEY_BYTES))}
        return block.get(key)

    def vector(self, i: int) -> memoryview[float]:
        at = self.start + self.width * i
        return memoryview(self.body.read(at, at + self.width)).cast("f")

    def keys(self) -> list[bytes]:
        raw = self.body.read(0, self.start)
        return [raw[o:o + KEY_BYTES] for o in range(0, len(raw), KEY_BYTES)]


def _parse(f: BinaryIO, size: int, name: str | None) -> _File | None:
    """The file behind the seal prefix (checked with this user's key when ``name`` is
    given), or None when it is not a whole, consistent vector file."""
    base = CACHE_PREFIX if name is not None else 0
    head = f.read(_FIRST_READ)
    start = base + len(MAGIC) + 8
    if len(head) < start or head[base:base + len(MAGIC)] != MAGIC:
        return None
    dim, count = _pair(head, base + len(MAGIC))
    if dim == 0:
        return None
    end = base + _header_size(dim, count)
    body_size = count * (KEY_BYTES + 4 * dim)
    if size != end + body_size:
        return None
    if end > len(head):
        head += f.read(end - len(head))
        if len(head) < end:
            return None
    if name is not None and not tag_matches(name, head, memoryview(head)[CACHE_PREFIX:end]):
        return None
    n_blocks = -(-count // BLOCK)
    firsts_end = start + KEY_BYTES * n_blocks
    firsts = [head[o:o + KEY_BYTES] for o in range(start, firsts_end, KEY_BYTES)]
    digests = head[firsts_end:end]
    return _File(_Body(f, end, body_size, digests, CHUNK), dim, count, firsts)


class Vectors:
    """Vectors by key: those of the file (read on demand) plus those added since."""

    def __init__(self, dim: int = 0, keys: Sequence[bytes] = (),
                 data: memoryview[float] | array[float] | None = None) -> None:
        self.dim = dim
        self._index = {key: i for i, key in enumerate(keys)}
        self._data: memoryview[float] | array[float] = data if data is not None else array("f")
        self._file: _File | None = None
        self._added: dict[bytes, array[float]] = {}
        self.damaged = False  # a chunk of the file failed its check: its vectors dropped

    @classmethod
    def _of(cls, file: _File) -> Vectors:
        out = cls(file.dim)
        out._file = file
        return out

    def _drop_file(self) -> None:
        self.damaged = True
        self._file = None

    def _position(self, key: bytes) -> int | None:
        if self._file is None:
            return self._index.get(key)
        try:
            return self._file.find(key)
        except Corrupt:
            self._drop_file()
            return None

    def _stored(self) -> int:
        return len(self._index) if self._file is None else self._file.count

    def __len__(self) -> int:
        return self._stored() + sum(1 for k in self._added if self._position(k) is None)

    def __contains__(self, key: bytes) -> bool:
        return key in self._added or self._position(key) is not None

    def get(self, key: bytes) -> Sequence[float] | None:
        added = self._added.get(key)
        if added is not None:
            return added
        i = self._position(key)
        if i is None:
            return None
        if self._file is not None:
            try:
                return self._file.vector(i)
            except Corrupt:
                self._drop_file()
                return None
        return self._data[i * self.dim:(i + 1) * self.dim]

    def add(self, key: bytes, vector: Sequence[float]) -> None:
        """Store ``vector`` (made unit length); ValueError if its dimension differs."""
        v = unit(vector)
        if self.dim and len(v) != self.dim:
            raise ValueError(f"dimension {len(v)}, expected {self.dim}")
        self.dim = len(v)
        self._added[key] = v

    def keys(self) -> list[bytes]:
        stored: list[bytes] = list(self._index)
        if self._file is not None:
            try:
                stored = self._file.keys()
            except Corrupt:
                self._drop_file()
                stored = []
        have = set(stored)
        return [*stored, *(k for k in self._added if k not in have)]

    def to_bytes(self, keep: Iterable[bytes] | None = None) -> bytes:
        """The file's bytes before the seal; only the keys in ``keep`` when given."""
        chosen = self.keys() if keep is None else dict.fromkeys(keep)
        wanted: list[tuple[bytes, Sequence[float]]] = []
        for key in chosen:
            v = self.get(key)
            if v is not None:
                wanted.append((key, v))
        wanted.sort(key=lambda kv: kv[0])
        data = array("f")
        for _, v in wanted:
            data.extend(v)
        keys = b"".join(key for key, _ in wanted)
        body = keys + data.tobytes()
        firsts = b"".join(key for key, _ in wanted[::BLOCK])
        return b"".join((MAGIC, _packed_pair(self.dim, len(wanted)), firsts,
                         chunk_digests(body, CHUNK),
                         body))

    @classmethod
    def from_bytes(cls, raw: bytes) -> Vectors:
        """Parse a file's bytes (unsealed); an unusable file gives an empty store."""
        f = io.BytesIO(raw)
        try:
            file = _parse(f, len(raw), None)
        except (ValueError, OSError):
            file = None
        if file is None:
            return cls()
        try:
            file.keys()  # every key chunk checked now: a damaged one makes it empty
        except Corrupt:
            return cls()
        return cls._of(file)

    @classmethod
    def load(cls, path: StrPath, root: StrPath | None = None) -> Vectors:
        """The file at ``path`` if this user's key sealed it, else an empty store."""
        try:
            f = open_bounded(path, MAX_CACHE_BYTES, root)
        except Exception:  # missing, refused, unreadable: no vectors
            return cls()
        keep = False
        try:
            size = os.fstat(f.fileno()).st_size
            file = _parse(f, size, os.path.basename(path))
            if file is not None:
                keep = True
                return cls._of(file)
            f.seek(CACHE_PREFIX)
            if f.read(len(OLD_MAGIC)) == OLD_MAGIC:
                return _old(read_cache(path, root))
            return cls()
        except (OSError, ValueError):
            return cls()
        finally:
            if not keep:
                f.close()

    def save(self, path: StrPath, root: StrPath | None = None,
             keep: Iterable[bytes] | None = None) -> bool:
        """Write atomically; False if it could not be written (it is only a cache). The
        store then holds what was written, in memory: the file it was read from is closed
        first (Windows cannot replace a file that is open)."""
        data = self.to_bytes(keep)
        if self._file is not None:
            self._file.body.f.close()
        self._file = _parse(io.BytesIO(data), len(data), None)
        self._index, self._data, self._added = {}, array("f"), {}
        covered = _header_size(self.dim, _pair(data, len(MAGIC))[1])
        return write_cache(path, data, root, covered=covered)


def _old(raw: bytes | None) -> Vectors:
    """A file in the layout before ADR 0036 (sealed whole): all its keys and vectors."""
    start = len(OLD_MAGIC) + 8
    if raw is None or len(raw) < start or raw[:len(OLD_MAGIC)] != OLD_MAGIC:
        return Vectors()
    dim, count = _pair(raw, len(OLD_MAGIC))
    end_keys = start + KEY_BYTES * count
    if dim == 0 or len(raw) != end_keys + 4 * dim * count:
        return Vectors()
    keys = [raw[o:o + KEY_BYTES] for o in range(start, end_keys, KEY_BYTES)]
    return Vectors(dim, keys, memoryview(raw)[end_keys:].cast("f"))
