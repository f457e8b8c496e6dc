"""``lean-memory index``: regenerate INDEX.md."""

from __future__ import annotations

import os

from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    before = mem.read_text(mem.index_path).encode("utf-8")
    text = mem.index()
    changed = text.encode("utf-8") != before
    out.write(f"{os.path.relpath(mem.index_path, mem.root)}: "
              f"{'updated' if changed else 'unchanged'}\n")
    return 0
