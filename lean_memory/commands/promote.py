"""``lean-memory promote``: requests that came back in 3+ sessions, proposed as rules; one
is written only with a yes."""

from __future__ import annotations

import sys

from ..learn import decide, pick, proposals
from ._common import PROG, UsageError, dump
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    if args.which is None:
        if args.yes or args.no:
            raise UsageError("promote --yes/--no needs a proposal's number")
        found = proposals(mem)
        if args.json:
            dump([{"number": i, "key": p.key, "rule": p.rule, "sessions": list(p.sessions),
                   "projects": len(p.projects), "suggest_global": p.suggest_global,
                   "evidence": [{"ask": e.ask, "session": e.session, "date": e.date,
                                 "text": e.text} for e in p.evidence]}
                  for i, p in enumerate(found, 1)], out)
            return 0
        for i, p in enumerate(found, 1):
            where = " (asked in several projects: --global suggested)" if p.suggest_global \
                else ""
            out.write(f"{i}. {p.rule}  [{len(p.sessions)} sessions{where}]\n")
            for e in p.evidence[:6]:
                out.write(f"     {e.date} {e.session[:12]}: {e.text}\n")
        out.write(f"{len(found)} proposal(s); `{PROG} promote N --yes` writes one, "
                  f"`--no` dismisses it\n" if found else "no proposals\n")
        return 0
    p = pick(mem, args.which)
    if not (args.yes or args.no):
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("promote N needs --yes or --no (or a terminal to ask on)")
        where = "global" if args.global_ else "project"
        sys.stdout.write(f"write to the {where} conventions: {p.rule}\n[y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            out.write("nothing written\n")
            return 0
    out.write(decide(mem, p, not args.no, to_global=args.global_) + "\n")
    return 0
