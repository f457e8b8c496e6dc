"""What every command shares: the program name, the usage error and the one way to write to
stderr (:mod:`lean_memory.cli`'s, named here too), and the ``--json`` writers. ``cli`` does
not load this module: a prompt's hook loads neither it nor its package (ADR 0050)."""

from __future__ import annotations

import sys

from ..cli import PROG, UsageError, say, say_error

__all__ = ["PROG", "UsageError", "dump", "entry_json", "read_stdin", "say", "say_error"]

TYPE_CHECKING = False  # not typing's: the hot commands never import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

    from ..format import Entry

def entry_json(entry: Entry) -> dict[str, Any]:
    """The stable ``--json`` shape of an entry."""
    return {
        "id": entry.id,
        "shard": entry.shard,
        "title": entry.title,
        "date": entry.date,
        "tags": list(entry.tags),
        "supersedes": entry.supersedes,
        "meta": dict(entry.meta),
        "text": entry.text,
    }


def dump(data: Any, out: TextIO) -> None:
    """``data`` as indented JSON and a line break."""
    import json  # hot path: json imports re; only --json pays for it (test_query_path.py)

    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


def read_stdin() -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("standard input is not valid UTF-8") from None
