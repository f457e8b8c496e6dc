"""``lean-memory status``: per-shard counts, tokens, budget, what rides every prompt."""

from __future__ import annotations

from ..errors import LeanMemoryError
from ..recall import hook_budget
from ..recall_sheet import injected_tokens
from ._common import PROG, dump
from ._memory import memory, retrievers_json, skip_line, status_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from ..store import Memory


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    if args.json:
        dump(status_json(mem), out)
        return 0
    st = mem.status()
    if not getattr(args, "global_", False):
        context_line = _context_line(mem)
    width = max(len("shard"), *(len(s.name) for s in st.shards))
    out.write(f"{'shard':<{width}}  {'entries':>7}  {'superseded':>10}  {'tokens':>7}\n")
    for s in st.shards:
        out.write(f"{s.name:<{width}}  {s.entries:>7}  {s.superseded:>10}  {s.tokens:>7,}\n")
    pct = 100 * st.total_tokens // max(st.token_budget, 1)
    due = "due" if st.compaction_due else "not due"
    out.write(f"total ~{st.total_tokens:,} of {st.token_budget:,} tokens ({pct}%); "
              f"compaction {due} (threshold {st.compact_threshold:,})\n")
    if not getattr(args, "global_", False):
        out.write(context_line)
    extra = retrievers_json(mem)
    if extra["retrievers"] != ["bm25"]:
        out.write(f"retrievers: {', '.join(extra['retrievers'])}\n")
    for name in extra["unknown_retrievers"]:
        out.write(f"retriever {name!r} is not installed: searches run without it\n")
    vectors = extra.get("vectors")
    if vectors:
        todo = vectors["entries"] - vectors["embedded"]
        out.write(f"vectors ({vectors['model']}): {vectors['embedded']} of "
                  f"{vectors['entries']} entries"
                  f"{f'; run `{PROG} embed` for the {todo} left' if todo else ''}\n")
        out.write(skip_line(vectors.get("last_skipped")))
    return 0


def _context_line(mem: Memory) -> str:
    """What rides at session start and before the last prompt, in tokens (`context`)."""
    try:
        start, before = injected_tokens(mem, hook_budget())
    except LeanMemoryError:
        return ""
    return (f"injected: ~{start:,} tokens at session start, ~{before:,} before the last "
            f"prompt (see `{PROG} context`)\n")
