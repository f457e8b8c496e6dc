"""Secret scanner benchmark: quality and speed of lean_memory against detect-secrets.

    python bench/secrets/bench.py [--corpus DIR] [--skip-stdlib] [--cli] [--json OUT]

1. Quality on the labelled synthetic corpus (``gen_corpus.py``, seeded, written to a temp
   folder): recall per family on positive samples, false-positive rate on hard negatives (a
   sample counts once: flagged or not), for both tools on the same files.
2. Throughput in MB/s over the Python standard library's source tree (without site-packages)
   and over the 10 MB mixed corpus, both tools in the same run, in process (lean_memory
   ``scan_paths``; detect-secrets ``SecretsCollection.scan_file`` with its default plugins and
   filters, one process). ``--cli`` also times both command lines end to end.
3. Every lean_memory finding in the standard library, for classification.
4. Recall and flagged negatives on gitleaks' rule test cases (``gitleaks.py``), both tools,
   when ``../shared/data/secrets/gitleaks_cases.jsonl`` is found (or given with ``--cases``).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import gen_corpus  # noqa: E402
import gitleaks  # noqa: E402

from lean_memory.scanfiles import scan_paths  # noqa: E402
from lean_memory.secrets import format_finding, scan_text  # noqa: E402

MAX_BYTES = 2_000_000


def detect_secrets_scanner():  # type: ignore[no-untyped-def]
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    def scan(files: list[str]) -> dict[str, int]:
        with default_settings():
            sc = SecretsCollection()
            for f in files:
                sc.scan_file(f)
            return {os.path.abspath(k): len(v) for k, v in sc.data.items()}

    return scan


def quality(corpus: Path) -> dict[str, object]:
    manifest: dict[str, dict[str, str]] = json.loads((corpus / "manifest.json").read_text())
    files = sorted(manifest)
    lean_hit: set[str] = set()
    lean_rules: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for name in files:
        found = scan_text((corpus / name).read_text(encoding="utf-8"), path=name)
        if found:
            lean_hit.add(name)
            for f in found:
                lean_rules[manifest[name]["family"]][f.rule] += 1
    ds = detect_secrets_scanner()
    ds_found = ds([str(corpus / n) for n in files])
    ds_hit = {n for n in files if ds_found.get(os.path.abspath(corpus / n))}

    rows: dict[str, dict[str, float | int | str]] = {}
    for label in ("pos", "neg"):
        fams = sorted({m["family"] for m in manifest.values() if m["label"] == label})
        for fam in fams:
            names = [
                n for n in files if manifest[n]["label"] == label and manifest[n]["family"] == fam
            ]
            rows[fam] = {
                "label": label,
                "n": len(names),
                "lean": sum(n in lean_hit for n in names) / len(names),
                "detect_secrets": sum(n in ds_hit for n in names) / len(names),
            }
    pos = [n for n in files if manifest[n]["label"] == "pos"]
    neg = [n for n in files if manifest[n]["label"] == "neg"]
    summary = {
        "positives": len(pos),
        "negatives": len(neg),
        "lean_recall": sum(n in lean_hit for n in pos) / len(pos),
        "ds_recall": sum(n in ds_hit for n in pos) / len(pos),
        "lean_fp_rate": sum(n in lean_hit for n in neg) / len(neg),
        "ds_fp_rate": sum(n in ds_hit for n in neg) / len(neg),
    }
    return {"families": rows, "summary": summary}


def stdlib_files() -> tuple[str, list[str]]:
    root = sysconfig.get_paths()["stdlib"]
    files: list[str] = []
    for dp, dirs, names in os.walk(root):
        dirs[:] = sorted(
            d for d in dirs if d not in {"site-packages", "__pycache__", ".git", ".cache"}
        )
        for n in sorted(names):
            p = os.path.join(dp, n)
            try:
                if os.path.getsize(p) > MAX_BYTES:
                    continue
                with open(p, "rb") as fh:
                    if b"\0" in fh.read(8192):
                        continue
            except OSError:
                continue
            files.append(p)
    return root, files


def throughput(files: list[str], ds_fraction: float = 1.0) -> dict[str, float]:
    """MB/s of both tools on the same files, by wall clock and by CPU time of this process.

    The machine may be shared: CPU time is the fairer comparison, wall time is shown too.
    """
    size = sum(os.path.getsize(f) for f in files) / 1e6
    t, c = time.perf_counter(), time.process_time()
    res = scan_paths(files)
    lean_s, lean_cpu = time.perf_counter() - t, time.process_time() - c
    ds_files = files if ds_fraction >= 1 else files[:: round(1 / ds_fraction)]
    ds_size = sum(os.path.getsize(f) for f in ds_files) / 1e6
    ds = detect_secrets_scanner()
    t, c = time.perf_counter(), time.process_time()
    ds(ds_files)
    ds_s, ds_cpu = time.perf_counter() - t, time.process_time() - c
    return {
        "mb": size,
        "lean_s": lean_s,
        "lean_cpu_s": lean_cpu,
        "lean_mb_s": size / lean_s,
        "lean_cpu_mb_s": size / lean_cpu,
        "ds_mb": ds_size,
        "ds_s": ds_s,
        "ds_cpu_s": ds_cpu,
        "ds_mb_s": ds_size / ds_s,
        "ds_cpu_mb_s": ds_size / ds_cpu,
        "ratio": (size / lean_s) / (ds_size / ds_s),
        "cpu_ratio": (size / lean_cpu) / (ds_size / ds_cpu),
        "lean_findings": len(res.findings),
    }


def _timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one command."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(args, env=env, cwd=tempfile.gettempdir(), capture_output=True, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cli_times(paths: list[str]) -> dict[str, float]:
    """Both command lines end to end, one core each (`detect-secrets -c 1`).

    detect-secrets' CLI may wait on the network (it tries to verify some secrets), so its wall
    time can far exceed its CPU time; both are reported.
    """
    env = dict(os.environ, PYTHONPATH=str(HERE.parents[1]))
    lean_wall, lean_cpu = _timed([sys.executable, "-m", "lean_memory", "scan", *paths], env)
    ds_wall, ds_cpu = _timed(
        [sys.executable, "-m", "detect_secrets", "-c", "1", "scan", "--all-files", *paths]
    )
    return {
        "lean_cli_s": lean_wall,
        "lean_cli_cpu_s": lean_cpu,
        "ds_cli_s": ds_wall,
        "ds_cli_cpu_s": ds_cpu,
        "ratio": ds_wall / lean_wall,
        "cpu_ratio": ds_cpu / lean_cpu,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--corpus", default=os.path.join(tempfile.gettempdir(), "lean_memory_secret_corpus")
    )
    ap.add_argument("--regenerate", action="store_true", help="write the corpus even if present")
    ap.add_argument("--seed", type=int, default=20251130, help="corpus seed (with --regenerate)")
    ap.add_argument("--skip-stdlib", action="store_true")
    ap.add_argument(
        "--ds-fraction",
        type=float,
        default=1.0,
        help="run detect-secrets on this share of the stdlib files only (speed)",
    )
    ap.add_argument("--cli", action="store_true", help="also time both command lines")
    ap.add_argument("--json", help="write all figures to this file")
    ap.add_argument("--cases", help="gitleaks_cases.jsonl (default: found beside the repo)")
    ap.add_argument("--skip-gitleaks", action="store_true")
    a = ap.parse_args()

    corpus = Path(a.corpus)
    if a.regenerate or not (corpus / "manifest.json").exists():
        gen_corpus.generate(str(corpus), per_family=60, seed=a.seed, big_mb=10.0)
    out: dict[str, object] = {}

    q = quality(corpus)
    out["quality"] = q
    fams = q["families"]  # type: ignore[index]
    print(f"{'family':28s} {'n':>4s} {'lean':>7s} {'detect-secrets':>15s}")
    for fam, row in fams.items():  # type: ignore[attr-defined]
        what = "recall" if row["label"] == "pos" else "FP"
        print(f"{fam:28s} {row['n']:4d} {row['lean']:7.3f} {row['detect_secrets']:15.3f}  {what}")
    print(json.dumps(q["summary"], indent=1))  # type: ignore[index]

    cases_file = Path(a.cases) if a.cases else gitleaks.find_cases()
    if not a.skip_gitleaks and cases_file is not None:
        out["gitleaks"] = gitleaks.run(gitleaks.load(cases_file), with_detect_secrets=True)

    big = sorted(str(p) for p in (corpus / "big").iterdir())
    out["corpus_speed"] = tp = throughput(big)
    print(
        f"10 MB corpus: lean {tp['lean_mb_s']:.2f} MB/s ({tp['lean_cpu_mb_s']:.2f} by CPU), "
        f"detect-secrets {tp['ds_mb_s']:.3f} MB/s ({tp['ds_cpu_mb_s']:.3f} by CPU), "
        f"ratio {tp['ratio']:.1f}x wall, {tp['cpu_ratio']:.1f}x CPU"
    )
    if a.cli:
        # The first 1 MB of the corpus: the detect-secrets CLI is slow enough as it is.
        out["corpus_cli"] = c = cli_times(big[:10])
        print(
            f"1 MB of the corpus, CLI: lean {c['lean_cli_s']:.1f}s "
            f"({c['lean_cli_cpu_s']:.1f}s CPU), "
            f"detect-secrets {c['ds_cli_s']:.1f}s ({c['ds_cli_cpu_s']:.1f}s CPU), "
            f"ratio {c['ratio']:.1f}x wall, {c['cpu_ratio']:.1f}x CPU"
        )

    if not a.skip_stdlib:
        root, files = stdlib_files()
        out["stdlib_speed"] = tp = throughput(files, a.ds_fraction)
        print(
            f"stdlib {tp['mb']:.1f} MB ({len(files)} files): lean {tp['lean_mb_s']:.2f} MB/s "
            f"({tp['lean_cpu_mb_s']:.2f} by CPU), detect-secrets {tp['ds_mb_s']:.3f} MB/s "
            f"({tp['ds_cpu_mb_s']:.3f} by CPU) on {tp['ds_mb']:.1f} MB, "
            f"ratio {tp['ratio']:.1f}x wall, {tp['cpu_ratio']:.1f}x CPU"
        )
        findings = scan_paths(files).findings
        out["stdlib_findings"] = [format_finding(f).replace(root, "<stdlib>") for f in findings]
        print(f"{len(findings)} findings in the standard library:")
        for line in out["stdlib_findings"]:  # type: ignore[attr-defined]
            print("  " + line)
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
