"""What a prompt pays in file work (issue 36 item 3, ADR 0039 amended): the pay-once record
is a cache (no fsync), a cache file is read through one open, SHA-256 is loaded only when an
id is made. Each keeps what matters: the record is still replaced whole, a foreign or
damaged cache is still refused, the digests are still hashlib's."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lean_memory import fsutil, sessionlog
from lean_memory import prompthook as payonce

from .conftest import ROOT


def test_the_pay_once_record_is_written_without_fsync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every prompt fsynced the pay-once record, a per-session cache a crash may lose (at
    worst an entry is shown again): ~0.5 ms of each prompt."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    root = tmp_path / "repo"
    root.mkdir()
    payonce.note(root, "s1", ["a1b2c3d4", "e5f6a7b8"], 10)
    payonce.note(root, "s1", ["a1b2c3d4"], 20)
    assert synced == []
    assert payonce.seen(root, "s1", 30) == {"a1b2c3d4", "e5f6a7b8"}
    # the ask record keeps its fsync at the cap's rewrite (durable stays the default)
    sessionlog.write_private(tmp_path / "data" / "x.txt", "kept\n")
    assert len(synced) == 1


def test_a_cache_file_is_opened_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``read_cache`` opened a cache file (and walked its folders) twice: once for the
    magic, once for the body. Still: the body comes back, a foreign file is refused."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cachehome"))
    folder = tmp_path / ".agents" / "memory" / ".cache"
    folder.mkdir(parents=True)
    path = folder / "x.marshal"
    body = bytes(range(256)) * 300
    assert fsutil.write_cache(path, body)
    opened: list[str] = []
    real_open = os.open

    def counting_open(p: object, *args: object, **kw: object) -> int:
        opened.append(os.fspath(p))  # type: ignore[arg-type]
        return real_open(p, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", counting_open)
    assert fsutil.read_cache(path) == body
    assert opened.count(str(path)) == 1
    path.write_bytes(b"not ours" + body)
    assert fsutil.read_cache(path) is None
    raw = bytearray(fsutil.sealed(path.name, body) or b"")
    raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    assert fsutil.read_cache(path) is None


def test_sha256_is_loaded_when_first_asked_for() -> None:
    """``_hash`` loaded ``_sha256`` (a shared library) in every process, though only making
    an id needs it; asked for, it gives hashlib's digests."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    probe = ("import sys; import lean_memory.cli, lean_memory.hooks;"
             "print(any(m in sys.modules for m in ('_sha256', '_sha2', 'hashlib')));"
             "from lean_memory import format as f, _hash;"
             "print(_hash.sha256(b'x').hexdigest()); print(f.derived_id('a', 'b', 'c', 0))")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    seed = "a\0b\0" + "0\0c"
    assert out == ["False", hashlib.sha256(b"x").hexdigest(),
                   "h" + hashlib.sha256(seed.encode()).hexdigest()[:7]]
