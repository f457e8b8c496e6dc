"""What each way of reaching memory costs an agent per turn, in tokens (``estimate_tokens``).

    python bench/clients/costs.py [--conv 0] [--budget 1200]

Builds a memory from one LoCoMo conversation (its turns written as hand-written entries
spread over the five non-rule shards, plus a few standing rules) under bench/clients/.work/,
then measures, for that conversation's questions as prompts:

* hooks: the session-start block (once per session) and the per-prompt digest (median, p90),
  also for prompts memory has nothing to say about (the next conversation's questions: with
  the relevance gate, ADR 0021, they get the standing rules alone);
* MCP: the tool definitions and server instructions a client sends with every turn, and a
  ``memory_search`` result (k=5);
* Anthropic's memory tool: the ``view /memories`` listing the model starts with, and a
  shard viewed whole. (The tool's own definition lives on Anthropic's side, not measured.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DATA = Path(os.environ.get("LEAN_MEMORY_DATA", REPO.parent / "shared" / "data" / "retrieval")
            ) / "locomo_turns.jsonl"
sys.path.insert(0, str(REPO))

from lean_memory import agents, estimate_tokens  # noqa: E402
from lean_memory.mcp_server import INSTRUCTIONS, TOOLS  # noqa: E402
from lean_memory.memory_tool import MemoryToolHandler  # noqa: E402
from lean_memory.search import render_hits  # noqa: E402
from lean_memory.store import Memory  # noqa: E402

RULES = [
    "Run the tests with `python -m pytest -q` before every commit.",
    "Dates in memory are absolute (YYYY-MM-DD), never relative.",
    "Never store credentials; the scanner refuses them.",
]


def build(root: Path, conv: dict[str, object]) -> Memory:
    shutil.rmtree(root, ignore_errors=True)
    mem = Memory(root)
    mem.init()
    shards = [s for s in mem.shards if s != "conventions"]
    parts: dict[str, list[str]] = {s: [] for s in shards}
    docs = conv["docs"]
    assert isinstance(docs, list)
    for i, doc in enumerate(docs):
        title = " ".join(doc["text"].split()[:8])
        parts[shards[i % len(shards)]].append(f"## {title}\n\n{doc['text']}\n\n")
    for s in shards:
        path = mem.shard_path(s)
        path.write_text(path.read_text(encoding="utf-8") + "".join(parts[s]), encoding="utf-8")
    for rule in RULES:
        mem.put_entry("conventions", rule, date="2026-11-30")
    mem.index()
    return mem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conv", type=int, default=0, help="which LoCoMo conversation (0-9)")
    ap.add_argument("--budget", type=int, default=1200, help="the digest's token budget")
    args = ap.parse_args()
    with DATA.open(encoding="utf-8") as fh:
        convs = [json.loads(line) for line in fh]
    conv = convs[args.conv]
    mem = build(HERE / ".work", conv)
    prompts = [q["q"] for q in conv["queries"]]
    # prompts memory has nothing to say about: another conversation's questions
    unrelated = [q["q"] for q in convs[(args.conv + 1) % len(convs)]["queries"]]

    start = json.loads(agents.hook_output("session-start", str(mem.root), {"cwd": str(mem.root)},
                                          budget_tokens=args.budget))
    start_tokens = estimate_tokens(start["hookSpecificOutput"]["additionalContext"])
    digests = [estimate_tokens(mem.digest(p, budget_tokens=args.budget)) for p in prompts]
    others = [estimate_tokens(mem.digest(p, budget_tokens=args.budget)) for p in unrelated]
    rules_only = estimate_tokens(mem.digest("zzzz", budget_tokens=args.budget))
    searches = [estimate_tokens(render_hits(mem.search(p, k=5))) for p in prompts]
    handler = MemoryToolHandler(mem)
    listing = estimate_tokens(handler.execute({"command": "view", "path": "/memories"}))
    shard_views = [estimate_tokens(handler.execute({"command": "view",
                                                    "path": f"/memories/{s}.md"}))
                   for s in mem.shards]

    def p90(xs: list[int]) -> int:
        return sorted(xs)[int(0.9 * (len(xs) - 1))]

    print(f"LoCoMo conversation {conv['conv']}: {len(conv['docs'])} entries, "
          f"{len(prompts)} prompts, digest budget {args.budget}")
    print("| path | what is added to context | tokens |")
    print("|---|---|---|")
    print(f"| hooks | session start (INDEX.md + rules), once a session | {start_tokens} |")
    print(f"| hooks | before each prompt (digest), median / p90 | "
          f"{statistics.median(digests):.0f} / {p90(digests)} |")
    print(f"| hooks | before a prompt memory is not about (another conversation's "
          f"questions), median / mean; share with no matches | {statistics.median(others):.0f}"
          f" / {statistics.mean(others):.0f}; "
          f"{sum(t <= rules_only for t in others) / len(others):.0%} |")
    model_side = [{k: t[k] for k in ("name", "description", "inputSchema")} for t in TOOLS]
    print(f"| MCP | tool definitions (name, description, input schema) + instructions, "
          f"every turn | {estimate_tokens(json.dumps(model_side)) + estimate_tokens(INSTRUCTIONS)}"
          f" |")
    print(f"| MCP | the whole tools/list on the wire (output schemas too), at connect | "
          f"{estimate_tokens(json.dumps(TOOLS)) + estimate_tokens(INSTRUCTIONS)} |")
    print(f"| MCP | one `memory_search` (k=5) when called, median / p90 | "
          f"{statistics.median(searches):.0f} / {p90(searches)} |")
    print(f"| memory tool | `view /memories` when called | {listing} |")
    print(f"| memory tool | one shard viewed whole, median / max | "
          f"{statistics.median(shard_views):.0f} / {max(shard_views)} |")


if __name__ == "__main__":
    main()
