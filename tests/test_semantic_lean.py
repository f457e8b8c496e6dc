"""The semantic extra, lean (issue 36.4, ADR 0036): the vector file is chunk-sealed and read
only where the candidates' vectors lie, every chunk checked; a file sealed by another key or
damaged where a query reads changes no answer (BM25 answers, no exception); and a query with
the extra on loads none of ``urllib.request``, ``http``, ``email``, ``ssl``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lean_memory import Memory, fsutil
from lean_memory.embedcmd import embed_missing
from lean_memory.fsutil import CACHE_PREFIX
from lean_memory.ollama import vectors_path
from lean_memory.search import find
from lean_memory.vectors import (
    CHUNK,  # the vector file's chunk (8 kB; a part's is 2 kB)
    MAGIC,
    Vectors,
)

from .test_hot_imports import _loaded
from .test_semantic import configure, fake, fill_memory, titles  # noqa: F401  (fake: a fixture)

DIM = 384


def _vector(i: int) -> list[float]:
    return [float((i * 7 + j) % 13 - 6) or 1.0 for j in range(DIM)]


def _key(i: int) -> bytes:
    return i.to_bytes(4, "big") * 4


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """3,000 vectors of 384 dimensions (4.6 MB of body, about 570 chunks)."""
    v = Vectors()
    for i in range(3000):
        v.add(_key(i), _vector(i))
    path = tmp_path / ".cache" / "vectors-test.bin"
    assert v.save(path, tmp_path)
    return path


def test_a_lookup_reads_only_the_chunks_it_needs(big: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the old cost: every query read, authenticated and copied the whole file."""
    from lean_memory.index import _Body

    v = Vectors.load(big, big.parent.parent)
    assert v._file is not None
    reads: list[tuple[int, int]] = []
    original = _Body._pread

    def counted(self: _Body, start: int, end: int) -> bytes:
        reads.append((start, end))
        return original(self, start, end)

    monkeypatch.setattr(_Body, "_pread", counted)
    for i in (5, 1500, 2999):
        got = v.get(_key(i))
        assert got is not None
        expected = Vectors()
        expected.add(b"k" * 16, _vector(i))
        assert list(got) == list(expected.get(b"k" * 16) or [])
    assert v.get(b"\xff" * 16) is None
    # per lookup: one block of keys and at most two chunks of vector
    assert len(reads) <= 3 * 3 + 1
    assert sum(end - start for start, end in reads) <= 10 * CHUNK
    assert len(v) == 3000 and not v.damaged


def test_a_damaged_chunk_is_refused_where_it_is_read(big: Path) -> None:
    """Guards a bit flip in the vector body being believed (a wrong cosine, a wrong rank)."""
    raw = bytearray(big.read_bytes())
    v = Vectors.load(big, big.parent.parent)
    assert v._file is not None
    # the vector of key 1500 lies at this offset of the body
    at = big.stat().st_size - v._file.body.size + v._file.start + v._file.width * 1500
    raw[at + 10] ^= 0x40
    big.write_bytes(bytes(raw))
    v = Vectors.load(big, big.parent.parent)
    assert v.get(_key(5)) is not None  # a sound chunk elsewhere reads
    assert v.get(_key(1500)) is None and v.damaged
    assert v.get(_key(5)) is None  # then nothing of the file is used


def test_a_file_sealed_with_another_key_counts_as_empty(big: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards a cloned repository's committed .cache/ (or any other user's) being believed."""
    assert len(Vectors.load(big, big.parent.parent)) == 3000
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
    monkeypatch.setattr(fsutil, "_keys", {})
    assert len(Vectors.load(big, big.parent.parent)) == 0


def test_the_old_layout_is_still_read(tmp_path: Path) -> None:
    """Guards an upgrade silently dropping every vector `embed` had cached (a full re-embed)."""

    from lean_memory.vectors import OLD_MAGIC, unit

    keys = [_key(i) for i in range(3)]
    data = b"".join(unit(_vector(i)).tobytes() for i in range(3))
    old = OLD_MAGIC + DIM.to_bytes(4, "little") + (3).to_bytes(4, "little") + b"".join(keys) + data
    path = tmp_path / ".cache" / "vectors-old.bin"
    assert fsutil.write_cache(path, old, tmp_path)
    v = Vectors.load(path, tmp_path)
    assert sorted(v.keys()) == keys
    assert list(v.get(keys[1]) or []) == list(unit(_vector(1)))
    # saved again: the new layout, same vectors
    v.save(path, tmp_path)
    assert path.read_bytes()[CACHE_PREFIX:].startswith(MAGIC)
    assert list(Vectors.load(path, tmp_path).get(keys[1]) or []) == list(unit(_vector(1)))


@pytest.mark.parametrize("damage", ["chunk", "other-key"])
def test_a_query_over_a_bad_vector_file_falls_back_to_bm25(
        mem: Memory, fake: Any, damage: str, tmp_path: Path,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards a tampered or foreign vector file raising out of a query or changing it."""
    m = configure(mem, fake[1])
    fill_memory(m)
    embed_missing(m)
    plain = titles(find(m, "postgres slow", k=2))
    path = vectors_path(m, "nomic-embed-text")
    if damage == "chunk":
        raw = bytearray(path.read_bytes())
        raw[-3] ^= 0x01  # the last vector's last float
        path.write_bytes(bytes(raw))
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "another-user"))
        monkeypatch.setattr(fsutil, "_keys", {})
        assert Vectors.load(path, m.agents_dir).keys() == []
        v = Vectors.from_bytes(path.read_bytes()[CACHE_PREFIX:])  # the file is well formed
        assert v.keys()
        v.save(path, m.agents_dir)  # now sealed by the other user's key
        monkeypatch.undo()
        monkeypatch.setattr(fsutil, "_keys", {})
    found = find(m, "postgres slow", k=2)
    assert titles(found) == ["postgres vacuum", "postgres at night"]
    assert found.notes  # said, never silent
    if damage == "chunk":
        assert plain and any("failed its check" in n for n in found.notes), found.notes
    else:
        assert any("no vector yet" in n for n in found.notes), found.notes


def test_a_query_with_the_extra_loads_no_http_library(mem: Memory, fake: Any) -> None:  # noqa: F811
    """Guards urllib's weight (http.client, email, ssl: 165 modules instead of 74, +71 ms
    per query) and the other imports the extra did without (ADR 0036) coming back."""
    state, host = fake
    m = configure(mem, host)
    fill_memory(m)
    embed_missing(m)
    state.requests.clear()
    env_root = m.root
    os.environ.pop("OLLAMA_HOST", None)
    modules, out = _loaded(env_root, "get", "--query", "car crash")
    assert "Automobile collision" in out
    assert state.requests and state.requests[-1]["input"] == ["search_query: car crash"]
    loaded = {name.partition(".")[0] for name in modules} | set(modules)
    # urllib's weight, and what the client, the vectors and the deadline do without:
    # json and typing (both import re), threading, the idna codec
    unneeded = {"urllib.request", "http", "email", "ssl", "json", "re", "typing", "threading",
                "encodings.idna", "hashlib"}
    assert not unneeded & loaded, sorted(unneeded & loaded)
