"""``lean-memory hook EVENT``: an agent's hook (a hot command). The events and the function
answering each are ``hooks.ANSWERS``; this never fails the agent (always exit 0)."""

from __future__ import annotations

import sys

from ..hooks import run_hook

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    return run_hook(args.event, args.root, sys.stdin, out)
