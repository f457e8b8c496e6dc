"""`put` and `get --query` right after a `put`: this checkout against another one, same run.

    python bench/speed/put_ab.py --base /path/to/main --sizes 1k,10k,100k --runs 7

Both checkouts run in one clean venv on copies of the same memories (`run.py`'s data and
FTS5 index, built once under ``--work`` and reused), interleaved round by round so load
drift hits both alike. Medians; ratios to `python -c pass` (and to the FTS5 one-shot for
the query after a put) measured in the same rounds. See README.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent), str(HERE.parent / "retrieval")]

import run  # noqa: E402  (bench/speed/run.py: data, FTS5 script, launcher)

SIZES = {"1k": 1_000, "10k": 10_000, "100k": 100_000}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="the checkout to compare with")
    ap.add_argument("--sizes", default="1k,10k,100k")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--work", type=Path, default=Path("/tmp/put-ab"),
                    help="data built here once per size (kept for later runs)")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    vpy = str(args.work / "venv" / "bin" / "python")
    if not Path(vpy).exists():
        run.make_venv(args.work / "venv")
    (args.work / "fts5_oneshot.py").write_text(run.FTS5_SCRIPT, encoding="utf-8")
    envs = {}
    for name, repo in (("base", args.base.resolve()), ("this", run.REPO)):
        env = run.clean_env()
        env["PYTHONPATH"] = str(repo)
        envs[name] = env
    launchers = {k: run.Launcher(vpy, env, args.work / f"err-{k}.txt") for k, env in envs.items()}
    print(f"{'size':>5} {'case':<22} {'base':>10} {'this':>10}   ratios (base -> this)")
    for label in args.sizes.split(","):
        one_size(label, args.runs, args.work, vpy, envs, launchers)
    for launcher in launchers.values():
        launcher.close()


def one_size(label: str, runs: int, work: Path, vpy: str, envs: dict[str, dict[str, str]],
             launchers: dict[str, run.Launcher]) -> None:
    n = SIZES[label]
    data = work / label
    if not (data / "memory").is_dir():
        data.mkdir(exist_ok=True)
        run.build_data(data, n)
    roots = {}
    for k in launchers:
        roots[k] = work / f"{label}-{k}"
        shutil.rmtree(roots[k], ignore_errors=True)
        shutil.copytree(data / "memory", roots[k], symlinks=True)
    texts = iter(run.put_texts(4 * runs + 8))
    query = ["get", "--query", run.QUERY]
    ms: dict[str, list[float]] = {}

    def time(key: str, who: str, argv: list[str], cwd: Path) -> None:
        elapsed, _, code, tail = launchers[who].run(argv, cwd, None, 600.0)
        if code != 0:
            raise SystemExit(f"{key} ({who}) failed: {tail}")
        ms.setdefault(key, []).append(elapsed * 1e3)

    def untimed_put(who: str) -> None:
        subprocess.run([vpy, "-m", "lean_memory", "put", run.PUT_SHARD, next(texts)],
                       cwd=roots[who], env=envs[who], check=True, capture_output=True)

    for who in launchers:  # warm: .pyc, the search and stats caches, the put state
        untimed_put(who)
        untimed_put(who)
        subprocess.run([vpy, "-m", "lean_memory", *query], cwd=roots[who],
                       env=envs[who], check=True, capture_output=True)
    for _ in range(runs):
        time("pass", "this", [vpy, "-c", "pass"], HERE)
        time("fts5", "this", [vpy, str(work / "fts5_oneshot.py"),
                              str(data / "fts5.sqlite"), run.QUERY], HERE)
        for who in launchers:
            time(f"put/{who}", who, [vpy, "-m", "lean_memory", "put", run.PUT_SHARD,
                                     next(texts)], roots[who])
            untimed_put(who)
            time(f"after_put/{who}", who, [vpy, "-m", "lean_memory", *query], roots[who])
    med = {k: statistics.median(v) for k, v in ms.items()}
    print(f"{label:>5} {'python -c pass':<22} {med['pass']:>8.1f}ms")
    print(f"{label:>5} {'FTS5 one-shot':<22} {med['fts5']:>8.1f}ms")
    for case, ref in (("put", "pass"), ("after_put", "pass"), ("after_put", "fts5")):
        b, t = med[f"{case}/base"], med[f"{case}/this"]
        print(f"{label:>5} {case + ' / ' + ref:<22} {b:>8.1f}ms {t:>8.1f}ms   "
              f"{b / med[ref]:.2f}x -> {t / med[ref]:.2f}x", flush=True)


if __name__ == "__main__":
    main()
