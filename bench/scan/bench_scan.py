"""`scan DIR` on a generated git work tree: walking everything vs following .gitignore.

Reference, measured in the same run: reading every file under the folder once (os.walk plus
open/read), the floor any scanner pays. Reported as ratios (these machines are noisy).

    PYTHONPATH=. python bench/scan/bench_scan.py [--files 2000] [--ignored 0.5] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lean_memory.scanfiles import scan_paths


def make_tree(root: Path, files: int, ignored: float) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".gitignore").write_text("vendor/\n", encoding="utf-8")
    cut = int(files * ignored)
    for i in range(files):
        top = "vendor" if i < cut else "src"
        folder = root / top / f"d{i % 40}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file-{i}.py").write_text(
            f"# module {i}\nVALUE_{i} = {i}\n" + "def f(x):\n    return x + 1\n" * 20,
            encoding="utf-8")


def read_all(top: Path) -> int:
    n = 0
    for folder, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            with open(os.path.join(folder, name), "rb") as fh:
                fh.read()
            n += 1
    return n


def median(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--ignored", type=float, default=0.5, help="share of files in vendor/")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        make_tree(root, a.files, a.ignored)
        ref = median(lambda: read_all(root), a.runs)
        walk = median(lambda: scan_paths([root]), a.runs)
        git = median(lambda: scan_paths([root], all_files=False), a.runs)
        listed = scan_paths([root], all_files=False).scanned
    print(f"{a.files} files, {a.ignored:.0%} ignored; reference (read every file once) "
          f"{ref * 1000:.0f} ms")
    print(f"scan --all-files (walk): {walk / ref:5.1f}x the reference, {a.files + 1} files")
    print(f"scan (git listing)     : {git / ref:5.1f}x the reference, {listed} files")


if __name__ == "__main__":
    main()
