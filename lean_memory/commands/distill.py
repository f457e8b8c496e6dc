"""``lean-memory distill``: fold each quiet session into one summary entry."""

from __future__ import annotations

from ..learn import distill
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    done = distill(memory(args), ended=args.session or (), everything=args.all)
    for s in done:
        out.write(f"distilled {s.session}: {len(s.asked)} asks, {len(s.decided)} decided, "
                  f"{len(s.open)} open, {len(s.dead_ends)} dead ends ({s.id})\n")
    if not done:
        out.write("no quiet session to distill\n")
    return 0
