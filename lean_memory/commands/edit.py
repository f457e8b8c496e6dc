"""``lean-memory edit``: edit one entry in $EDITOR, checked like a put."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile

from ..errors import quoted
from ..manage import find_entry, replace_entry
from ..secrets import redact_path
from ._common import UsageError
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    entry = find_entry(mem, args.id)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, name = tempfile.mkstemp(prefix=f"edit-{quoted(entry.id, 40)}-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(entry.raw)
        try:
            code = subprocess.run([*shlex.split(editor), name], check=False).returncode
        except OSError as exc:
            raise UsageError(f"cannot start the editor {redact_path(editor)!r}: "
                             f"{exc.strerror}; set $EDITOR") from None
        if code != 0:
            raise UsageError(f"the editor exited with {code}; nothing was written")
        try:
            with open(name, encoding="utf-8", newline="") as fh:
                edited = fh.read()
        except UnicodeDecodeError:  # not an internal error: the editor saved another encoding
            raise UsageError("the edited entry is not UTF-8; nothing was written") from None
    finally:
        os.unlink(name)
    if edited == entry.raw:
        out.write(f"{entry.id}: unchanged\n")
        return 0
    stored = replace_entry(mem, entry.id, edited, expected_raw=entry.raw)
    out.write(f"{stored.id}: edited ({stored.shard}: {stored.title})\n")
    return 0
