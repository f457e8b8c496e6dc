"""The read commands of two checkouts, interleaved in one run, on copies of the same data.

    python bench/speed/before_after.py --before /path/to/main [--sizes 1k,10k] [--runs 9]

For each size, ``run.py``'s deterministic memory and FTS5 index are built once; the memory
is copied for each checkout (their caches differ, and the verdicts cache is keyed by the
scanner's source files, so the two must not share a tree). Then, round by round, every case
runs once as a fresh process of a clean venv: ``python -c pass``, the FTS5 one-shot, and for
each checkout the prompt hook, ``get --query`` (warm), ``get failures`` and ``status``.
Printed: median CPU time (user + system, from ``getrusage`` of the children) and the
ratios to ``python -c pass`` and to the FTS5 one-shot of the same rounds. Two untimed runs of
each case first warm the caches, ``.pyc`` files and the page cache.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import run  # noqa: E402

COMMANDS = {"hook": ["hook", "user-prompt-submit"], "warm": ["get", "--query", run.QUERY],
            "common": ["get", "--query", run.COMMON_QUERY],
            "shard": ["get", "failures"], "status": ["status"]}


def cpu_ms(argv: list[str], cwd: Path, env: dict[str, str], stdin: Path | None) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(stdin or os.devnull, "rb") as f:
        subprocess.run(argv, cwd=cwd, env=env, stdin=f, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)


def measure(n: int, runs: int, work: Path, vpy: str, trees: dict[str, Path]) -> None:
    where = work / f"n{n}"
    where.mkdir()
    root, db = run.build_data(where, n)
    fts = where / "fts5_oneshot.py"
    fts.write_text(run.FTS5_SCRIPT, encoding="utf-8")
    base = run.clean_env()
    cases: list[tuple[str, str, list[str], Path, dict[str, str], Path | None]] = [
        ("pass", "", [vpy, "-c", "pass"], where, base, None),
        ("fts5", "", [vpy, str(fts), str(db), run.QUERY], where, base, None)]
    prompt = run.hook_prompt(root)
    for label, checkout in trees.items():
        copy = where / label
        shutil.copytree(root, copy, symlinks=True)
        # each checkout its own data folder (the session layer), lean_memory from it
        env = {**base, "XDG_DATA_HOME": str(where / f"data-{label}")}
        (where / f"hook-{label}").mkdir()
        hook = run.hook_input(where / f"hook-{label}", copy, prompt)
        for key, args in COMMANDS.items():
            # every process of ours runs isolated (ADR 0033): python -I -c ENTRY CHECKOUT ARGS
            cases.append((key, label, [vpy, "-I", "-c", run.ENTRY, str(checkout), *args], copy,
                          env, hook if key == "hook" else None))

    def one(argv: list[str], cwd: Path, env: dict[str, str], stdin: Path | None) -> float:
        if stdin is not None:  # a new session each time (pay-once): the same prompt
            run.hook_input(stdin.parent, cwd, prompt, stdin.name)
        return cpu_ms(argv, cwd, env, stdin)

    for _, _, argv, cwd, env, stdin in cases:
        for _ in range(2):
            one(argv, cwd, env, stdin)
    samples: dict[tuple[str, str], list[float]] = {}
    for _ in range(runs):
        for key, label, argv, cwd, env, stdin in cases:
            samples.setdefault((key, label), []).append(one(argv, cwd, env, stdin))
    med = {k: statistics.median(v) for k, v in samples.items()}
    floor, ref = med[("pass", "")], med[("fts5", "")]
    print(f"\n{n:,} entries ({runs} rounds): `python -c pass` {floor:.1f} ms CPU, "
          f"FTS5 one-shot {ref:.1f} ms ({ref / floor:.1f}x)")
    print("| command | " + " | ".join(trees) + " |")
    print("|---|" + "---|" * len(trees))
    for key in COMMANDS:
        cells = [f"{med[(key, label)]:.0f} ms = {med[(key, label)] / floor:.1f}x pass = "
                 f"{med[(key, label)] / ref:.2f}x FTS5" for label in trees]
        print(f"| {key} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--before", type=Path, required=True, help="the other checkout")
    ap.add_argument("--sizes", default="1k,10k", help="comma-separated, e.g. 1k,10k,100k")
    ap.add_argument("--runs", type=int, default=9, help="timed rounds per size")
    args = ap.parse_args()
    trees = {"before": args.before.resolve(), "after": run.REPO}
    print(f"before: {trees['before']}; after: {run.REPO}; load average at start: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    work = Path(tempfile.mkdtemp(prefix="lm-before-after-"))
    try:
        vpy = run.make_venv(work / "venv")
        for size in args.sizes.split(","):
            measure(run.parse_size(size), max(1, args.runs), work, vpy, trees)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
