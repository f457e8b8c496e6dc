"""Compaction speed on a synthetic memory of N entries (default 10,000).

    python bench/compaction/bench.py [--entries 10000] [--runs 5] [--budget 8000]

The memory is deterministic (seeded): six shards, entries of 15 to 120 words of agent-like
prose with paths, identifiers and version numbers, dated over three years, 5% of them
superseded, 2% hand-written (no metadata line). Shards are written directly with the format
module (10,000 `put`s would measure `put`, not compaction).

Measured, each on a fresh copy of the memory, median of ``--runs``:

* in-process ``compact(mem)`` and ``compact(mem, dry_run=True)``;
* in-process ``compact`` again on the compacted copy (the idempotent no-op);
* whole process ``python -m lean_memory compact`` and ``python -c pass`` in the same run,
  with their ratio (interpreter start-up is the floor of any command).

Also printed: tokens before/after, the target, entries folded and the detail level chosen per
shard, and a determinism check (two copies compacted separately give the same bytes).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from lean_memory import Memory  # noqa: E402
from lean_memory import format as fmt  # noqa: E402
from lean_memory.compaction import compact  # noqa: E402

PY = sys.executable
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
       "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
ENV.pop("LEAN_MEMORY_ROOT", None)

_PROSE = ("the build fails when the cache is stale so clear it before running tests on the "
         "runner and check that the config matches what the deploy script expects because "
         "retries hide timeouts and flaky fixtures make the lockfile drift after a rebase "
         "of the release branch while the migration runs against the schema index")
WORDS = _PROSE.split()
NAMES = ("src/app/config.py", "parse_config", "ECONNREFUSED", "HTTP 429", "3.11.7", "E0502",
         "tests/test_api.py", "docker-compose.yml", "pyproject.toml", "fetchUserProfile",
         "CI_TOKEN_SCOPE", "v2.4.1", "node_modules/.cache", "make lint")
SHARDS = ("seed", "failures", "corrections", "insights", "conventions", "quirks")


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    for _ in range(max(1, n // 15)):
        words.insert(rng.randrange(len(words)), f"`{rng.choice(NAMES)}`")
    return " ".join(words).capitalize() + "."


def build(root: Path, n: int, budget: int) -> None:
    rng = random.Random(20261130)
    (root / ".agents").mkdir(parents=True)
    (root / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {budget}\n", encoding="utf-8")
    mem = Memory(root)
    mem.init()
    start = datetime.date(2023, 1, 1)
    per: dict[str, list[str]] = {s: [] for s in SHARDS}
    ids: dict[str, list[str]] = {s: [] for s in SHARDS}
    taken: set[str] = set()
    for i in range(n):
        shard = SHARDS[min(int(rng.paretovariate(1.5)) - 1, 5)]  # some shards much larger
        body = " ".join(sentence(rng, rng.randint(8, 40)) for _ in range(rng.randint(1, 3)))
        title = " ".join(body.split()[:8]).rstrip(".,`")
        date = (start + datetime.timedelta(days=i * 1095 // n)).isoformat()
        if rng.random() < 0.02:
            per[shard].append(f"## {title}\n\n{body}\n\n")
            continue
        sup = None
        if ids[shard] and rng.random() < 0.05:
            sup = rng.choice(ids[shard])
        e = fmt.Entry(id=fmt.new_id(shard, title, body, date, taken), shard=shard, title=title,
                      text=body, date=date, supersedes=sup)
        taken.add(e.id)
        ids[shard].append(e.id)
        per[shard].append(fmt.render_entry(e))
    for shard in SHARDS:
        path = mem.shard_path(shard)
        path.write_text(path.read_text(encoding="utf-8") + "".join(per[shard]),
                        encoding="utf-8")
    mem.index()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts}


def timed(fn: Callable[[], object]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--budget", type=int, default=8000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lm-compact-bench-"))
    try:
        base = work / "base"
        t = timed(lambda: build(base, args.entries, args.budget))
        st = Memory(base).status()
        print(f"memory: {st.entries:,} live entries, ~{st.total_tokens:,} tokens, "
              f"target {st.compact_threshold:,} (built in {t:.1f}s)")

        def fresh(name: str) -> Memory:
            dst = work / name
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(base, dst)
            return Memory(dst)

        dry, real, again = [], [], []
        report = None
        for r in range(args.runs):
            m = fresh(f"run{r}")
            dry.append(timed(partial(compact, m, dry_run=True)))
            t0 = time.perf_counter()
            report = compact(m)
            real.append(time.perf_counter() - t0)
            again.append(timed(partial(compact, m)))
        assert report is not None
        print(f"compact (in process): median {statistics.median(real) * 1000:.0f} ms; "
              f"dry run {statistics.median(dry) * 1000:.0f} ms; "
              f"again (no-op) {statistics.median(again) * 1000:.1f} ms")
        print(f"tokens {report.tokens_before:,} -> {report.tokens_after:,} "
              f"(target {report.target:,}, reached: {report.reached_target}); "
              f"folded {report.folded:,}")
        for s in report.shards:
            print(f"  {s.shard:12} folded {len(s.folded):5,} ({s.superseded} superseded), "
                  f"detail {s.detail:6}, ~{s.tokens_before:,} -> ~{s.tokens_after:,} tokens")
        a, b = fresh("det_a"), fresh("det_b")
        compact(a)
        compact(b)
        same = snapshot(a.root) == snapshot(b.root)
        print(f"two copies compacted separately identical: {same}")

        proc, noop = [], []
        for r in range(args.runs):
            m = fresh(f"proc{r}")
            cmd = [PY, "-m", "lean_memory", "--root", str(m.root), "compact"]
            t = time.perf_counter()
            done = subprocess.run(cmd, env=ENV, capture_output=True)
            proc.append(time.perf_counter() - t)
            if done.returncode:
                raise SystemExit(done.stderr.decode())
            t = time.perf_counter()
            subprocess.run([PY, "-c", "pass"], env=ENV, check=True)
            noop.append(time.perf_counter() - t)
        p, n = statistics.median(proc), statistics.median(noop)
        print(f"whole process: `python -m lean_memory compact` {p * 1000:.0f} ms, "
              f"`python -c pass` {n * 1000:.0f} ms, ratio {p / n:.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
