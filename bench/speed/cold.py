"""Cold builds, before and after: `get --query` (and `put`) with no `.cache`, two checkouts.

    python bench/speed/cold.py [--before main] [--sizes 1k,10k] [--runs 5] [--no-put]

Builds the same deterministic memories as ``run.py``, then times, round by round in one
clean venv: ``python -c pass``; the cold query of the ``--before`` revision (its
``lean_memory`` extracted with ``git archive`` into a temporary folder) and of this checkout
(its ``lean_memory`` copied at the start); the rank_bm25 one-shot (10k and below); and,
unless ``--no-put``, a ``put`` with no ``.cache`` for each. The memory's ``.cache`` is
deleted before each cold run. Prints medians and ratios to ``python -c pass`` and to the
rank_bm25 one-shot of the same rounds.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="main", help="git revision to compare with")
    ap.add_argument("--sizes", default="1k,10k")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-put", action="store_true", help="time only the cold query")
    ap.add_argument("--bm25-python", default=sys.executable)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="lm-cold-") as tmp:
        work = Path(tmp)
        before = work / "before"
        before.mkdir()
        archive = subprocess.run(["git", "-C", str(run.REPO), "archive", args.before,
                                  "lean_memory"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
        # This checkout as it is now (edits made while the bench runs do not count).
        after = work / "after"
        shutil.copytree(run.REPO / "lean_memory", after / "lean_memory",
                        ignore=shutil.ignore_patterns("__pycache__"))
        vpy = run.make_venv(work / "venv")
        env = run.clean_env()
        launchers = {}
        for label, path in (("after", after), ("before", before)):
            launchers[label] = run.Launcher(vpy, {**env, "PYTHONPATH": str(path)},
                                            work / f"err-{label}.txt")
        try:
            for size in args.sizes.split(","):
                measure(run.parse_size(size), args, work, vpy, launchers)
        finally:
            for launcher in launchers.values():
                launcher.close()


def measure(n: int, args: argparse.Namespace, work: Path, vpy: str,
            launchers: dict[str, run.Launcher]) -> None:
    where = work / f"n{n}"
    where.mkdir()
    root, _db = run.build_data(where, n)
    memdir = root / ".agents" / "memory"
    script = where / "rank_bm25_oneshot.py"
    script.write_text(run.RANK_BM25_SCRIPT, encoding="utf-8")
    texts = run.put_texts(4 * args.runs + 4)
    lm = [vpy, "-m", "lean_memory"]
    rows: dict[str, list[float]] = {}
    # (key, launcher, argv of round i, drop the cache first)
    cases: list[tuple[str, str, Callable[[int], list[str]], bool]] = [
        ("pass", "after", lambda i: [vpy, "-c", "pass"], False),
        ("cold before", "before", lambda i: [*lm, "get", "--query", run.QUERY], True),
        ("cold after", "after", lambda i: [*lm, "get", "--query", run.QUERY], True),
    ]
    if n <= 10_000:
        cases.append(("rank_bm25", "after",
                      lambda i: [args.bm25_python, str(script), str(memdir), run.QUERY], False))
    if not args.no_put:
        cases.append(("put no-cache before", "before",
                      lambda i: [*lm, "put", run.PUT_SHARD, texts[2 * i]], True))
        cases.append(("put no-cache after", "after",
                      lambda i: [*lm, "put", run.PUT_SHARD, texts[2 * i + 1]], True))
    for i in range(-1, args.runs):  # round -1: .pyc and page cache, untimed
        for key, label, argv, drop in cases:
            if drop:
                shutil.rmtree(memdir / ".cache", ignore_errors=True)
            elapsed, _rss, code, tail = launchers[label].run(
                argv(args.runs if i < 0 else i), root, None, args.timeout)
            if code != 0:
                raise SystemExit(f"{key} failed: {tail}")
            _settle(memdir / ".cache" / "search.warming", args.timeout)
            if i >= 0:
                rows.setdefault(key, []).append(elapsed * 1e3)
        print(f"  {n:,}: round {i + 1}/{args.runs}", file=sys.stderr, flush=True)
    meds = {k: run.median(v) for k, v in rows.items()}
    print(f"\n{n:,} entries, {args.runs} rounds, medians (x python -c pass; x rank_bm25):")
    for key, ms in meds.items():
        extra = f"; {ms / meds['rank_bm25']:.2f}x rank_bm25" if "rank_bm25" in meds else ""
        print(f"  {key:22} {ms:8.0f} ms  ({ms / meds['pass']:.2f}x pass{extra})")
    print(f"  cold after / before: {meds['cold after'] / meds['cold before']:.2f}", flush=True)


def _settle(marker: Path, timeout: float) -> None:
    """Wait (untimed) for the background warm-up a cold query started (ADR 0051) to end,
    so that it neither fills the next round's cache nor competes for the CPU."""
    deadline = time.monotonic() + timeout
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


if __name__ == "__main__":
    main()
