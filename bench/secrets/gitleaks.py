"""Recall and flagged negatives on gitleaks' rule test cases, lean_memory beside detect-secrets.

    python bench/secrets/gitleaks.py [--cases FILE] [--lean-only] [--misses N] [--json OUT]

The cases (``../shared/data/secrets/gitleaks_cases.jsonl`` from the repository root, see the
README there) are gitleaks' true positives (``expect = "secret"``) and false positives
(``expect = "clean"``) per rule. A case counts as detected when the tool reports anything in
its text. Both tools see the same texts in the same run: lean_memory through ``scan_text``,
detect-secrets through ``SecretsCollection.scan_file`` (default plugins and filters) on one
temporary file per case. Prints the totals, the most-missed families and, with ``--misses``,
that many missed texts per family (for development only: the texts are credentials).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from lean_memory.secrets import scan_text  # noqa: E402

CASES_NAME = os.path.join("shared", "data", "secrets", "gitleaks_cases.jsonl")


def find_cases() -> Path | None:
    """The shared file beside the repository (``../shared``), or beside a worktree's parent."""
    env = os.environ.get("LEAN_MEMORY_GITLEAKS_CASES")
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / CASES_NAME, ROOT.parents[1] / CASES_NAME]
    return next((p for p in candidates if p.is_file()), None)


def load(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def lean_flags(cases: list[dict[str, str]]) -> list[bool]:
    return [bool(scan_text(c["text"])) for c in cases]


def detect_secrets_flags(cases: list[dict[str, str]]) -> list[bool]:
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i, c in enumerate(cases):
            name = os.path.join(tmp, f"case{i:05d}.txt")
            with open(name, "w", encoding="utf-8") as fh:
                fh.write(c["text"])
            names.append(name)
        with default_settings():
            sc = SecretsCollection()
            for name in names:
                sc.scan_file(name)
            hit = {os.path.abspath(k) for k, v in sc.data.items() if v}
        return [os.path.abspath(n) in hit for n in names]


def summarise(cases: list[dict[str, str]], flags: list[bool]) -> dict[str, object]:
    pos = [f for c, f in zip(cases, flags, strict=True) if c["expect"] == "secret"]
    neg = [f for c, f in zip(cases, flags, strict=True) if c["expect"] == "clean"]
    by_family: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0, 0])
    for c, f in zip(cases, flags, strict=True):
        row = by_family[c["family"]]
        if c["expect"] == "secret":
            row[0] += 1
            row[1] += f
        else:
            row[2] += 1
            row[3] += f
    return {
        "positives": len(pos),
        "negatives": len(neg),
        "recall": sum(pos) / len(pos),
        "negatives_flagged": sum(neg) / len(neg),
        "families": {
            k: dict(zip(("n", "found", "neg", "flagged"), v, strict=True))
            for k, v in by_family.items()
        },
    }


def run(
    cases: list[dict[str, str]],
    *,
    with_detect_secrets: bool = True,
    top: int = 25,
) -> dict[str, object]:
    """Score both tools on the cases, print the totals and the most-missed families."""
    out: dict[str, object] = {}
    t = time.process_time()
    lean = lean_flags(cases)
    out["lean_cpu_s"] = lean_cpu = time.process_time() - t
    out["lean_memory"] = ls = summarise(cases, lean)
    ds_fams: dict[str, dict[str, int]] = {}
    print(f"gitleaks cases: {ls['positives']} secrets, {ls['negatives']} negatives")
    print(
        f"  lean_memory:    recall {ls['recall']:.3f}, negatives flagged "
        f"{ls['negatives_flagged']:.3f} ({lean_cpu:.2f}s CPU)"
    )
    if with_detect_secrets:
        t = time.process_time()
        ds = detect_secrets_flags(cases)
        out["ds_cpu_s"] = ds_cpu = time.process_time() - t
        out["detect_secrets"] = dss = summarise(cases, ds)
        ds_fams = dss["families"]  # type: ignore[assignment]
        print(
            f"  detect-secrets: recall {dss['recall']:.3f}, negatives flagged "
            f"{dss['negatives_flagged']:.3f} ({ds_cpu:.2f}s CPU)"
        )
    fams: dict[str, dict[str, int]] = ls["families"]  # type: ignore[assignment]
    missed = sorted(fams.items(), key=lambda kv: (kv[1]["found"] - kv[1]["n"], kv[0]))
    out["most_missed"] = [
        {"family": fam, **row, **({"ds_found": ds_fams[fam]["found"]} if ds_fams else {})}
        for fam, row in missed[:top]
        if row["found"] < row["n"] or row["flagged"]
    ]
    print("  most-missed families (lean_memory): missed/secrets, flagged/negatives")
    for row in out["most_missed"]:  # type: ignore[attr-defined]
        extra = f"   detect-secrets found {row['ds_found']}/{row['n']}" if ds_fams else ""
        print(
            f"    {row['family']:22s} {row['n'] - row['found']:4d}/{row['n']:<4d} "
            f"{row['flagged']:3d}/{row['neg']:<3d}{extra}"
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cases", help="the cases file (default: ../shared/data/secrets/...)")
    ap.add_argument("--lean-only", action="store_true", help="skip detect-secrets (faster)")
    ap.add_argument("--top", type=int, default=25, help="most-missed families to list")
    ap.add_argument("--misses", action="store_true", help="print the missed texts (dev only)")
    ap.add_argument("--flagged", action="store_true", help="print the flagged negatives")
    ap.add_argument("--family", help="only this family (with --misses / --flagged)")
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()

    where = Path(a.cases) if a.cases else find_cases()
    if where is None:
        sys.exit("gitleaks_cases.jsonl not found: pass --cases")
    cases = load(where)
    out = run(cases, with_detect_secrets=not a.lean_only, top=a.top)
    if a.misses or a.flagged:
        for c in cases:
            if a.family and c["family"] != a.family:
                continue
            found = scan_text(c["text"])
            if a.misses and c["expect"] == "secret" and not found:
                print(f"MISS {c['family']}/{c['gitleaks_rule']}: {c['text'][:300]!r}")
            if a.flagged and c["expect"] == "clean" and found:
                print(f"FP {c['family']} {sorted({x.rule for x in found})}: {c['text'][:300]!r}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
