"""The vector cache: unit-length embeddings by content key, in one compact binary file.

Layout: an 8-byte magic (with the byte order), the dimension and the count (two unsigned
32-bit integers), the 16-byte keys, then the float32 vectors in key order. A query maps
the file and reads only the vectors it scores (a ``memoryview``, no copy); a missing,
corrupt or other-dimension file counts as empty. Derived data under ``.cache/`` (ADR 0019).
"""

from __future__ import annotations

import math
import struct
import sys
from array import array
from collections.abc import Iterable, Sequence
from operator import mul
from pathlib import Path

from .fsutil import read_cache, write_cache

MAGIC = b"LMVEC1" + (b"L\0" if sys.byteorder == "little" else b"B\0")
_HEAD = struct.Struct("<II")
KEY_BYTES = 16


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


class Vectors:
    """Vectors by key: those read from the file plus those added since."""

    def __init__(self, dim: int = 0, keys: Sequence[bytes] = (),
                 data: memoryview[float] | array[float] | None = None) -> None:
        self.dim = dim
        self._index = {key: i for i, key in enumerate(keys)}
        self._data: memoryview[float] | array[float] = data if data is not None else array("f")
        self._added: dict[bytes, array[float]] = {}

    def __len__(self) -> int:
        return len(self._index) + sum(1 for k in self._added if k not in self._index)

    def __contains__(self, key: bytes) -> bool:
        return key in self._added or key in self._index

    def get(self, key: bytes) -> Sequence[float] | None:
        added = self._added.get(key)
        if added is not None:
            return added
        i = self._index.get(key)
        if i is None:
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
        return [*self._index, *(k for k in self._added if k not in self._index)]

    def to_bytes(self, keep: Iterable[bytes] | None = None) -> bytes:
        """The file's bytes; only the keys in ``keep`` when given."""
        wanted = self.keys() if keep is None else [k for k in dict.fromkeys(keep) if k in self]
        data = array("f")
        for key in wanted:
            v = self.get(key)
            assert v is not None
            data.extend(v)
        return b"".join((MAGIC, _HEAD.pack(self.dim, len(wanted)), *wanted, data.tobytes()))

    @classmethod
    def from_bytes(cls, raw: bytes) -> Vectors:
        """Parse a file's bytes; an unusable file gives an empty store."""
        start = len(MAGIC) + _HEAD.size
        if len(raw) < start or raw[:len(MAGIC)] != MAGIC:
            return cls()
        dim, count = _HEAD.unpack_from(raw, len(MAGIC))
        end_keys = start + KEY_BYTES * count
        if dim == 0 or len(raw) != end_keys + 4 * dim * count:
            return cls()
        keys = [raw[o:o + KEY_BYTES] for o in range(start, end_keys, KEY_BYTES)]
        return cls(dim, keys, memoryview(raw)[end_keys:].cast("f"))

    @classmethod
    def load(cls, path: Path, root: Path | None = None) -> Vectors:
        raw = read_cache(path, root)
        return cls() if raw is None else cls.from_bytes(raw)

    def save(self, path: Path, root: Path | None = None,
             keep: Iterable[bytes] | None = None) -> bool:
        """Write atomically; False if it could not be written (it is only a cache)."""
        return write_cache(path, self.to_bytes(keep), root)
