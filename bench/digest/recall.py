"""Evidence recall of the digest on LoCoMo, against ranked hits packed into the same budget.

    python bench/digest/recall.py [--budgets 400,800,1200,2000] [--convs 10]

For each LoCoMo conversation, its turns are written as hand-written entries spread over the
five non-rule shards (title: the speaker and the first words; body: the turn), INDEX.md is
regenerated, and every question is asked as a prompt. A question counts as answered when the
text of at least one of its evidence turns (white space normalised) is in the block:

* ``digest``: ``mem.digest(q, budget_tokens=B)``, what the prompt hook injects;
* ``fts5``: SQLite FTS5 (bm25 ranking, the words of the question OR-ed) hits, one line per
  hit in rank order, packed until the next line would pass B;
* ``ranked``: lean_memory's own ranking (``mem.search``) packed the same way.

Tokens are counted with ``estimate_tokens``; the tokens the digest actually used are
reported too (median), and the digest never passes B (checked).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA = REPO.parent / "shared" / "data" / "retrieval" / "locomo_turns.jsonl"
sys.path.insert(0, str(REPO))

from lean_memory import estimate_tokens  # noqa: E402
from lean_memory.store import Memory  # noqa: E402

SHARDS = ("seed", "failures", "corrections", "insights", "quirks")
WORD = re.compile(r"\w+")


def norm(text: str) -> str:
    return " ".join(text.split())


def title_of(text: str) -> str:
    words = text.split()
    return " ".join(words[:8]) + ("…" if len(words) > 8 else "")


def build(root: Path, docs: list[dict[str, str]]) -> Memory:
    shutil.rmtree(root, ignore_errors=True)
    mem = Memory(root)
    mem.init()
    parts: dict[str, list[str]] = {s: [] for s in SHARDS}
    for i, doc in enumerate(docs):
        parts[SHARDS[i % len(SHARDS)]].append(f"## {title_of(doc['text'])}\n\n{doc['text']}\n\n")
    for s in SHARDS:
        path = mem.shard_path(s)
        path.write_text(path.read_text(encoding="utf-8") + "".join(parts[s]), encoding="utf-8")
    mem.index()
    return mem


def pack(lines: list[str], budget: int) -> str:
    """Lines in order until the next would pass ``budget`` (estimates add up per line)."""
    out: list[str] = []
    used = 0
    for line in lines:
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return "\n".join(out)


def fts5_lines(docs: list[dict[str, str]]) -> tuple[sqlite3.Connection, list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(title, body)")
    db.executemany("INSERT INTO t(rowid, title, body) VALUES (?, ?, ?)",
                   [(i, title_of(d["text"]), d["text"]) for i, d in enumerate(docs)])
    return db, [f"- {title_of(d['text'])}: {norm(d['text'])}" for d in docs]


def fts5_rank(db: sqlite3.Connection, q: str, k: int = 50) -> list[int]:
    words = sorted({w.lower() for w in WORD.findall(q)})
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?",
                      (match, k)).fetchall()
    return [r[0] for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budgets", default="400,800,1200,2000")
    ap.add_argument("--convs", type=int, default=10, help="how many conversations (max 10)")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    with DATA.open(encoding="utf-8") as fh:
        convs = [json.loads(line) for line in fh][: args.convs]
    hits = {(name, b): 0 for name in ("digest", "fts5", "ranked") for b in budgets}
    used: dict[int, list[int]] = {b: [] for b in budgets}
    over = 0
    n = 0
    t0 = time.perf_counter()
    for conv in convs:
        docs = conv["docs"]
        by_id = {d["id"]: norm(d["text"]) for d in docs}
        mem = build(HERE / ".work", docs)
        db, lines = fts5_lines(docs)
        for q in conv["queries"]:
            evidence = [by_id[r] for r in q["relevant"] if r in by_id]
            if not evidence:
                continue
            n += 1
            fts = [lines[i] for i in fts5_rank(db, q["q"])]
            ranked = [f"- {h.entry.title}: {norm(h.entry.text)}"
                      for h in mem.search(q["q"], k=50)]
            for b in budgets:
                block = mem.digest(q["q"], budget_tokens=b)
                tokens = estimate_tokens(block)
                over += tokens > b
                used[b].append(tokens)
                for name, text in (("digest", norm(block)), ("fts5", norm(pack(fts, b))),
                                   ("ranked", norm(pack(ranked, b)))):
                    hits[(name, b)] += any(e in text for e in evidence)
    print(f"LoCoMo: {len(convs)} conversations, {n} questions with evidence, "
          f"{time.perf_counter() - t0:.0f} s; digests over budget: {over}")
    print("| budget B | digest (tokens used, median) | FTS5 hits packed to B | "
          "lean_memory's ranking packed to B |")
    print("|---|---|---|---|")
    for b in budgets:
        print(f"| {b:,} | {hits[('digest', b)] / n:.3f} ({statistics.median(used[b]):.0f}) | "
              f"{hits[('fts5', b)] / n:.3f} | {hits[('ranked', b)] / n:.3f} |")


if __name__ == "__main__":
    main()
