"""``lean-memory context``: every block lean_memory injects, with its token cost."""

from __future__ import annotations

from .._record import listeners
from ..embedcmd import SKIPPED, last_skip
from ..recall import hook_budget
from ..recall_sheet import context, sheet
from ..tokens import estimate_tokens
from ._common import dump
from ._memory import memory, skip_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    mem._require_init()
    budget = hook_budget() if args.budget is None else args.budget
    skipped: list[str] = []  # the semantic extra searched without, now
    listeners.append(skipped.append)
    try:
        parts = context(mem, args.prompt, budget, args.session)
    finally:
        listeners.remove(skipped.append)
    if args.json:  # one row per injected entry (ADR 0034): the page's context sheet
        dump(sheet(mem, parts, budget), out)
        return 0
    for when, blocks in parts:
        total = sum(estimate_tokens(b.text) for b in blocks)
        out.write(f"{when}: ~{total:,} of {budget:,} tokens\n")
        for b in sorted(blocks, key=lambda b: (-estimate_tokens(b.text), b.name)):
            out.write(f"  ~{estimate_tokens(b.text):>5}  {b.layer:<8} {b.name}"
                      f"{'  (' + b.note + ')' if b.note else ''}\n")
        if not blocks:
            out.write("  nothing\n")
    if "ollama" in mem.config.retrievers:
        now = [n for n in skipped if n.startswith(SKIPPED)]
        out.write(f"semantic extra skipped now: {'; '.join(dict.fromkeys(now))}\n" if now
                  else skip_line(last_skip(mem)))
    return 0
