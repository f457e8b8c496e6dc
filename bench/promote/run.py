"""Proposal precision and recall of ``lean_memory.asks.propose`` on every labelled promote set.

    python bench/promote/run.py                  # all sets, one table; exit 1 if a goal is missed
    python bench/promote/run.py --show train     # and every wrong or missed proposal of train
    python bench/promote/run.py --set dev --show dev

Sets: ``train`` and ``test`` (generated, ``data/``), ``dev``..``dev6`` (hand-written by the
matcher's authors, ``dev/``), ``set_c`` (hand-written by someone who never read the matcher,
``fresh/``: for tuning) and the held-out ``set_a``, ``set_b`` (``heldout/``), ``set_d``
(``fresh/``) and ``set_e`` (``blind/``). The matcher is tuned on train, dev and set C only:
``--show`` refuses the held-out sets, whose texts are never printed here (their aggregate
scores only).

A proposal is correct when every ask behind it carries the same preference label and that
preference was said in three or more sessions. **Plain** (heldout/README.md's rule): precision
= correct proposals / proposals. **Strict** (this folder's README): a second correct proposal
of a rule already proposed is wrong (the person would see the rule twice). Recall is the same
in both: the share of preferences said in three or more sessions that got a correct proposal.
Goals: precision >= .90 and recall >= .70 on train/test, recall >= .60 on the held-out sets.
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

PRECISION_GOAL = 0.90
RECALL_GOAL = {"train": 0.70, "test": 0.70, "dev": 0.60, "dev2": 0.60, "dev3": 0.60,
               "dev4": 0.60, "dev5": 0.60, "dev6": 0.60, "set_a": 0.60, "set_b": 0.60,
               "set_c": 0.60, "set_d": 0.60, "set_e": 0.60}
HELD_OUT = ("set_a", "set_b", "set_d", "set_e")
# set: (its asks, its labels file, the key in that file)
SETS = {
    "train": (HERE / "data" / "train.jsonl", HERE / "labels.json", "train"),
    "test": (HERE / "data" / "test.jsonl", HERE / "labels.json", "test"),
    "dev": (HERE / "dev" / "dev.jsonl", HERE / "dev" / "labels.json", "dev"),
    "dev2": (HERE / "dev" / "dev2.jsonl", HERE / "dev" / "labels.json", "dev2"),
    "dev3": (HERE / "dev" / "dev3.jsonl", HERE / "dev" / "labels.json", "dev3"),
    "dev4": (HERE / "dev" / "dev4.jsonl", HERE / "dev" / "labels.json", "dev4"),
    "dev5": (HERE / "dev" / "dev5.jsonl", HERE / "dev" / "labels.json", "dev5"),
    "dev6": (HERE / "dev" / "dev6.jsonl", HERE / "dev" / "labels.json", "dev6"),
    "set_a": (HERE / "heldout" / "set_a.jsonl", HERE / "heldout" / "labels.json", "set_a"),
    "set_b": (HERE / "heldout" / "set_b.jsonl", HERE / "heldout" / "labels.json", "set_b"),
    "set_c": (HERE / "fresh" / "set_c.jsonl", HERE / "fresh" / "labels.json", "set_c"),
    "set_d": (HERE / "fresh" / "set_d.jsonl", HERE / "fresh" / "labels.json", "set_d"),
    "set_e": (HERE / "blind" / "set_e.jsonl", HERE / "blind" / "labels.json", "set_e"),
}


def load(name: str) -> tuple[list[Ask], dict[str, str]]:
    asks, label_of = [], {}
    with SETS[name][0].open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            ask = make_ask(row["session"], row["text"], row["at"], row["project"])
            if ask is not None:
                asks.append(ask)
                label_of[ask.id] = row["label"]
    return asks, label_of


def score(name: str, show: bool) -> dict[str, float]:
    asks, label_of = load(name)
    _, labels_file, key = SETS[name]
    labels = json.loads(labels_file.read_text(encoding="utf-8"))[key]
    gold = {k for k, v in labels.items() if v["kind"] == "pref" and v["sessions"] >= 3}
    t0 = time.process_time()
    proposals = propose(asks)
    took = time.process_time() - t0
    found: set[str] = set()
    plain = strict = 0
    wrong: list[tuple[Proposal, Counter[str]]] = []
    for p in proposals:
        kinds = Counter(label_of[e.ask] for e in p.evidence)
        label = next(iter(kinds)) if len(kinds) == 1 else ""
        if label in gold:
            plain += 1
            strict += label not in found
            if label in found:
                wrong.append((p, kinds))
            found.add(label)
        else:
            wrong.append((p, kinds))
    if show:
        for p, kinds in wrong:
            print(f"  WRONG {p.rule!r} sessions={len(p.sessions)} labels={dict(kinds)}")
            for e in p.evidence:
                print(f"      {label_of[e.ask]:28} {e.text}")
        for label in sorted(gold - found):
            print(f"  MISSED {label} ({labels[label]['sessions']} sessions)")
    n = len(proposals)
    return {"sessions": len({a.session for a in asks}), "asks": len(asks), "gold": len(gold),
            "proposals": n, "correct": plain, "precision": plain / n if n else 1.0,
            "strict": strict / n if n else 1.0, "recall": len(found) / len(gold) if gold else 1.0,
            "seconds": took}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", choices=[s for s in SETS if s not in HELD_OUT],
                    action="append", default=[],
                    help="print the wrong and missed proposals of a set you may tune on")
    ap.add_argument("--set", "--split", dest="sets", choices=list(SETS), action="append",
                    help="only this set (default: all)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {name: score(name, name in args.show) for name in (args.sets or list(SETS))}
    if args.json:
        print(json.dumps(results, indent=1))
    else:
        print("| set | sessions | asks | rules in 3+ sessions | proposals | correct "
              "| precision (plain) | precision (strict) | recall | propose CPU |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for name, r in results.items():
            print(f"| {name} | {r['sessions']} | {r['asks']} | {r['gold']} | {r['proposals']} "
                  f"| {r['correct']} | {r['precision']:.2f} | {r['strict']:.2f} "
                  f"| {r['recall']:.2f} | {r['seconds']:.2f} s |")
    ok = all(r["strict"] >= PRECISION_GOAL and r["recall"] >= RECALL_GOAL[name]
             for name, r in results.items())
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
