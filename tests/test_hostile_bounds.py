"""Bounded work on hostile input, and writers that never splice (issue 20, items 6-8).

Each test names the bug it catches; each fails on main 09d408f.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import InvalidEntry, LeanMemoryError, Memory, fsutil
from lean_memory import format as fmt
from lean_memory.merge import merge_shards

from .conftest import ROOT, run_cli, spy_quick

JOURNAL = "compaction.journal"


def _journal(mem: Memory) -> Path:
    return mem.cache_dir / JOURNAL


# -- the compaction journal ------------------------------------------------------------------

_LIMITED_PUT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from lean_memory.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.skipif(not os.path.exists("/dev/zero") or sys.platform == "darwin",
                    reason="needs /dev/zero and RLIMIT_AS")
def test_a_journal_linked_to_dev_zero_is_set_aside_not_read(tmp_path: Path) -> None:
    """The journal was read with read_bytes, through links and unbounded: a link to
    /dev/zero ran every write out of memory. Now it is refused unread, set aside (the link
    itself, renamed) and the put goes on. Run under a 1 GiB address-space limit."""
    mem = Memory(tmp_path)
    mem.init()
    _journal(mem).symlink_to("/dev/zero")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run([sys.executable, "-c", _LIMITED_PUT, "put", "insights",
                        "the zebra build needs a warm cache"], cwd=tmp_path, env=env,
                       capture_output=True, timeout=120, check=False)
    assert r.returncode == 0, r.stderr
    assert any(e.text == "the zebra build needs a warm cache" for e in Memory(tmp_path).entries())
    aside = mem.cache_dir / f"{JOURNAL}.damaged"
    assert aside.is_symlink() and os.readlink(aside) == "/dev/zero"
    assert not os.path.lexists(_journal(mem))


def test_a_deeply_nested_journal_never_blocks_writes(tmp_path: Path) -> None:
    """A 5,000-deep JSON journal raised an uncaught RecursionError in every writer, and
    stayed, so no put nor forget could ever succeed again. Now it is set aside with its
    bytes kept, and put and forget work (CLI, one process each)."""
    mem = Memory(tmp_path)
    mem.init()
    nested = ("[" * 5000 + "]" * 5000).encode()
    _journal(mem).write_bytes(nested)
    r = run_cli("put", "insights", "the zebra build needs a warm cache", "--json",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert b"Traceback" not in r.stderr
    assert (mem.cache_dir / f"{JOURNAL}.damaged").read_bytes() == nested
    stored = Memory(tmp_path).entries("insights")[-1]
    _journal(mem).write_bytes(nested)  # damaged again: the first one aside is kept too
    r = run_cli("forget", stored.id, "--reason", "no longer true", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (mem.cache_dir / f"{JOURNAL}.damaged-2").read_bytes() == nested
    archived = Memory(tmp_path).entries("insights", archive=True)
    assert [e.get("reason") for e in archived if e.id == stored.id] == ["no longer true"]


def test_forget_with_a_pending_journal_records_its_reason(tmp_path: Path) -> None:
    """A compaction killed between its archive and its shard write leaves a journal;
    `forget` of an entry it folded exited 0 and recorded no reason (the archive already
    held the entry, so the forgotten copy was skipped). Every writer now replays the
    journal first: the entry is archived by the compaction and forget says so."""
    from .crashpoints import copy, run
    from .test_compaction import _over_budget

    base = _over_budget(tmp_path / "base").root
    for limit in range(3, 12):
        trial = copy(base, tmp_path / f"t{limit}")
        run(trial, limit, "kill", "compact")
        mem = Memory(trial)
        live = {e.id for e in mem.entries()}
        both = [e.id for e in mem.entries(archive=True) if e.id in live]
        if _journal(mem).exists() and both:
            break
    else:
        pytest.fail("no crash point left an entry both live and archived")
    r = run_cli("forget", both[0], "--reason", "wrong all along", cwd=trial)
    archived = [e for e in Memory(trial).entries(archive=True) if e.id == both[0]]
    recorded = any(e.get("reason") == "wrong all along" for e in archived)
    assert (r.returncode == 0 and recorded) or \
        (r.returncode == 2 and b"in the archive" in r.stderr), (r.returncode, r.stderr)
    assert not _journal(mem).exists()
    assert both[0] not in {e.id for e in Memory(trial).entries()}


# -- tags --------------------------------------------------------------------------------------


class _Endless:
    """Tags without end; counts how many were taken."""

    def __init__(self) -> None:
        self.taken = 0

    def __iter__(self) -> Iterator[str]:
        while True:
            self.taken += 1
            if self.taken > 10_000:
                raise AssertionError("read 10,000 tags: no bound")
            yield f"tag{self.taken}"


def test_tags_are_bounded_in_count_and_size(mem: Memory) -> None:
    """Tags were outside every size guard (a 269k-token entry was stored through them)
    and deduplicated in O(n^2): now an endless list is refused after a bounded read, so
    are huge tags, with one clear error; nothing is written."""
    before = mem.shard_path("insights").read_bytes()
    endless = _Endless()
    with pytest.raises(InvalidEntry, match="too many tags"):
        mem.put_entry("insights", "a short fact", tags=endless)
    assert endless.taken <= 200
    with pytest.raises(InvalidEntry, match="too many tags"):
        mem.put_entry("insights", "a short fact", tags=["word " * 200_000])
    with pytest.raises(InvalidEntry, match="too many tags"):
        mem.put_entry("insights", "a short fact", tags=[f"t{i}" for i in range(100)])
    assert mem.shard_path("insights").read_bytes() == before
    stored = mem.put_entry("insights", "a short fact", tags=["b", "a", "b", " a ", "c"])
    assert stored.tags == ("b", "a", "c")  # each once, in the order given
    r = run_cli("put", "insights", "another fact", *(f"--tag=t{i}" for i in range(100)),
                cwd=mem.root)
    assert r.returncode == 2 and r.stderr.count(b"\n") == 1 and b"too many tags" in r.stderr


# -- a byte order mark -------------------------------------------------------------------------

_BOM_SHARD = ("\ufeff## Zebra crossing rule\n<!-- lean-memory: id=bom00001; date=2026-01-05 -->"
              "\n\nthe okapi deploy waits for the zebra crossing\n\n## Second\n"
              "<!-- lean-memory: id=bom00002; date=2026-01-06 -->\n\nplain fact\n\n")


def test_a_bom_before_the_first_heading_hides_nothing(mem: Memory) -> None:
    """A UTF-8 BOM before the first heading made that entry part of the preamble: search
    and get never found it. Now it is an entry, and the file's bytes stay as they were
    (the BOM included) when a put appends."""
    path = mem.shard_path("insights")
    path.write_bytes(_BOM_SHARD.encode())
    assert [e.id for e in mem.entries("insights")] == ["bom00001", "bom00002"]
    assert [h.entry.id for h in mem.search("okapi zebra")][:1] == ["bom00001"]
    r = run_cli("get", "--query", "okapi zebra", cwd=mem.root)
    assert r.returncode == 0 and b"the okapi deploy waits" in r.stdout, r.stderr
    mem.put_entry("insights", "a third fact about lint", new=True)
    assert path.read_bytes().startswith(_BOM_SHARD.encode())


@settings(max_examples=300)
@given(st.lists(st.sampled_from(["## ", "\n", "\r\n", "\r", "```", "~~~", "x", " ",
                                 "<!-- lean-memory: ", "id=a -->", "\ufeff"]),
                max_size=30).map("".join).filter(lambda t: not t.startswith("\ufeff")))
def test_a_bom_changes_no_entry(text: str) -> None:
    """With a BOM in front, a shard has the same entries as without, and renders back
    byte for byte."""
    plain, marked = fmt.parse(text, "s"), fmt.parse("\ufeff" + text, "s")
    assert marked.render() == "\ufeff" + text
    assert [(e.id, e.title, e.text, e.line) for e in marked.entries] == \
        [(e.id, e.title, e.text, e.line) for e in plain.entries]


# -- writers never splice ----------------------------------------------------------------------

_BODIES = [f"fact number {i}: the cache of runner {i} must be warmed before the build"
           for i in range(6)]


def _seeded(root: Path) -> Memory:
    mem = Memory(root)
    mem.init()
    for i, body in enumerate(_BODIES):
        mem.put_entry("insights", body, title=f"Fact {i}", new=True)
    return mem


def _edit_in_place(path: Path, filler: str) -> None:
    """An editor's save in place: the same inode rewritten, then truncated."""
    with open(path, "r+b") as fh:
        text = fh.read().decode()
        head, sep, rest = text.partition(_BODIES[0])
        fh.seek(0)
        fh.write(f"{head}{_BODIES[0]}{filler}{rest}".encode() if sep else text.encode())
        fh.truncate()


