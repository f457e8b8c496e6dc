"""How much in-context recall a pooled memory allows at all (issue 33): the ranking of
`get --query` (BM25, no gate) over one memory holding every project's entries, cut at k.

    PYTHONPATH=$PWD python bench/coding/ceiling.py [--split dev] [--ks 1,3,5,8,10,20,40]

For the answering prompts (answerable, generic, typo, case, foreign) of the split, against
the pooled memory:

* **alone**: the share of a prompt's evidence among the top k of the ranking, and the
  tokens the top k cost as the digest's match lines;
* **in session**: the same over the pooled sessions, evidence counting when any earlier
  prompt of the session (or this one) had it in its top k: the figure the session bench
  reports, for a ranker that injects the top k of every prompt with no gate, no pay-once;
* **project known**: the same with the ranking restricted to the prompt's own project's
  entries: what a hook that knew the project (from ``cwd``, say) could reach;
* **does the prompt tell the project**: the share of prompts whose best hit, and the
  majority of whose top 5, come from the prompt's own project; and the prompts whose
  words tell nothing (every project's entries rank alike: "run the tests").

Per-prompt ranks are listed for the dev split only (the held-out split is for reporting).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.coding import run as R
from lean_memory.digest import _match_line
from lean_memory.search import find
from lean_memory.tokens import estimate_tokens

DEPTH = 400  # hits ranked per prompt (the pooled memory holds 344 entries)


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def ranking(built: R.Built, text: str) -> list[tuple[str, str]]:
    """(entry key, match line) of every hit of ``text``, best first."""
    id_key = {i: k for k, i in built.key_id.items()}
    found = find(built.mem, text, k=DEPTH)
    return [(id_key.get(h.entry.id, "?"), _match_line(h)) for h in found.hits]


def project_of(key: str) -> str:
    return key.rsplit("-", 1)[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    default = R.HERE / "data" if (R.HERE / "data" / "prompts.jsonl").exists() else R.HERE / "mini"
    ap.add_argument("--data", type=Path, default=default)
    ap.add_argument("--split", default="dev", choices=("dev", "heldout"))
    ap.add_argument("--ks", type=ints, default=[1, 3, 5, 8, 10, 15, 20, 40])
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lm-ceiling-"))
    os.environ.update({"XDG_DATA_HOME": str(work / "data"),
                       "LEAN_MEMORY_GLOBAL": str(work / "global")})
    projects, prompts, sessions = R.load_data(args.data)
    R.use_loader(args.data)
    built = R.Built(work / "pooled", sorted(projects), projects)
    answering = {pid: p for pid, p in prompts.items()
                 if p["split"] == args.split and p["kind"] in R.ANSWERING and p["evidence"]}
    ranked = {pid: ranking(built, p["text"]) for pid, p in answering.items()}

    def got(pid: str, k: int, own: bool) -> set[str]:
        if pid not in ranked:  # a prompt nothing answers: it injects its top k too
            ranked[pid] = ranking(built, prompts[pid]["text"])
        proj = prompts[pid]["project"]
        keys = [key for key, _ in ranked[pid] if not own or project_of(key) == proj]
        return set(keys[:k])

    def cost(pid: str, k: int) -> int:
        return sum(estimate_tokens(line) + 1 for _, line in ranked[pid][:k])

    def share(ev: list[str], held: set[str]) -> float:
        return sum(1 for e in ev if e in held) / len(ev)

    pooled = [s for s in sessions if s["memory"] == "pooled" and s["split"] == args.split]
    print(f"split {args.split}: {len(answering)} answering prompts, {len(pooled)} pooled "
          f"sessions ({sum(1 for s in pooled for p in s['prompts'] if p in answering)} "
          "answering prompts in them)\n")
    # the baseline's session: INDEX.md at the start, the top 5 rendered on every prompt
    base = sum(estimate_tokens(built.index_md) + sum(
        estimate_tokens(R.baseline_prompt(built, prompts[pid]["text"])) for pid in s["prompts"])
        for s in pooled) / max(len(pooled), 1)
    print(f"baseline session (INDEX.md + top 5 of get --query every prompt): {base:,.0f} "
          "tokens\n")
    print("| k | recall alone | tokens alone | in session | session tokens, each entry paid "
          "once / baseline | in session, project known | alone, project known |")
    print("|---|---|---|---|---|---|---|")
    for k in args.ks:
        alone = [share(p["evidence"], got(pid, k, False)) for pid, p in answering.items()]
        # (``tokens``: the answering prompts' top k as match lines)
        alone_own = [share(p["evidence"], got(pid, k, True)) for pid, p in answering.items()]
        tokens = [cost(pid, k) for pid in answering]
        sess, sess_own = [], []
        paid = 0
        for s in pooled:
            held: set[str] = set()
            held_own: set[str] = set()
            for pid in s["prompts"]:
                new = got(pid, k, False) - held
                paid += sum(estimate_tokens(line) + 1 for key, line in ranked[pid] if key in new)
                held |= new
                held_own |= got(pid, k, True)
                if pid not in answering:
                    continue
                sess.append(share(answering[pid]["evidence"], held))
                sess_own.append(share(answering[pid]["evidence"], held_own))
        print(f"| {k} | {R.mean(alone):.3f} | {R.mean(tokens):.0f} | "
              f"{R.mean(sess) or 0:.3f} | {paid / len(pooled) / base:.2f} | "
              f"{R.mean(sess_own) or 0:.3f} | "
              f"{R.mean(alone_own):.3f} |")

    top1 = maj = 0
    blind: list[str] = []
    for pid, p in answering.items():
        keys = [key for key, _ in ranked[pid]]
        if keys and project_of(keys[0]) == p["project"]:
            top1 += 1
        head = Counter(project_of(key) for key in keys[:5]).most_common(1)
        if head and head[0][0] == p["project"]:
            maj += 1
        if len({project_of(key) for key in keys[:5]}) >= 4:
            blind.append(pid)
    n = len(answering)
    print(f"\nthe best hit is the prompt's own project's: {top1 / n:.3f}; most of the top 5: "
          f"{maj / n:.3f}; top 5 from 4+ projects (the words do not tell): {len(blind)} "
          f"of {n}")
    if args.split != "dev":  # held-out: figures to report, never prompts to tune on
        return 0
    in_sessions = [pid for s in pooled for pid in s["prompts"] if pid in answering]
    print("pooled sessions' answering prompts, rank of each evidence entry (1-based; "
          "- = not found):")
    for pid in in_sessions:
        keys = [key for key, _ in ranked[pid]]
        ranks = [str(keys.index(e) + 1) if e in keys else "-" for e in answering[pid]["evidence"]]
        print(f"  {pid:18} {answering[pid]['kind']:10} {','.join(ranks):8} "
              f"{answering[pid]['text'][:70]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
