"""``lean-memory forget``: move one entry to the archive (never destroyed)."""

from __future__ import annotations

from ..manage import forget
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    entry = forget(memory(args), args.id, reason=args.reason, date=args.date)
    out.write(f"{entry.id}: moved to archive/{entry.shard}.md ({entry.title})\n")
    return 0
