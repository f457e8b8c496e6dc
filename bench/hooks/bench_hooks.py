"""Whole-process cost of the agent hook at 10,000 entries, against `python -c pass`.

    python bench/hooks/bench_hooks.py [--entries 10000] [--runs 15]

Builds a synthetic memory under bench/hooks/.work/ (written straight to the shard files,
deterministic), warms the search cache once, then times, as separate processes:

* ``python -c pass`` (the floor every Python hook pays),
* ``python -m lean_memory hook user-prompt-submit`` with a Claude Code shaped input,
* ``python -m lean_memory hook session-start`` with a Codex shaped input,
* the same user-prompt hook fed garbage (it must fail open: exit 0, no output).

Reports the median wall time of each and its ratio to ``python -c pass``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))

from lean_memory import format as fmt  # noqa: E402
from lean_memory.store import Memory  # noqa: E402

WORDS = [
    "cache", "index", "shard", "merge", "driver", "token", "budget", "prompt", "digest",
    "hook", "agent", "windows", "linux", "macos", "path", "config", "retry", "timeout",
    "socket", "port", "database", "migration", "schema", "pytest", "ruff", "mypy", "docker",
    "build", "deploy", "release", "branch", "rebase", "commit", "secret", "scan", "lock",
    "file", "fsync", "unicode", "crlf", "encoding", "parser", "fence", "heading", "entry",
    "search", "query", "bm25", "stem", "ranking", "fusion", "plugin", "archive", "compaction",
    "summary", "rule", "convention", "failure", "insight", "quirk",
]


def build(root: Path, n: int) -> Memory:
    mem = Memory(root)
    if (mem.dir / "quirks.md").exists() and (mem.cache_dir / f"built-v2-{n}").exists():
        return mem
    import shutil

    shutil.rmtree(root / ".agents", ignore_errors=True)
    mem.init()
    rng = random.Random(1234)
    shards = list(mem.shards)
    texts = {s: mem.read_text(mem.shard_path(s)) for s in shards}
    parts: dict[str, list[str]] = {s: [] for s in shards}
    for i in range(n):
        others = [s for s in shards if s != "conventions"]
        shard = "conventions" if i < 12 else others[i % len(others)]
        words = rng.choices(WORDS, k=rng.randint(12, 60))
        title = " ".join(words[:6]).capitalize() + f" #{i}"
        text = " ".join(words) + f". Error code E{i:05d} in src/mod_{i % 97}/file_{i}.py."
        date = f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}"
        e = fmt.Entry(id=f"{i:08x}", shard=shard, title=title, text=text, date=date,
                      tags=(words[0],))
        parts[shard].append(fmt.render_entry(e))
    for s in shards:
        (mem.shard_path(s)).write_text(fmt.ensure_separated(texts[s]) + "".join(parts[s]),
                                       encoding="utf-8")
    mem.index()
    (mem.cache_dir / f"built-v2-{n}").write_text("")
    return mem


def timed(cmd: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd, check=False)
    elapsed = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    root = HERE / ".work" / f"mem-{args.entries}"
    root.mkdir(parents=True, exist_ok=True)
    mem = build(root, args.entries)
    # bytecode caching on, as for an installed package (this workplace disables it)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(REPO)
    env.pop("LEAN_MEMORY_ROOT", None)
    claude = json.dumps({
        "session_id": "abc123", "transcript_path": str(root / "t.jsonl"), "cwd": str(root),
        "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
        "prompt": "why does the merge driver fail on windows with crlf line endings?"}).encode()
    codex = json.dumps({
        "session_id": "019d036d", "transcript_path": None, "cwd": str(root),
        "hook_event_name": "SessionStart", "model": "gpt-5", "permission_mode": "default",
        "source": "startup"}).encode()
    hook = [sys.executable, "-m", "lean_memory", "hook"]
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], b""),
        "hook user-prompt-submit (Claude Code input)": ([*hook, "user-prompt-submit"], claude),
        "hook session-start (Codex input)": ([*hook, "session-start"], codex),
        "hook user-prompt-submit (garbage input)": ([*hook, "user-prompt-submit"], b"\xff{not"),
    }
    # The search cache is built by a query first: at 100k entries on main, building it takes
    # longer than the hook's own time limit, and a hook that gives up saves nothing.
    subprocess.run([sys.executable, "-m", "lean_memory", "get", "--query", "merge driver"],
                   env=env, cwd=root, check=True, capture_output=True)
    for cmd, stdin in cases.values():  # warm: file cache, search cache, .pyc
        timed(cmd, stdin, env, root)
    out = timed(cases["hook user-prompt-submit (Claude Code input)"][0], claude, env, root)[1]
    if not out.strip():
        raise SystemExit("the prompt hook printed nothing (it gave up: see its log)")
    ctx = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):  # interleaved, so drift hits every case alike
        for name, (cmd, stdin) in cases.items():
            times[name].append(timed(cmd, stdin, env, root)[0])
    floor = statistics.median(times["python -c pass"])
    print(f"memory: {len(mem.entries())} entries; {args.runs} runs each, median wall time; "
          f"Python {sys.version.split()[0]}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<44} {med * 1e3:7.1f} ms  x{med / floor:5.2f}")
    print(f"digest: {len(ctx):,} characters of additionalContext")


if __name__ == "__main__":
    main()
