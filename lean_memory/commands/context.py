"""``lean-memory context``: every block lean_memory injects, with its token cost."""

from __future__ import annotations

from .._listeners import listeners
from ..embedcmd import SKIPPED, last_skip
from ..learn import context
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
    skipped: list[str] = []  # the semantic extra searched without, now
    listeners.append(skipped.append)
    try:
        parts = context(mem, args.prompt, args.budget, args.session)
    finally:
        listeners.remove(skipped.append)
    rows = [(when, b.layer, b.name, estimate_tokens(b.text), b.note)
            for when, blocks in parts for b in blocks]
    if args.json:
        dump([{"when": w, "layer": layer, "block": n, "tokens": t, "note": note}
              for w, layer, n, t, note in sorted(rows, key=lambda r: (-r[3], r[0], r[2]))],
             out)
        return 0
    for when, blocks in parts:
        total = sum(estimate_tokens(b.text) for b in blocks)
        out.write(f"{when}: ~{total:,} of {args.budget:,} tokens\n")
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
