"""``lean-memory merge-driver``: git's merge driver for shards (``%O %A %B %P``)."""

from __future__ import annotations

from ..merge import merge_driver

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    return merge_driver(args.base, args.ours, args.theirs, args.path)
