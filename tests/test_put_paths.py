"""The fast append path of put writes exactly what the general path writes."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import Memory, putstate, store
from lean_memory import format as fmt
from lean_memory.putstate import Summary
from lean_memory.summaries import COST_SIG

from .conftest import run_cli, snapshot
from .test_put_path import plain

WORDS = ["cache", "build", "windows", "flaky", "upload", "retry", "docker", "port", "5432",
         "parse_config", "lib/config.py", "not", "never", "the", "a", "timeout", "v3.11"]

op = st.tuples(
    st.sampled_from(["seed", "quirks"]),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join),
    st.sampled_from(["put", "put", "put", "new", "hand", "tail", "crlf"]),
)


def run(root: Path, ops: list[tuple[str, str, str]]) -> list[tuple[str, str, str | None]]:
    mem = Memory(root)
    mem.init()
    out = []
    for i, (shard, text, how) in enumerate(ops):
        date = f"2026-01-{1 + i % 28:02d}"
        path = mem.shard_path(shard)
        if how == "hand":
            path.write_text(fmt.ensure_separated(path.read_text()) + f"## {text}\n{text}\n")
            continue
        if how == "tail":  # a hand edit that leaves no blank line at the end
            path.write_text(path.read_text().rstrip("\n") + "\nmore words\n")
            continue
        body = text.replace(" ", "\r\n", 1) if how == "crlf" else text
        e = Memory(root).put_entry(shard, body, date=date, new=how == "new")
        out.append((e.id, e.text, e.get("said_again")))
    return out


def assert_summaries_fresh(mem: Memory) -> dict[str, Summary]:
    """The summaries the store has (cached, tails included) are those a fresh parse gives."""
    cached = mem._summaries({})
    for name in mem.shards:
        fresh = Summary.of(mem.read_shard(name))
        got = cached[name]
        assert (got.tokens, got.links, got.hand, got.preamble_tokens) == (
            fresh.tokens, fresh.links, fresh.hand, fresh.preamble_tokens)
        assert [c[:COST_SIG] for c in got.costs] == [c[:COST_SIG] for c in fresh.costs]
    return cached


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=25))
def test_fast_and_general_paths_write_the_same(ops: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fast_root, slow_root = Path(tmp) / "fast", Path(tmp) / "slow"
        fast = run(fast_root, ops)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Memory, "_put_summarized", lambda self, *a, **k: None)
            mp.setattr(Memory, "_put_quick", lambda self, *a, **k: None)
            slow = run(slow_root, ops)
        assert fast == slow
        assert snapshot(fast_root / ".agents") == snapshot(slow_root / ".agents")
        # the summaries the fast path recorded are those a fresh parse gives
        assert_summaries_fresh(Memory(fast_root))


# Ops that end with a put: a hand edit last drops the put state (there is then nothing to
# compare), so every example reaches the checks (before, ~40 % of them returned early).
ops_ending_with_a_put = st.tuples(
    st.lists(op, max_size=24),
    st.tuples(st.sampled_from(["seed", "quirks"]),
              st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join),
              st.sampled_from(["put", "new", "crlf"])),
).map(lambda t: [*t[0], t[1]])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops_ending_with_a_put, st.integers(1, 4))
def test_the_put_state_and_stats_tails_match_a_fresh_summary(
        ops: list[tuple[str, str, str]], tail_max: int) -> None:
    """The quick put keeps no summary whole: the stats tails (merged every few entries
    here) and the put state must say what summarising the shards afresh says. Catches: a
    put state that disagrees with a fresh summary, in every example (none returns early)."""
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        mp.setattr(putstate, "_TAIL_MAX", tail_max)
        root = Path(tmp)
        run(root, ops)
        mem = Memory(root)
        state = mem._load_state()
        cached = assert_summaries_fresh(mem)
        archived = mem._summaries({}, archive=True)
        assert state is not None  # a put came last: it saved its state
        was = plain(state)  # read before the put state file is rewritten below
        again = Memory(root)
        again._summaries({})
        again._links(cached)
        again._save_state(mem._status_of(cached, archived))
        fresh_state = again._load_state()
        assert fresh_state is not None
        # the sets as sets (membership is what counts); the heads the same, but for the
        # line ends a quick put counted (None when not yet)
        assert plain(fresh_state) == was
        for name, head in zip(mem.shards, state.heads, strict=True):
            assert head.lines in (None, fmt.count_lines(mem.read_text(mem.shard_path(name))))
        assert state.rows == tuple((r.description, r.entries, r.superseded, r.tokens)
                                 for r in mem._status({}).shards)
        assert mem.status() == mem._status({})  # status reads the rows of the put state


def test_a_large_shard_is_appended_to_from_its_end(tmp_path: Path) -> None:
    """Over 64 KiB, a quick put reads only the shard's end and has the kernel copy the
    rest: the same bytes and line numbers as the general path."""
    big = "".join(f"## Fact {i}\nthe build cache note {i} " + "word " * 80 + "\n\n"
                  for i in range(200))
    results = []
    for quick in (True, False):
        root = tmp_path / str(quick)
        mem = Memory(root)
        mem.init()
        path = mem.shard_path("seed")
        path.write_text(path.read_text() + big)
        taken: list[object] = []
        with pytest.MonkeyPatch.context() as mp:
            if quick:
                real = Memory._put_quick

                def spy(self: Memory, *args: object, log: list[object] = taken,
                        real: Any = real, **kwargs: object) -> object:
                    log.append(real(self, *args, **kwargs))
                    return log[-1]

                mp.setattr(Memory, "_put_quick", spy)
            else:
                mp.setattr(Memory, "_put_quick", lambda self, *a, **k: None)
                mp.setattr(Memory, "_put_summarized", lambda self, *a, **k: None)
            got = [Memory(root).put_entry("seed", f"new fact {i} about docker port {i}",
                                          date="2026-01-02") for i in range(4)]
        assert not quick or (len(taken) == 3 and None not in taken)
        results.append(([(e.id, e.line) for e in got], snapshot(root / ".agents")))
    assert results[0] == results[1]
    assert [e.line for e in Memory(tmp_path / "True").entries("seed")][-4:] == \
        [line for _, line in results[0][0]]


@pytest.mark.parametrize("quick", [True, False])
def test_the_fast_paths_are_taken(mem: Memory, monkeypatch: pytest.MonkeyPatch,
                                  quick: bool) -> None:
    mem.put_entry("seed", "first fact about the build cache", date="2026-01-01")
    mem.put_entry("seed", "second fact about docker ports", date="2026-01-02")

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("a shard was parsed or a summary loaded")

    monkeypatch.setattr(Memory, "_put_parsed", refused)
    if quick:  # no summary at all: the put state stands for them
        monkeypatch.setattr(Memory, "_summaries", refused)
        monkeypatch.setattr(Memory, "_put_summarized", refused)
    else:
        monkeypatch.setattr(Memory, "_put_quick", lambda self, *a, **k: None)
    e = Memory(mem.root).put_entry("quirks", "third fact about flaky uploads", date="2026-01-03")
    f = Memory(mem.root).put_entry("seed", "fourth fact about the cache", date="2026-01-03")
    monkeypatch.undo()
    assert [x.id for x in mem.entries("quirks")][-1] == e.id
    assert (e.line, f.line) == (mem.entries("quirks")[-1].line, mem.entries("seed")[-1].line)
    assert Memory(mem.root).status() == Memory(mem.root)._status({})


# -- all or nothing, safe to repeat (ADR 0015) --------------------------------------------------


@pytest.mark.parametrize("fast", [True, False])
def test_an_index_over_its_cap_refuses_the_put_before_writing(tmp_path: Path,
                                                              fast: bool) -> None:
    from lean_memory import LeanMemoryError

    mem = Memory(tmp_path)
    mem.init()
    mem.put_entry("quirks", "the build cache breaks on windows path length", date="2026-01-01")
    if not fast:  # a hand-written entry sends the put down the general path
        path = mem.shard_path("quirks")
        path.write_text(path.read_text() + "## By hand\nwritten by hand\n")
    (tmp_path / ".agents" / "config.toml").write_text("[memory]\nmax_index_tokens = 100\n")
    before = snapshot(tmp_path / ".agents" / "memory")
    with pytest.raises(LeanMemoryError, match=r"INDEX\.md would be"):
        Memory(tmp_path).put_entry("quirks", "docker needs the platform flag on arm macs",
                                   date="2026-01-02")
    assert snapshot(tmp_path / ".agents" / "memory") == before


def test_a_retried_correction_is_stored_once(tmp_path: Path) -> None:
    mem = Memory(tmp_path)
    mem.init()
    wrong = mem.put_entry("quirks", "the api listens on port 8080", date="2026-01-01")
    fix = mem.put_entry("corrections", "the api listens on port 8443, not 8080",
                        supersedes=wrong.id, date="2026-01-02")
    again = Memory(tmp_path).put_entry("corrections", "the api listens on port 8443, not 8080",
                                       supersedes=wrong.id, date="2026-01-03")
    assert again.id == fix.id
    assert [e.id for e in mem.entries("corrections")] == [fix.id]


def test_a_correction_retried_after_a_crash_at_any_write_is_stored_once(tmp_path: Path) -> None:
    from .crashpoints import COMPLETED, copy, run

    base = tmp_path / "base"
    mem = Memory(base)
    mem.init()
    for i in range(4):  # a hand-written entry too: both put paths are crossed
        mem.put_entry("corrections", f"earlier correction {i} about the deploy order",
                      date="2026-01-01")
    wrong = mem.put_entry("quirks", "the api listens on port 8080", date="2026-01-01")
    args = ("put", "--supersedes", wrong.id, "--date", "2026-01-02", "corrections",
            "the api listens on port 8443, not 8080")
    for hand in (False, True):
        if hand:
            path = mem.shard_path("corrections")
            path.write_text(path.read_text() + "## By hand\nwritten by hand\n")
        limit = 0
        while True:
            limit += 1
            trial = copy(base, tmp_path / f"h{hand}{limit}")
            code = run(trial, limit, "kill", *args)
            if code == COMPLETED:
                break
            assert code == 137
            r = run_cli(*args, cwd=trial)
            assert r.returncode == 0, r.stderr
            fixes = [e for e in Memory(trial).entries("corrections") if e.supersedes]
            assert len(fixes) == 1, f"crash point {limit}"
        assert limit >= 4


@pytest.mark.parametrize("kernel", [True, False])
def test_atomic_write_copies_a_head_of_another_file(tmp_path: Path, kernel: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    from lean_memory.fsutil import atomic_write

    if not kernel:  # platforms without copy_file_range read and write
        monkeypatch.delattr(os, "copy_file_range", raising=False)
    src = tmp_path / "src"
    src.write_bytes(bytes(range(256)) * 5000)
    dst = tmp_path / "dst"
    dst.write_bytes(b"old")
    with src.open("rb") as fh:
        atomic_write(dst, b"tail", head=(fh.fileno(), 1_000_003))
        assert dst.read_bytes() == src.read_bytes()[:1_000_003] + b"tail"
        with pytest.raises(OSError):  # the source is shorter: nothing is replaced
            atomic_write(dst, b"x", head=(fh.fileno(), 2_000_000))
    assert dst.read_bytes() == src.read_bytes()[:1_000_003] + b"tail"


@pytest.mark.parametrize("puts_before", [0, 1, 3])  # the general put, then the fast ones
def test_a_hand_edit_right_after_a_put_is_never_taken_for_the_puts_own(
        mem: Memory, monkeypatch: pytest.MonkeyPatch, puts_before: int) -> None:
    for i in range(puts_before):
        mem.put_entry("quirks", f"Port {5400 + i} is taken by the dev database",
                      date="2026-01-02")
    real = store.atomic_write
    edited: list[Path] = []

    def write_then_edit(path: str | Path, data: str | bytes, **kw: Any) -> tuple[int, int, int]:
        sig = real(path, data, **kw)
        path = Path(path)  # the package passes strings (os.path): no pathlib inside
        if path.name == "quirks.md" and not edited:  # a hand edit lands right after the write
            edited.append(path)
            path.write_text(path.read_text() + "\n## Hand typed\nAdded in an editor.\n")
        return sig

    monkeypatch.setattr(store, "atomic_write", write_then_edit)
    mem.put_entry("quirks", "Docker needs the compose v2 plugin", date="2026-01-03")
    monkeypatch.setattr(store, "atomic_write", real)
    assert edited
    for m in (mem, Memory(mem.root)):  # this process's memory, and a new one's caches
        row = next(s for s in m.status().shards if s.name == "quirks")
        assert row.entries == puts_before + 2
    mem.put_entry("quirks", "Redis listens on 6380 here", date="2026-01-04")
    text = mem.shard_path("quirks").read_text()
    assert "Added in an editor." in text and "Redis listens on 6380" in text
    assert [e.title for e in Memory(mem.root).entries("quirks")][-2:] == [
        "Hand typed", "Redis listens on 6380 here"]
    row = next(s for s in Memory(mem.root).status().shards if s.name == "quirks")
    assert row.entries == puts_before + 3
