"""Whole-process cost of `put`, `get <shard>`, `get --query`, `status` against `python -c pass`.

    python bench/store_bench.py [--sizes 1000 10000 [100000]] [--runs 11]

Builds synthetic memories (entries spread over the six default shards, realistic lengths),
then times each command as a fresh process, cold where it matters, and reports medians
and ratios to a bare interpreter start measured in the same run. Also prints
`python -X importtime -c "import lean_memory"` (self + cumulative of the package).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lean_memory import Memory  # noqa: E402
from lean_memory import format as fmt  # noqa: E402

WORDS = (
    "build", "test", "cache", "flaky", "windows", "linux", "macos", "docker", "postgres", "redis",
    "timeout", "retry", "config", "parse", "token", "index", "shard", "entry", "error", "warning",
    "module", "import", "path", "file", "lock", "commit", "branch", "merge", "rebase", "deploy",
    "release", "version", "python", "node", "rust", "compile", "link", "memory", "budget",
    "compaction", "archive", "query", "search", "ranking", "tokenizer", "stemmer",
)
IDENTS = ("parse_config", "HTTPServerError", "test_upload", "os.path.join", "ECONNREFUSED",
          "lib/vault/digest.js", "E0502", "3.11.7", "ModuleNotFoundError", "getUserById")


def synthetic_text(rng: random.Random) -> tuple[str, str]:
    title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 9)))
    body = []
    for _ in range(rng.randint(1, 3)):
        words = [rng.choice(WORDS) for _ in range(rng.randint(12, 40))]
        words.insert(rng.randrange(len(words)), rng.choice(IDENTS))
        body.append(" ".join(words).capitalize() + ".")
    return title, "\n\n".join(body)


def build_memory(root: Path, n: int, seed: int = 7,
                 texts: Iterator[tuple[str, str]] | None = None, rules: int = 0) -> Memory:
    """Write ``n`` entries straight into the shard files (put would be n processes).

    ``texts`` gives (title, text) pairs (default: ``synthetic_text``); with ``rules``, the
    first ``rules`` entries are standing rules (conventions) and the rest are spread over
    the other shards, as in a memory the agents wrote."""
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents" / "config.toml").write_text(
        "[memory]\ntoken_budget = 10000000\n", encoding="utf-8")
    mem = Memory(root)
    mem.init()
    rng = random.Random(seed)
    parts: dict[str, list[str]] = {s: [mem.read_text(mem.shard_path(s))] for s in mem.shards}
    spread = [s for s in mem.shards if not rules or s != "conventions"]
    taken: set[str] = set()
    for i in range(n):
        shard = "conventions" if i < rules else spread[i % len(spread)]
        title, text = synthetic_text(rng) if texts is None else next(texts)
        date = f"20{20 + i * 6 // n}-{1 + i % 12:02d}-{1 + i % 28:02d}"
        entry = fmt.Entry(id=fmt.new_id(shard, title, text, date, taken), shard=shard,
                          title=title, text=text, date=date)
        taken.add(entry.id)
        parts[shard].append(fmt.render_entry(entry))
    for shard, chunks in parts.items():
        mem.shard_path(shard).write_text("".join(chunks), encoding="utf-8")
    mem.index()
    return mem


def bench_env() -> dict[str, str]:
    """The environment for timed processes: bytecode caching on (this workplace sets
    PYTHONDONTWRITEBYTECODE, which would make every import compile from source)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    return env


def median_ms(commands: list[list[str]], cwd: Path, before: object = None) -> float:
    """Median wall time of running each command once, as a fresh process."""
    times = []
    env = bench_env()
    for cmd in commands:
        if callable(before):
            before()
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def import_ms() -> float:
    """Cumulative import time of the package, from ``-X importtime``."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", "import lean_memory"],
                         capture_output=True, text=True, cwd=ROOT,
                         env=bench_env()).stderr
    for line in out.splitlines():
        if line.rstrip().endswith("| lean_memory"):
            return int(line.split("|")[1]) / 1e3
    raise RuntimeError("lean_memory not in -X importtime output")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--runs", type=int, default=11)
    args = ap.parse_args()
    py = sys.executable
    lm = [py, "-m", "lean_memory"]
    base = median_ms([[py, "-c", "pass"]] * args.runs, ROOT)
    print(f"python -c pass: {base:.1f} ms (median of {args.runs})")
    print(f"import lean_memory: {import_ms():.2f} ms cumulative (-X importtime)")
    print()
    print("| entries | command | median ms | x python -c pass |")
    print("|---|---|---|---|")
    query = [*lm, "get", "--query", "flaky test_upload on windows"]
    for n in args.sizes:
        tmp = Path(tempfile.mkdtemp(prefix="lm-bench-"))
        try:
            mem = build_memory(tmp, n)
            cache = mem.cache_dir / "search.marshal"
            rows = [
                ("put (new entry)", [[*lm, "put", "insights", f"bench fact number {i}",
                                      "--date", "2026-11-30"] for i in range(args.runs)], None),
                ("get <shard>", [[*lm, "get", "failures"]] * args.runs, None),
                ("get (INDEX.md)", [[*lm, "get"]] * args.runs, None),
                ("status", [[*lm, "status"]] * args.runs, None),
                ("get --query, cold (no cache)", [query] * args.runs,
                 lambda: cache.unlink(missing_ok=True)),  # noqa: B023 - used in this pass
                ("get --query, warm", [query] * (args.runs + 1), None),
            ]
            for label, commands, before in rows:
                ms = median_ms(commands, tmp, before)
                print(f"| {n:,} | {label} | {ms:.1f} | {ms / base:.2f} |")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
