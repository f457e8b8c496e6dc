"""``lean-memory mcp``: serve the memory over the Model Context Protocol (stdio)."""

from __future__ import annotations

from .. import mcp_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    return mcp_server.run(args.root)
