"""Nothing is lost: concurrent writers and writers killed at random moments."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from lean_memory import Memory

from .conftest import ROOT

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
             for w in range(8)]
    acked = set()
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
        acked |= {tuple(line.split()[1:3]) for line in out.decode().splitlines()}
    entries = mem.entries()
    assert len(acked) == 200
    assert len(entries) == 200
    assert len({e.id for e in entries}) == 200
    assert {e.text for e in entries} == {f"writer {w} fact {i}: keep this line"
                                          for w, i in acked}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_writer_killed_at_random_moments_leaves_every_shard_parseable(mem: Memory) -> None:
    rng = random.Random(20261130)
    acked: set[str] = set()
    for round_ in range(50):
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(mem.root), f"r{round_}", "1000"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_env())
        time.sleep(rng.uniform(0.05, 0.4))
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        for line in out.decode().splitlines():
            _, tag, i, _id = line.split()
            acked.add(f"writer {tag} fact {i}: keep this line")
        texts = {e.text for e in Memory(mem.root).entries()}  # every shard still parses
        assert acked <= texts
    assert len(acked) > 0
    assert len(Memory(mem.root).entries()) >= len(acked)
