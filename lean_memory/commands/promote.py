"""``lean-memory promote``: requests that came back in 3+ sessions, proposed as rules; one
is written only with a yes."""

from __future__ import annotations

import sys

from ..learn import decide, listing_line, pick, proposals
from ._common import PROG, UsageError, dump
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args, project=True)
    if args.which is None:
        if args.yes or args.no:
            raise UsageError("promote --yes/--no needs a proposal's id (p-…)")
        found = proposals(mem)
        if args.json:
            dump([p.as_json() for p in found], out)
            return 0
        for p in found:
            out.write(listing_line(p) + "\n")
            for _ask, session, date, text in p.evidence[:6]:
                out.write(f"     {date} {session[:12]}: {text}\n")
        out.write(f"{len(found)} proposal{'s' if len(found) != 1 else ''}; `{PROG} promote "
                  "ID --yes` writes one where it says (`--global`: to every project), "
                  "`--no` dismisses it in every project\n" if found else "no proposals\n")
        return 0
    p = pick(mem, args.which)
    if not (args.yes or args.no):
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("promote ID needs --yes or --no (or a terminal to ask on)")
        where = "global" if args.global_ else p.target
        sys.stdout.write(f"write to the {where} {p.shard}: {p.rule}\n[y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            out.write("nothing written\n")
            return 0
    out.write(decide(mem, p, not args.no, to_global=args.global_) + "\n")
    return 0
