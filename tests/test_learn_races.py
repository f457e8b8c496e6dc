"""Issue 34, item 6: racing processes. On main ea4449c six distills at once wrote 15
summaries for 6 sessions (one each when run in turn), and a session at its 200-ask cap was
rewritten without a lock: simultaneous prompts lost 2 of the 8 newest asks. Real processes
(multiprocessing, spawn), started together behind a barrier; the verdicts are counts, never
times."""

from __future__ import annotations

import multiprocessing as mp
import os
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import learn
from lean_memory.layers import session_home

SESSIONS = 6
RACERS = 6
NEWEST = 8


@pytest.fixture
def mem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> lean_memory.Memory:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("LEAN_MEMORY_GLOBAL", raising=False)
    (tmp_path / "home").mkdir()
    m = lean_memory.Memory(tmp_path / "proj")
    (tmp_path / "proj").mkdir()
    m.init()
    return m


def _distill(root: str, env: dict[str, str], barrier: Any, out: Any) -> None:
    os.environ.update(env)
    barrier.wait()
    done = learn.distill(lean_memory.Memory(root), now="2026-02-01T00:00:00Z")
    out.put(sorted(s.session for s in done))


def _record(root: str, env: dict[str, str], barrier: Any, n: int) -> None:
    os.environ.update(env)
    barrier.wait()
    learn.record(lean_memory.Memory(root), "capped", f"newest ask number {n}",
                 f"2026-01-02T00:00:{n:02d}Z")


def _env() -> dict[str, str]:
    return {k: os.environ[k] for k in ("HOME", "XDG_DATA_HOME")}


def test_racing_distills_write_one_summary_per_session(mem: lean_memory.Memory) -> None:
    """Catches: two distills folding the same session (a summary each), or one fold lost."""
    for s in range(SESSIONS):
        for n in range(3):
            learn.record(mem, f"s{s}", f"look into problem {s}-{n} of the exporter",
                         f"2026-01-0{s + 1}T09:0{n}:00Z")
    ctx = mp.get_context("spawn")
    barrier, out = ctx.Barrier(RACERS), ctx.Queue()
    procs = [ctx.Process(target=_distill, args=(str(mem.root), _env(), barrier, out))
             for _ in range(RACERS)]
    for p in procs:
        p.start()
    folded = [out.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    assert sorted(s for got in folded for s in got) == [f"s{s}" for s in range(SESSIONS)]
    store = learn.session_store(mem)
    assert store is not None
    summaries = store.entries("sessions")
    assert len(summaries) == SESSIONS
    assert len({t for e in summaries for t in e.tags if t.startswith("s-")}) == SESSIONS
    assert learn.load_asks(session_home(mem.root)) == []
    assert len(learn.load_asks(session_home(mem.root), archived=True)) == 3 * SESSIONS


def test_racing_prompts_at_the_cap_lose_no_ask(mem: lean_memory.Memory) -> None:
    """Catches: the rewrite at the 200-ask cap racing an append (an ask lost), and the cap
    not holding after the race."""
    cap = learn.R.MAX_ASKS_PER_SESSION
    for n in range(cap):
        learn.record(mem, "capped", f"older ask {n}", f"2026-01-01T{n // 60:02d}:{n % 60:02d}:00Z")
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(NEWEST)
    procs = [ctx.Process(target=_record, args=(str(mem.root), _env(), barrier, n))
             for n in range(NEWEST)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=300)
        assert p.exitcode == 0
    kept = learn.load_asks(session_home(mem.root), session="capped")
    assert len(kept) == cap
    assert {a.text for a in kept} >= {f"newest ask number {n}" for n in range(NEWEST)}
    assert [a.text for a in kept[-NEWEST:]] == [f"newest ask number {n}" for n in range(NEWEST)]
