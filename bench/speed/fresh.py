"""A fresh clone's first prompts (no ``.agents/memory/.cache``), for one or two checkouts.

    python bench/speed/fresh.py [--before REV] [--sizes 1k,10k] [--runs 3] [--work DIR]

For each size, ``run.py``'s deterministic memory and FTS5 index are built once (kept under
``--work`` when given, and reused by a later run). Then, round by round, for each checkout:
a copy of the memory without ``.cache`` gets the prompt hook (prompt 1, timed), the script
waits for the background warm-up that hook started (``.cache/search.warming`` gone), then
sends prompts 2 and 3 (timed), and records whether each prompt had matches and which cache
files prompt 2 wrote (after the warm-up it should write none). ``python -c pass`` and the
FTS5 one-shot run in the same rounds. Times: CPU (user + system of the child, from
``wait4``) and wall; medians. ``--before REV``: that revision's ``lean_memory`` (``git
archive``) against this checkout's (copied at the start).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import run  # noqa: E402


def cpu_timed(argv: list[str], cwd: Path, env: dict[str, str],
              stdin: bytes | None = None) -> tuple[float, float, str]:
    """(CPU ms, wall ms, stdout): the child's user + system time from ``wait4``."""
    r, w = os.pipe()
    out_r, out_w = os.pipe()
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.chdir(cwd)
            os.dup2(r, 0)
            os.dup2(out_w, 1)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)
            for fd in (r, w, out_r, out_w, null):
                os.close(fd)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(r)
    os.close(out_w)
    os.write(w, stdin or b"")
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(out_r, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(out_r)
    _, _, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    return ((usage.ru_utime + usage.ru_stime) * 1e3, wall * 1e3,
            b"".join(chunks).decode("utf-8", "replace"))


def cache_state(cache: Path) -> dict[str, int]:
    try:
        return {p.name: p.stat().st_mtime_ns for p in cache.iterdir()}
    except FileNotFoundError:
        return {}


def one_clone(root: Path, clone: Path, argv: list[str], env: dict[str, str], stdin: bytes,
              timeout: float) -> dict[str, object]:
    shutil.rmtree(clone, ignore_errors=True)
    shutil.copytree(root, clone, symlinks=True, ignore=shutil.ignore_patterns(".cache"))
    cache = clone / ".agents" / "memory" / ".cache"
    marker = cache / "search.warming"
    out: dict[str, object] = {}
    t0 = time.perf_counter()
    cpu, wall, text = cpu_timed(argv, clone, env, stdin)
    out["p1"] = (cpu, wall, run.MATCHES in text, "Standing rules" in text)
    while marker.exists() and time.perf_counter() - t0 < timeout:
        time.sleep(0.02)
    out["ready_s"] = time.perf_counter() - t0
    time.sleep(0.2)  # the warm-up's last writes (it removes the marker last)
    before = cache_state(cache)
    cpu, wall, text = cpu_timed(argv, clone, env, stdin)
    after = cache_state(cache)
    out["p2"] = (cpu, wall, run.MATCHES in text, "Standing rules" in text)
    out["p2_wrote"] = sorted(k for k, v in after.items() if before.get(k) != v
                             and k != "hook.log")
    cpu, wall, text = cpu_timed(argv, clone, env, stdin)
    out["p3"] = (cpu, wall, run.MATCHES in text, "Standing rules" in text)
    return out


def measure(n: int, runs: int, work: Path, vpy: str, trees: dict[str, Path],
            timeout: float, hook_timeout: float | None = None) -> dict[str, object]:
    where = work / f"n{n}"
    root = where / "memory"
    db = where / "fts5.sqlite"
    if not (root.is_dir() and db.is_file()):
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        t0 = time.perf_counter()
        root, db = run.build_data(where, n)
        shutil.rmtree(root / ".agents" / "memory" / ".cache", ignore_errors=True)
        print(f"  {n:,}: data built in {time.perf_counter() - t0:.0f} s", file=sys.stderr,
              flush=True)
    fts = where / "fts5_oneshot.py"
    fts.write_text(run.FTS5_SCRIPT, encoding="utf-8")
    base = run.clean_env()
    if hook_timeout is not None:
        base["LEAN_MEMORY_HOOK_TIMEOUT"] = str(hook_timeout)
    stdin_path = run.hook_input(where, where / "CLONE", run.hook_prompt(root))
    template = stdin_path.read_text(encoding="utf-8")
    for _ in range(2):  # .pyc files and the page cache
        cpu_timed([vpy, "-c", "pass"], where, base)
        cpu_timed([vpy, str(fts), str(db), run.QUERY], where, base)
    samples: dict[str, list[object]] = {}
    for i in range(runs):
        samples.setdefault("pass", []).append(cpu_timed([vpy, "-c", "pass"], where, base)[:2])
        samples.setdefault("fts5", []).append(
            cpu_timed([vpy, str(fts), str(db), run.QUERY], where, base)[:2])
        for label, checkout in trees.items():
            clone = where / f"clone-{label}"
            env = {**base, "PYTHONPATH": str(checkout)}
            stdin = template.replace(str(where / "CLONE"), str(clone)).encode()
            res = one_clone(root, clone, [vpy, "-m", "lean_memory", "hook",
                                          "user-prompt-submit"], env, stdin, timeout)
            samples.setdefault(label, []).append(res)
            print(f"  {n:,} round {i + 1} {label}: {json.dumps(res)}", file=sys.stderr,
                  flush=True)
    return samples


def report(n: int, samples: dict[str, list[object]], trees: dict[str, Path]) -> None:
    def med(xs: list[float]) -> float:
        return statistics.median(xs)

    pc = med([s[0] for s in samples["pass"]])  # type: ignore[index]
    pw = med([s[1] for s in samples["pass"]])  # type: ignore[index]
    fc = med([s[0] for s in samples["fts5"]])  # type: ignore[index]
    fw = med([s[1] for s in samples["fts5"]])  # type: ignore[index]
    runs = len(samples["pass"])
    print(f"\n{n:,} entries, {runs} rounds: `python -c pass` {pc:.1f} ms CPU / {pw:.0f} ms "
          f"wall; FTS5 one-shot {fc:.1f} ms CPU / {fw:.0f} ms wall")
    print("| checkout | prompt 1 CPU / wall | matches | warm-up ready | prompt 2 CPU / wall "
          "| matches | prompt 2 wrote | prompt 3 CPU / wall |")
    print("|---|---:|---|---:|---:|---|---|---:|")
    for label in trees:
        rows: list[dict] = samples[label]  # type: ignore[assignment]

        def cell(key: str, rows: list[dict] = rows) -> str:
            c = med([r[key][0] for r in rows])
            w = med([r[key][1] for r in rows])
            return f"{c:.0f} / {w:.0f} ms ({c / fc:.1f}x FTS5)"

        def hits(key: str, rows: list[dict] = rows) -> str:
            return f"{sum(r[key][2] for r in rows)}/{len(rows)}"

        wrote = sorted({f for r in rows for f in r["p2_wrote"]})
        print(f"| {label} | {cell('p1')} | {hits('p1')} | "
              f"{med([r['ready_s'] for r in rows]):.1f} s | {cell('p2')} | {hits('p2')} | "
              f"{', '.join(wrote) or 'nothing'} | {cell('p3')} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--before", help="a revision to compare with (its lean_memory, by git "
                                     "archive)")
    ap.add_argument("--sizes", default="1k,10k", help="comma-separated, e.g. 1k,10k,100k")
    ap.add_argument("--runs", type=int, default=3, help="rounds per size")
    ap.add_argument("--work", type=Path, help="keep the data here (and reuse it)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--hook-timeout", type=float,
                    help="LEAN_MEMORY_HOOK_TIMEOUT for the hooks (default: unset, 5 s); a "
                         "loaded machine's wall clock runs slow by its load: scale it to compare")
    args = ap.parse_args()
    work = args.work.resolve() if args.work else Path(tempfile.mkdtemp(prefix="lm-fresh-"))
    work.mkdir(parents=True, exist_ok=True)
    src = Path(tempfile.mkdtemp(prefix="lm-fresh-src-"))
    try:
        trees: dict[str, Path] = {}
        if args.before:
            (src / "before").mkdir()
            archive = subprocess.run(["git", "-C", str(run.REPO), "archive", args.before,
                                      "lean_memory"], capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(src / "before")], input=archive, check=True)
            trees["before"] = src / "before"
        shutil.copytree(run.REPO / "lean_memory", src / "after" / "lean_memory",
                        ignore=shutil.ignore_patterns("__pycache__"))
        trees["after"] = src / "after"
        commit = subprocess.run(["git", "-C", str(run.REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=False).stdout.strip()
        print(f"date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; checkout {commit}"
              f"{' vs ' + args.before if args.before else ''}; load average at start: "
              f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        vpy = run.make_venv(work / "venv") if not (work / "venv").is_dir() \
            else str(work / "venv" / "bin" / "python")
        for size in args.sizes.split(","):
            n = run.parse_size(size)
            report(n, measure(n, max(1, args.runs), work, vpy, trees, args.timeout,
                                args.hook_timeout), trees)
    finally:
        shutil.rmtree(src, ignore_errors=True)
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
