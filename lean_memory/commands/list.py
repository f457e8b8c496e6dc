"""``lean-memory list``: the live entries with id, date, tokens, title and marks."""

from __future__ import annotations

from dataclasses import replace

from ..manage import list_entries
from ..shown import masked
from ._common import dump, entry_json
from ._memory import memory
from .get import note_withheld

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    rows = list_entries(mem, args.shard)
    shown, withheld = masked(mem, [r.entry for r in rows])
    rows = [replace(r, entry=e) for r, e in zip(rows, shown, strict=True)]
    note_withheld(withheld)
    if args.json:
        dump([{**entry_json(r.entry), "tokens": r.tokens, "superseded": r.superseded,
               "said_again": r.said_again} for r in rows], out)
        return 0
    shard = None
    for r in rows:
        if r.entry.shard != shard:
            shard = r.entry.shard
            out.write(f"{shard}:\n")
        marks = ("  [superseded]" if r.superseded else "") + (
            f"  [said again {r.said_again}x]" if r.said_again else "")
        out.write(f"  {r.entry.id}  {r.entry.date or '----------'}  ~{r.tokens:>4}  "
                  f"{r.entry.title}{marks}\n")
    if not rows:
        out.write("no entries\n")
    return 0