def _check_whole(mem: Memory, puts: list[str]) -> None:
    text = mem.shard_path("insights").read_text()
    shard = fmt.parse(text, "insights")
    assert text.count("\n## ") + text.startswith("## ") == len(shard.entries)
    bodies = [e.text for e in shard.entries]
    assert bodies[0].startswith(_BODIES[0])
    assert bodies[1:len(_BODIES)] == _BODIES[1:]
    assert bodies[len(_BODIES):] == puts  # none lost, none swallowed a heading


def test_a_quick_put_never_splices_an_edit_in_place(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """An editor saving the shard in place between the quick put's read of its end and the
    kernel copy of its head gave a file spliced from two versions (an entry lost its body
    and swallowed the next heading). The edit is injected at that exact moment; the put
    must notice, fall back to the general path and keep both the edit and the entry."""
    mem = _seeded(tmp_path)
    path = mem.shard_path("insights")
    real_copy = fsutil._copy_head
    edits = iter([" (edited: a longer body than before)"])

    def copy(src: int, dst: int, length: int) -> None:
        filler = next(edits, None)
        if filler is not None:
            _edit_in_place(path, filler)
        real_copy(src, dst, length)

    monkeypatch.setattr(fsutil, "_copy_head", copy)
    quick = spy_quick(monkeypatch)
    stored = mem.put_entry("insights", "a new fact about the lint hook", new=True)
    assert quick == [None]  # the quick path ran, saw the change and gave way
    _check_whole(Memory(tmp_path), ["a new fact about the lint hook"])
    assert "(edited: a longer body than before)" in path.read_text()
    assert stored.id in {e.id for e in Memory(tmp_path).entries("insights")}


def test_quick_puts_racing_an_editor_thread_never_splice(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of the report (an editor thread saving in place while puts run), made to
    hit every time: the copy step waits for the editor's save. Bounded rounds; the edits
    grow and shrink the shard. No entry may lose its body or swallow a heading."""
    mem = _seeded(tmp_path)
    path = mem.shard_path("insights")
    real_copy = fsutil._copy_head
    want, done = threading.Event(), threading.Event()
    stop = threading.Event()
    fillers = [" grown by the editor " * (1 + r % 3) if r % 2 else "" for r in range(12)]
    errors: list[BaseException] = []

    def editor() -> None:
        try:
            for filler in fillers:
                if not want.wait(30) or stop.is_set():
                    return
                want.clear()
                with open(path, "r+b") as fh:  # undo the last edit, make this one
                    text = fh.read().decode()
                    start = text.index(_BODIES[0]) + len(_BODIES[0])
                    end = text.index("\n\n", start)
                    fh.seek(0)
                    fh.write((text[:start] + filler + text[end:]).encode())
                    fh.truncate()
                done.set()
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)
            done.set()

    def copy(src: int, dst: int, length: int) -> None:
        want.set()
        assert done.wait(30)
        done.clear()
        real_copy(src, dst, length)

    monkeypatch.setattr(fsutil, "_copy_head", copy)
    quick = spy_quick(monkeypatch)
    thread = threading.Thread(target=editor, daemon=True)
    thread.start()
    puts = [f"round {r}: the proxy of stage {r} times out after a retry" for r in range(12)]
    try:
        for text in puts:
            mem.put_entry("insights", text, new=True)
    finally:
        stop.set()
        want.set()
        thread.join(30)
    assert not errors
    assert len(quick) == len(puts) and all(q is None for q in quick)
    _check_whole(Memory(tmp_path), puts)


# -- the merge driver: said again ----------------------------------------------------------------

_BASE = ("# Insights\n\n## Warm the cache\n<!-- lean-memory: id=abcd1234; date=2026-01-01 -->\n"
         "\nWarm the build cache before the tests.\n\n")


def _said(title: str, count: int) -> str:
    return _BASE.replace("## Warm the cache", f"## {title}").replace(
        "date=2026-01-01", f"date=2026-01-01; said_again={count}; last_said=2026-02-0{count}")


def test_two_independent_said_agains_count_twice_when_the_entry_also_changed() -> None:
    """Each side said the entry again once and one side also retitled it: the merge kept
    said_again=1 (equal on both sides, taken as one change) where two were said."""
    merged = merge_shards(_BASE, _said("Warm the build cache", 1),
                          _said("Warm the cache", 1), "insights", scan=False)
    assert merged.clean
    entry = fmt.parse(merged.text, "insights").entries[0]
    assert entry.title == "Warm the build cache"
    assert entry.get("said_again") == "2"
    # one side twice, the other once: three; the same change on both sides: once
    merged = merge_shards(_BASE, _said("Warm the build cache", 2), _said("Warm the cache", 1),
                          "insights", scan=False)
    assert fmt.parse(merged.text, "insights").entries[0].get("said_again") == "3"
    same = _said("Warm the cache", 1)
    assert fmt.parse(merge_shards(_BASE, same, same, "insights", scan=False).text,
                     "insights").entries[0].get("said_again") == "1"


# -- lone surrogates ---------------------------------------------------------------------------


@pytest.mark.parametrize("args", [("--title", "\udcff"), ("--tag", "ok"), ("--tag", "a\udcff")])
def test_a_lone_surrogate_title_or_tag_is_one_clear_error(mem: Memory,
                                                          args: tuple[str, str]) -> None:
    """Undecodable bytes on the command line (a lone surrogate in Python) in a title or a
    tag ended in an internal error (UnicodeEncodeError); now one line and exit 2, and a
    clear LeanMemoryError from the API. ("--tag ok" checks the run itself works.)"""
    before = mem.shard_path("insights").read_bytes()
    r = run_cli("put", "insights", "a fact about the lint hook", *args, cwd=mem.root)
    if args[1] == "ok":
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2, r.stderr
    assert r.stderr.count(b"\n") == 1 and b"lone surrogate" in r.stderr
    assert b"internal error" not in r.stderr
    assert mem.shard_path("insights").read_bytes() == before
    kwargs = {"title": args[1]} if args[0] == "--title" else {"tags": [args[1]]}
    with pytest.raises(LeanMemoryError, match="lone surrogate"):
        mem.put_entry("insights", "a fact about the lint hook", **kwargs)  # type: ignore[arg-type]


def test_a_change_the_times_cannot_show_is_caught_by_the_bytes(tmp_path: Path) -> None:
    """Within a file system's time stamp granularity an edit in place can keep the size,
    mtime and ctime: the quick put then compares the bytes it read (the end) and copied
    (the head) with the file's; only when the times are old enough do they decide."""
    from lean_memory.store import _unchanged

    src, tmp = tmp_path / "shard", tmp_path / "tmp"
    src.write_bytes(b"0123456789abcdef")
    tmp.write_bytes(b"0123456789" + b"new entry")
    with open(src, "rb") as s, open(tmp, "rb") as t:
        st = os.fstat(s.fileno())
        fresh = time.time_ns()
        assert _unchanged(s.fileno(), st, fresh, t.fileno(), 10, b"abcdef", 10)
        assert not _unchanged(s.fileno(), st, fresh, t.fileno(), 10, b"abcdeX", 10)
        assert not _unchanged(s.fileno(), st, fresh, t.fileno(), 8, b"XXabcdef", 10)
        old = max(st.st_mtime_ns, st.st_ctime_ns) + 3_000_000_000
        assert _unchanged(s.fileno(), st, old, t.fileno(), 10, b"abcdeX", 10)
    with open(src, "r+b") as s, open(tmp, "rb") as t:
        st = os.fstat(s.fileno())
        os.pwrite(s.fileno(), b"9", 0)  # the head changed
        os.utime(s.fileno(), ns=(st.st_atime_ns, st.st_mtime_ns))
        assert not _unchanged(s.fileno(), st, time.time_ns(), t.fileno(), 10, b"abcdef", 10)
