"""``lean-memory put``: add an entry to a shard (a hot command: no typing, no json unless
``--json``)."""

from __future__ import annotations

import sys

from ..globalstore import OVERRIDES, overrides_global
from ._common import UsageError, dump, entry_json, read_stdin
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.text == "-" or (args.text is None and not sys.stdin.isatty()):
        text = read_stdin()
    elif args.text is None:
        raise UsageError("put needs the entry text (an argument, or '-' to read standard input)")
    else:
        text = args.text
    mem = memory(args)
    tags, supersedes = args.tag or [], args.supersedes
    if supersedes and not args.global_ and overrides_global(mem, supersedes):
        tags, supersedes = [*tags, OVERRIDES + supersedes], None  # hidden in this project only
    entry = mem.put_entry(args.shard, text, title=args.title, tags=tags,
                          date=args.date, supersedes=supersedes, new=args.new)
    if args.json:
        dump(entry_json(entry), out)
    elif entry.get("said_again") and not args.new:
        out.write(f"said again: {entry.id} in {entry.shard}: {entry.title} "
                  f"(x{int(entry.get('said_again') or 0) + 1})\n")
    else:
        out.write(f"added {entry.id} to {entry.shard}: {entry.title}\n")
    return 0
