"""``lean-memory asks``: what the person asked, as the prompt hook kept it."""

from __future__ import annotations

from ..learn import recent_asks
from ._common import dump
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    found = recent_asks(mem, session=args.session, archived=args.archived)
    if args.json:
        dump([{"id": a.id, "session": a.session, "at": a.at, "text": a.text,
               "folded": folded} for a, folded in found], out)
        return 0
    for a, folded in found:
        out.write(f"{a.at}  {a.session[:12]:<12}  {a.id}  {'folded  ' if folded else ''}"
                  f"{' '.join(a.text.split())[:100]}\n")
    if not found:
        out.write("no asks kept" + (" (capture_asks = false)" if not mem.config.capture_asks
                                    else "") + "\n")
    return 0
