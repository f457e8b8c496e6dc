"""``lean-memory embed``: compute the missing vectors of the ollama retriever."""

from __future__ import annotations

import sys

from ..embedcmd import embed_missing
from ._common import PROG, UsageError
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    if "ollama" not in mem.config.retrievers:
        raise UsageError('the ollama retriever is off: add "ollama" to [memory] retrievers '
                         "in .agents/config.toml")
    shown = [False]

    def progress(done: int, total: int) -> None:
        if total > 64 and not args.quiet:  # only when it is long
            sys.stderr.write(f"\r{PROG}: embedded {done}/{total}")
            shown[0] = True

    try:
        done, total = embed_missing(mem, progress, timeout=args.timeout)
    finally:
        if shown[0]:
            sys.stderr.write("\n")
    out.write(f"embedded {done} entries; {total} searchable entries have vectors\n")
    return 0
