"""The token cost of a memory over time, from the git history of its INDEX.md (the page's
chart): git is run isolated (no system or global config, no pager, no fsmonitor, no prompt)
and bounded (the last :data:`MAX_VERSIONS` commits, :data:`MAX_BYTES` kept, a time limit).
"""

from __future__ import annotations

import os

from ._record import Record
from .spawn import git

MAX_VERSIONS = 60
MAX_BYTES = 4 * 1024 * 1024
TIMEOUT_S = 5.0
# on top of spawn.git's own: no hook, no pager, no replacement objects (the history as it is)
_SAFE = ("-c", "core.hooksPath=" + os.devnull, "--no-pager", "--no-replace-objects")


class Point(Record):
    """INDEX.md as one commit left it: the commit's date, total tokens and budget."""

    _fields = ("date", "tokens", "budget", "commit")
    __slots__ = _fields
    date: str
    tokens: int
    budget: int
    commit: str

    def __init__(self, date: str, tokens: int, budget: int, commit: str) -> None:
        self._init(date, tokens, budget, commit)


def _git(root: str, args: list[str], stdin: bytes = b"") -> bytes | None:
    r = git(root, *_SAFE, *args, timeout=TIMEOUT_S, cap=MAX_BYTES, stdin=stdin)  # isolated
    return r.out if r.ok else None


def _number(text: str) -> int | None:
    digits = text.replace(",", "")
    return int(digits) if digits.isdecimal() else None


def total_line(text: str) -> tuple[int, int] | None:
    """(tokens, budget) of INDEX.md's ``Total ~N of B tokens`` line."""
    for line in reversed(text.splitlines()):
        if line.startswith("Total ~") and " of " in line and " tokens" in line:
            tokens, _, rest = line[len("Total ~"):].partition(" of ")
            n, b = _number(tokens), _number(rest.partition(" tokens")[0])
            if n is not None and b is not None:
                return n, b
    return None


def index_history(root: str, index: str) -> list[Point]:
    """The token total of ``index`` (a path inside the repository at ``root``) at each of its
    last commits, oldest first; [] without git or history."""
    rel = os.path.relpath(index, root).replace(os.sep, "/")
    log = _git(root, ["log", f"-n{MAX_VERSIONS}", "--format=%H %cs", "--no-renames", "--",
                      rel])
    if not log:
        return []
    commits = [ln.split(" ", 1) for ln in log.decode("ascii", "replace").splitlines()
               if len(ln.split(" ", 1)) == 2]
    asked = "".join(f"{c}:{rel}\n" for c, _ in commits).encode("utf-8", "surrogateescape")
    out = _git(root, ["cat-file", "--batch"], asked)
    if out is None:
        return []
    points = []
    at = 0
    for commit, date in commits:
        head_end = out.find(b"\n", at)
        if head_end < 0:
            break
        head = out[at:head_end].split()
        if len(head) != 3 or not head[2].isdigit():
            at = head_end + 1  # "missing": no body follows
            continue
        size = int(head[2])
        body = out[head_end + 1:head_end + 1 + size]
        at = head_end + 1 + size + 1
        found = total_line(body.decode("utf-8", "replace"))
        if found is not None:
            points.append(Point(date, found[0], found[1], commit[:10]))
    return points[::-1]
