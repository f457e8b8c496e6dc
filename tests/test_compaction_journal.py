"""A damaged compaction journal (ADR on compaction's all-or-nothing writes): the next write
voids it, writes nothing from it, and the memory converges to what a clean compaction
writes; a journal that is sound finishes the interrupted compaction."""

from __future__ import annotations

import errno
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lean_memory import Memory, compaction
from lean_memory.fsutil import sealed, unsealed
from lean_memory.store import COMPACTION_JOURNAL

from .conftest import run_cli, snapshot
from .test_compaction import _over_budget


def _journal(root: Path) -> Path:
    return root / ".agents" / "memory" / ".cache" / COMPACTION_JOURNAL


def _files(root: Path) -> dict[str, bytes]:
    return snapshot(root / ".agents" / "memory")


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """A memory whose compaction met a full disk after writing its journal and before its
    first file, and what a clean compaction of that memory writes."""
    base = tmp_path_factory.mktemp("base")
    mem = _over_budget(base)
    clean = tmp_path_factory.mktemp("clean") / "m"
    shutil.copytree(base, clean)
    Memory(clean).compact()
    before = _files(base)

    def full_disk(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compaction, "_apply", full_disk)
        with pytest.raises(OSError):
            mem.compact()
    assert _journal(base).is_file() and _files(base) == before
    return base, _files(clean)


def _damage(edit: Callable[[dict[str, Any]], object]) -> Callable[[bytes], bytes]:
    """A journal of ours (sealed with this user's key) whose content is damaged: the seal
    proves who wrote it, never that it is sound."""
    def apply(raw: bytes) -> bytes:
        body = unsealed(COMPACTION_JOURNAL, raw)
        assert body is not None
        data = json.loads(body)
        edit(data)
        out = sealed(COMPACTION_JOURNAL, json.dumps(data).encode())
        assert out is not None
        return out
    return apply


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "truncated": lambda raw: raw[: len(raw) // 2],
    "empty": lambda raw: b"",
    "not UTF-8": lambda raw: b"\xff\xfe\x00" + raw,
    "not an object": lambda raw: b"[1, 2]",
    "null": lambda raw: b"null",
    "another version": _damage(lambda d: d.update(v="lean_memory.compaction-journal/0")),
    "files not a list": _damage(lambda d: d.update(files={"a": 1})),
    "a file not an object": _damage(lambda d: d["files"].append("quirks")),
    "after not text": _damage(lambda d: d["files"][0].update(after=5)),
    "before missing": _damage(lambda d: d["files"][0].pop("before")),
    "an unknown shard": _damage(lambda d: d["files"][0].update(shard="../../etc/passwd")),
    "a shard of the wrong type": _damage(lambda d: d["files"][0].update(shard=["quirks"])),
    "before of another text": _damage(lambda d: d["files"][0].update(before="0" * 64)),
}


@pytest.mark.parametrize("how", list(DAMAGES))
def test_a_damaged_journal_is_voided_and_compaction_converges(
        crashed: tuple[Path, dict[str, bytes]], tmp_path: Path, how: str) -> None:
    """Catches: a damaged journal that crashes the next command (a traceback, or every
    later write refused), one replayed in part (a file written from it), or left in place
    to be tried again on every put."""
    base, want = crashed
    root = tmp_path / "m"
    shutil.copytree(base, root)
    journal = _journal(root)
    journal.write_bytes(DAMAGES[how](journal.read_bytes()))
    before = _files(root)
    assert not compaction.recover(Memory(root))  # voided, nothing written
    assert not journal.exists() and _files(root) == before
    journal.write_bytes(DAMAGES[how](_journal(base).read_bytes()))
    r = run_cli("compact", cwd=root)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    assert not journal.exists()
    assert _files(root) == want  # the planner does not archive anything twice


@pytest.mark.parametrize("kind", [
    pytest.param("link to /dev/zero", marks=pytest.mark.skipif(
        not os.path.exists("/dev/zero"), reason="no /dev/zero on this platform")),
    pytest.param("FIFO", marks=pytest.mark.skipif(
        not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")),
    "folder"])
def test_a_journal_that_is_not_a_file_is_voided_without_reading_it(
        crashed: tuple[Path, dict[str, bytes]], tmp_path: Path, kind: str) -> None:
    """Catches: the journal read whole whatever it is (a link to /dev/zero ran a put out of
    memory; a FIFO would block it), where the caches are read with fsutil's bounded read."""
    base, _ = crashed
    root = tmp_path / "m"
    shutil.copytree(base, root)
    journal = _journal(root)
    journal.unlink()
    if kind == "FIFO":
        os.mkfifo(journal)
    elif kind == "folder":
        journal.mkdir()
    else:
        journal.symlink_to("/dev/zero")
    r = run_cli("put", "quirks", "tox recreates envs when tox.ini changes", cwd=root)
    assert r.returncode == 0, r.stderr
    if kind != "folder":  # a folder cannot be unlinked; it is voided on every write instead
        assert not os.path.lexists(journal)
        r = run_cli("compact", cwd=root)
        assert r.returncode == 0 and not os.path.lexists(journal), r.stderr


def test_a_put_after_a_damaged_journal_stores_the_entry(
        crashed: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    """A put is the usual next write. Catches: the put refused, or the journal kept."""
    base, _ = crashed
    root = tmp_path / "m"
    shutil.copytree(base, root)
    _journal(root).write_bytes(b'{"v": "lean_memory.compaction-journal/1", "files": [')
    r = run_cli("put", "quirks", "tox recreates envs when tox.ini changes", cwd=root)
    assert r.returncode == 0, r.stderr
    assert not _journal(root).exists()
    assert "tox recreates envs" in (root / ".agents" / "memory" / "quirks.md").read_text(
        encoding="utf-8")


def test_a_journal_voided_by_a_hand_edit_keeps_the_edit(
        crashed: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    """A shard edited by hand after the crash: the journal no longer describes it, so it is
    not replayed over the edit. Catches: the journal applied without its before-check."""
    base, _ = crashed
    root = tmp_path / "m"
    shutil.copytree(base, root)
    data = json.loads(unsealed(COMPACTION_JOURNAL, _journal(root).read_bytes()) or b"")
    shard = next(f["shard"] for f in data["files"] if not f["archive"])
    path = root / ".agents" / "memory" / f"{shard}.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## Typed by hand\nkept.\n",
                    encoding="utf-8")
    mem = Memory(root)
    assert not compaction.recover(mem)
    assert "## Typed by hand\nkept." in path.read_text(encoding="utf-8")
    mem.compact()
    ids = [e.id for e in mem.entries(archive=True)]
    assert len(ids) == len(set(ids))
    assert any(e.title == "Typed by hand" for e in mem.entries(archive=True) + mem.entries())


def test_a_sound_journal_finishes_the_compaction(
        crashed: tuple[Path, dict[str, bytes]], tmp_path: Path) -> None:
    """The control: the same journal undamaged is replayed, and then the files are those of
    a clean compaction."""
    base, want = crashed
    root = tmp_path / "m"
    shutil.copytree(base, root)
    assert compaction.recover(Memory(root))
    assert not _journal(root).exists() and _files(root) == want
