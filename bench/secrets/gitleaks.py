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
        "families": {k: dict(zip(("n", "found", "neg", "flagged"), v)) for k, v in by_family.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--cases", help="the cases file (default: ../shared/data/secrets/…)")
    ap.add_argument("--lean-only", action="store_true", help="skip detect-secrets (faster)")
    ap.add_argument("--top", type=int, default=25, help="most-missed families to list")
    ap.add_argument("--misses", type=int, default=0, help="print N missed texts per family")
    ap.add_argument("--flagged", action="store_true", help="print the flagged negatives")
    ap.add_argument("--family", help="only this family (with --misses / --flagged)")
    ap.add_argument("--json", help="write the figures to this file")
    a = ap.parse_args()

    where = Path(a.cases) if a.cases else find_cases()
    if where is None:
        sys.exit("gitleaks_cases.jsonl not found: pass --cases")
    cases = load(where)
    out: dict[str, object] = {}
    t = time.process_time()
    lean = lean_flags(cases)
    lean_cpu = time.process_time() - t
    out["lean_memory"] = ls = summarise(cases, lean)
    out["lean_cpu_s"] = lean_cpu
    if not a.lean_only:
        t = time.process_time()
        ds = detect_secrets_flags(cases)
        out["ds_cpu_s"] = time.process_time() - t
        out["detect_secrets"] = dss = summarise(cases, ds)
    print(f"{len(cases)} cases: {ls['positives']} secrets, {ls['negatives']} negatives")
    print(
        f"lean_memory:    recall {ls['recall']:.3f}, negatives flagged "
        f"{ls['negatives_flagged']:.3f} ({lean_cpu:.2f}s CPU)"
    )
    if not a.lean_only:
        print(
            f"detect-secrets: recall {dss['recall']:.3f}, negatives flagged "
            f"{dss['negatives_flagged']:.3f} ({out['ds_cpu_s']:.2f}s CPU)"
        )
    fams = ls["families"]  # type: ignore[index]
    missed = sorted(
        fams.items(),  # type: ignore[attr-defined]
        key=lambda kv: (-(kv[1]["n"] - kv[1]["found"]), kv[0]),
    )
    print(f"\nmost-missed families (lean_memory): family, missed/positives, flagged/negatives")
    for fam, row in missed[: a.top]:
        ds_row = dss["families"][fam] if not a.lean_only else None  # type: ignore[index]
        extra = (
            f"   detect-secrets {ds_row['found']}/{ds_row['n']}" if ds_row is not None else ""
        )
        print(
            f"  {fam:24s} {row['n'] - row['found']:4d}/{row['n']:<4d} "
            f"{row['flagged']:3d}/{row['neg']:<3d}{extra}"
        )
    if a.misses or a.flagged:
        for c, f in zip(cases, lean, strict=True):
            if a.family and c["family"] != a.family:
                continue
            if a.misses and c["expect"] == "secret" and not f:
                print(f"MISS {c['family']}/{c['gitleaks_rule']}: {c['text'][:300]!r}")
            if a.flagged and c["expect"] == "clean" and f:
                rules = {x.rule for x in scan_text(c["text"])}
                print(f"FP {c['family']} {sorted(rules)}: {c['text'][:300]!r}")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
