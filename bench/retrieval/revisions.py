"""The gate table of ``digest.py --gate`` (budget 1,200, ``digest_min_coverage`` 0.25) for
another revision's package, measured by this revision's bench (ADR 0052).

    git archive <commit> lean_memory | tar -x -C /tmp/rev-<commit>
    python bench/retrieval/revisions.py /tmp/rev-<commit> [--groups even,tune] [--budget 1200]

``PACKAGE_ROOT`` is a folder holding a ``lean_memory`` package (any revision's); the
memories, prompts and measure are this script's (``digest.build``, ``digest.cisi_queries``,
evidence as a normalised substring of the block). Groups: ``even`` / ``odd`` (LoCoMo
conversations: each memory asked its own questions, answerable, and the next
conversation's, unanswerable), ``tune`` / ``report`` (CISI's halves asked of Cranfield's
memory). The gate's calibration runs without the prompt hook's time limit (where the
revision has one): the figures are those of an unloaded machine, never the floor bar.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("package_root")
    ap.add_argument("--groups", default="even,tune")
    ap.add_argument("--budget", type=int, default=1200)
    args = ap.parse_args()
    root = str(Path(args.package_root).resolve())
    sys.path.insert(0, root)
    import lean_memory  # the revision's package: imported before the bench puts its own first

    if not str(Path(lean_memory.__file__).resolve()).startswith(root):
        raise SystemExit(f"no lean_memory package in {root}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import digest as bench

    from lean_memory import digest as gate
    from lean_memory import estimate_tokens
    from lean_memory.store import Memory

    if hasattr(gate, "BAR_BUDGET_S"):
        gate.BAR_BUDGET_S = None
    groups = args.groups.split(",")
    locomo = bench.load("locomo")
    plans: list[tuple[str, list[Any], list[Any], list[Any]]] = [
        ("even" if i % 2 == 0 else "odd", c.docs, c.queries,
         locomo[(i + 1) % len(locomo)].queries) for i, c in enumerate(locomo)]
    cran = bench.load("cranfield")[0]
    plans += [(half, cran.docs, [], [q for q in bench.cisi_queries() if q["half"] == half])
              for half in ("tune", "report")]
    cells: dict[str, tuple[list[bool], list[int], list[int]]] = {}
    with tempfile.TemporaryDirectory(prefix="lean-revisions-") as tmp:
        for group, docs, answerable, unanswerable in plans:
            if group not in groups:
                continue
            by_id = {d["id"]: bench.norm(d["text"]) for d in docs}
            mem = bench.build(Path(tmp) / "memory", docs)
            bench.set_coverage(mem, 0.25)
            mem = Memory(mem.root)
            hits, answered, unanswered = cells.setdefault(group, ([], [], []))
            for kind, queries in (("a", answerable), ("u", unanswerable)):
                for q in queries:
                    evidence = [by_id[r] for r in q["relevant"] if by_id.get(r)]
                    if kind == "a" and not evidence:
                        continue
                    block = mem.digest(q["q"], budget_tokens=args.budget)
                    if kind == "a":
                        hits.append(any(e in bench.norm(block) for e in evidence))
                        answered.append(estimate_tokens(block))
                    else:
                        unanswered.append(estimate_tokens(block))
    print("| group | answerable recall / mean tokens | unanswerable mean tokens / empty |")
    print("|---|---|---|")
    for group, (hits, answered, unanswered) in cells.items():
        recall = f"{sum(hits) / len(hits):.3f} / {statistics.mean(answered):.0f}" if hits else "-"
        empty = sum(t == 0 for t in unanswered) / max(len(unanswered), 1)
        print(f"| {group} | {recall} | {statistics.mean(unanswered or [0]):.0f} / {empty:.1%} |")


if __name__ == "__main__":
    main()
