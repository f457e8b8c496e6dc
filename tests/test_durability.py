"""Nothing is lost: concurrent writers and writers killed at random moments."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lean_memory import Memory

from .conftest import ROOT, load_bench

WRITER = """
import sys
from lean_memory import Memory
m = Memory(sys.argv[1])
tag, count = sys.argv[2], int(sys.argv[3])
shards = m.shards
for i in range(count):
    e = m.put_entry(shards[i % len(shards)], f"writer {tag} fact {i}: keep this line",
                    date="2026-01-01")
    print(f"ack {tag} {i} {e.id}", flush=True)
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_parallel_writers_lose_and_duplicate_nothing(mem: Memory) -> None:
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(mem.root), str(w), "25"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
             for w in range(4)]
    acked = set()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        acked |= {tuple(line.split()[1:3]) for line in out.decode().splitlines()}
    entries = mem.entries()
    assert len(acked) == 100
    assert len(entries) == 100
    assert len({e.id for e in entries}) == 100
    assert {e.text for e in entries} == {f"writer {w} fact {i}: keep this line"
                                          for w, i in acked}


def _bench() -> Any:
    """bench/durability/bench.py, whose scenarios run here at a smaller scale."""
    return load_bench("durability/bench.py", "durability_bench")


posix_only = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


@posix_only
def test_puts_killed_at_random_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    """Writers killed at random moments (compaction runs too), each unacknowledged put
    retried: every shard and archive parses, nothing acknowledged is lost, nothing is
    there twice."""
    fig = _bench().kill_puts(tmp_path, 12, random.Random(20261130))
    assert fig.ok, fig.line()


@posix_only
def test_compactions_killed_at_random_converge_on_the_next_run(tmp_path: Path) -> None:
    fig = _bench().kill_compactions(tmp_path, 5, random.Random(7))
    assert fig.ok, fig.line()


@posix_only
def test_merge_driver_killed_at_random_leaves_a_whole_file(tmp_path: Path) -> None:
    fig = _bench().kill_merges(tmp_path, 5, random.Random(11))
    assert fig.ok, fig.line()


def test_readers_never_fail_while_writers_and_compaction_run(tmp_path: Path) -> None:
    fig = _bench().concurrent(tmp_path, 3, 20, 1)
    assert fig.reads > 0
    assert fig.ok, fig.line()
