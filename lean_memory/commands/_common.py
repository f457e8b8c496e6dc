"""What every command shares and the CLI's entry needs too: the program name, the usage
error, the one way to write to stderr, and the ``--json`` writers. Imports nothing heavy:
``cli`` loads it for every command."""

from __future__ import annotations

import sys

from ..errors import LeanMemoryError, redact_message

TYPE_CHECKING = False  # not typing's: the hot commands never import typing
if TYPE_CHECKING:
    from typing import Any, TextIO

    from ..format import Entry

PROG = "lean-memory"


class UsageError(LeanMemoryError):
    """Bad command-line usage."""


def say(message: str) -> None:
    """The one way the CLI writes to stderr: one line, redacted (it may quote user input)."""
    line = " ".join(redact_message(message).split())
    sys.stderr.write(f"{PROG}: {redact_message(line)}\n")  # joined lines: check again


def say_error(message: str) -> None:
    say(f"error: {message}")


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
