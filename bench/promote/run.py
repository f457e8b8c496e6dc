"""Proposal precision and recall of ``lean_memory.asks.propose`` on the labelled promote set.

    python bench/promote/run.py                  # both splits, the figures table
    python bench/promote/run.py --show train     # and every wrong or missed proposal of train

A proposal is correct when every ask behind it carries the same preference label, that
preference was said in three or more sessions, and no earlier proposal already stands for
it (a second proposal of the same rule is counted wrong: the person would see it twice).
Recall is the share of preferences said in three or more sessions that got a correct
proposal. Goals: precision >= .90, recall >= .70.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from lean_memory.asks import Ask, Proposal, make_ask, propose  # noqa: E402

PRECISION_GOAL, RECALL_GOAL = 0.90, 0.70


def load(split: str) -> tuple[list[Ask], dict[str, str]]:
    asks, label_of = [], {}
    with (HERE / "data" / f"{split}.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            ask = make_ask(row["session"], row["text"], row["at"], row["project"])
            if ask is not None:
                asks.append(ask)
                label_of[ask.id] = row["label"]
    return asks, label_of


def score(split: str, show: bool) -> dict[str, float]:
    asks, label_of = load(split)
    labels = json.loads((HERE / "labels.json").read_text(encoding="utf-8"))[split]
    gold = {k for k, v in labels.items() if v["kind"] == "pref" and v["sessions"] >= 3}
    t0 = time.perf_counter()
    proposals = propose(asks)
    took = time.perf_counter() - t0
    found: set[str] = set()
    right = 0
    wrong: list[tuple[Proposal, Counter[str]]] = []
    for p in proposals:
        kinds = Counter(label_of[e.ask] for e in p.evidence)
        label = next(iter(kinds)) if len(kinds) == 1 else ""
        if label in gold and label not in found:
            found.add(label)
            right += 1
        else:
            wrong.append((p, kinds))
    precision = right / len(proposals) if proposals else 1.0
    recall = len(found) / len(gold) if gold else 1.0
    if show:
        for p, kinds in wrong:
            print(f"  WRONG {p.rule!r} sessions={len(p.sessions)} labels={dict(kinds)}")
            for e in p.evidence:
                print(f"      {label_of[e.ask]:28} {e.text}")
        for label in sorted(gold - found):
            print(f"  MISSED {label} ({labels[label]['sessions']} sessions)")
    sessions = len({a.session for a in asks})
    return {"sessions": sessions, "asks": len(asks), "gold": len(gold),
            "proposals": len(proposals), "correct": right, "precision": precision,
            "recall": recall, "seconds": took}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", choices=["train", "test"], action="append", default=[])
    ap.add_argument("--split", choices=["train", "test"], action="append",
                    help="only this split (tuning looks at train alone)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {split: score(split, split in args.show)
               for split in (args.split or ["train", "test"])}
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print("| split | sessions | asks | rules in 3+ sessions | proposals | correct "
              "| precision | recall | time |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for split, r in results.items():
            print(f"| {split} | {r['sessions']} | {r['asks']} | {r['gold']} | {r['proposals']} "
                  f"| {r['correct']} | {r['precision']:.2f} | {r['recall']:.2f} "
                  f"| {r['seconds']:.2f} s |")
    ok = all(r["precision"] >= PRECISION_GOAL and r["recall"] >= RECALL_GOAL
             for r in results.values())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
