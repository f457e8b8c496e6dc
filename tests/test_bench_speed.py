"""bench/speed/run.py: its goal verdicts, its sizes, and the child's own peak RSS."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, load_bench


def _speed() -> Any:
    return load_bench("speed/run.py", "speed_run_bench")


def test_sizes_are_read_with_k() -> None:
    run = _speed()
    assert [run.parse_size(s) for s in ("1k", "10K", "100k", "2500", "1.5k")] == \
        [1000, 10_000, 100_000, 2500, 1500]


@pytest.mark.parametrize(("key", "n", "meds", "met"), [
    ("warm", 1000, {"warm": 19.9, "pass": 10.0}, True),
    ("warm", 1000, {"warm": 20.1, "pass": 10.0}, False),
    ("hook", 10_000, {"hook": 29.0, "pass": 10.0}, True),
    ("after_put", 10_000, {"after_put": 41.0, "pass": 10.0}, False),
    ("warm", 100_000, {"warm": 99.0, "fts5": 100.0, "pass": 1.0}, True),
    ("status", 100_000, {"status": 101.0, "fts5": 100.0, "pass": 200.0}, False),
    ("after_put", 100_000, {"after_put": 199.0, "fts5": 100.0, "pass": 10.0}, True),
    ("put", 100_000, {"put": 101.0, "pass": 10.0}, False),
    ("cold", 1000, {"cold": 49.0, "pass": 10.0}, True),
    ("cold", 10_000, {"cold": 601.0, "rank_bm25": 600.0, "pass": 10.0}, False),
    ("cold", 100_000, {"cold": 2999.0, "pass": 10.0}, True),
    ("import", 1000, {"import": 1.2, "pass": 10.0}, False),
    ("rss", 100_000, {"rss": 63.0}, True),
    ("rss", 100_000, {"rss": 65.0}, False),
    ("cold", 10_000, {"cold": 601.0, "pass": 10.0}, None),  # no reference measured
    ("put_nocache", 10_000, {"put_nocache": 1.0, "pass": 10.0}, None),  # no goal
])
def test_goals_follow_the_issue(key: str, n: int, meds: dict[str, float],
                                met: bool | None) -> None:
    assert _speed().goal_of(key, n, meds)[2] is met


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM and wait4: Linux")
def test_peak_rss_is_the_childs_own_not_the_benchmarks(tmp_path: Path) -> None:
    """A child forked from a large process would report that process's RSS (Linux keeps the
    pre-exec peak); the launcher reports what the child itself used."""
    run = _speed()
    ballast = b"x" * (160 << 20)  # this process: over 160 MiB resident
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    launcher = run.Launcher(sys.executable, env, tmp_path / "err.txt")
    try:
        _, small, code, _ = launcher.run([sys.executable, "-c", "pass"], tmp_path, None, 60)
        assert code == 0 and small < 100 << 10  # KiB
        _, big, code, _ = launcher.run(
            [sys.executable, "-c", "b = b'y' * (120 << 20)"], tmp_path, None, 60)
        assert code == 0 and big >= 120 << 10
        _, _, code, tail = launcher.run(
            [sys.executable, "-c", "import sys; sys.exit('refused: bad input')"], tmp_path,
            None, 60)
        assert (code, tail) == (1, "refused: bad input")
        _, _, code, _ = launcher.run(
            [sys.executable, "-c", "import time; time.sleep(60)"], tmp_path, None, 0.5)
        assert code == -9  # the timeout guard killed it
    finally:
        launcher.close()
    assert len(ballast) == 160 << 20
