"""``lean-memory compact``: fold the oldest entries when over budget."""

from __future__ import annotations

from ._common import dump
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    report = mem.compact(dry_run=args.dry_run)
    if args.json:
        dump(report.to_json(), out)
    else:
        out.write(report.describe())
    return 0
