"""``lean-memory show``: one entry as Markdown (or JSON)."""

from __future__ import annotations

from ..manage import find_entry
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
    [entry], withheld = masked(mem, [find_entry(mem, args.id)])
    note_withheld(withheld)
    if args.json:
        dump(entry_json(entry), out)
    else:
        out.write(entry.raw if entry.raw.endswith("\n") else entry.raw + "\n")
    return 0
