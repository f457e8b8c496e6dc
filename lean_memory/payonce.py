"""Pay once: what this session's hooks already injected, so nothing is injected twice
(ADR 0030).

In Claude Code and Codex whatever a hook injects stays in the transcript: the agent still
has it. So the standing rules ride the session start (and again after the context was
compacted or cleared: Claude Code's SessionStart ``source``), and each prompt gets only
what matches it and was not shown yet. The record is one small file per session in the
session layer (``<session home>/shown/<session>.txt``; personal, never committed, never
under ``.agents/``): one ``<entry id> <transcript bytes when shown>`` a line, at most
:data:`MAX_IDS` lines (the latest), replaced atomically, emptied when the context is
compacted or cleared. An id counts as shown while the transcript grew by less than
:data:`RESTATE_BYTES` since (an agent that compacts without telling the hook, such as
Codex, gets it again once that much has passed). At most :data:`MAX_SESSIONS` records are
kept (the oldest go). Reads and writes never raise: a failure means showing again.
"""

from __future__ import annotations

import os

from ._askrecord import clean_session_id, plain_name
from ._hash import blake2b
from ._record import suppress
from .sessionlog import _session_home, private_dir, read_private, write_private

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from ._protocols import MemoryLike
    from .fsutil import StrPath

SHOWN_DIR = "shown"
MAX_IDS = 2000  # ids remembered per session (a session shows far fewer)
MAX_SESSIONS = 64  # records kept; the least recently written go first
RESTATE_BYTES = 400_000  # ~100k tokens of transcript: past that, an id is shown again
RESETS = frozenset({"startup", "clear", "compact"})  # SessionStart sources: a fresh context


def _path(root: StrPath, session: str) -> str:
    sid = clean_session_id(session)
    name = sid if plain_name(sid, "_-") else \
        "h-" + blake2b(sid.encode(), digest_size=8).hexdigest()
    return os.path.join(_session_home(root), SHOWN_DIR, name + ".txt")


def transcript_bytes(payload: dict[str, object]) -> int:
    """How long the session's transcript is now (0 when the hook was not told)."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return 0
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _rows(root: StrPath, session: str) -> list[tuple[str, int]]:
    out = []
    with suppress(OSError, ValueError):
        for line in read_private(_path(root, session), 256 * 1024).splitlines():
            entry_id, _, at = line.partition(" ")
            if entry_id and at.isdigit():
                out.append((entry_id, int(at)))
    return out


def seen(root: StrPath, session: str, now: int) -> set[str]:
    """The ids this session was shown and still has in its context."""
    return {i for i, at in _rows(root, session) if 0 <= now - at < RESTATE_BYTES}


def note(root: StrPath, session: str, ids: list[str], now: int) -> None:
    """Add ``ids`` (shown when the transcript was ``now`` bytes long) to the record."""
    if not ids:
        return
    new = set(ids)
    rows = [r for r in _rows(root, session) if r[0] not in new]
    rows += [(i, now) for i in dict.fromkeys(ids)]
    with suppress(OSError, ValueError):
        # no fsync: a crash may cost this per-session cache (an entry shown again), never memory
        write_private(_path(root, session),
                      "".join(f"{i} {at}\n" for i, at in rows[-MAX_IDS:]), durable=False)


def reset(root: StrPath, session: str) -> None:
    """Forget what this session was shown (its context starts afresh); keep at most
    :data:`MAX_SESSIONS` records."""
    path = _path(root, session)
    with suppress(OSError, ValueError):
        os.unlink(path)
    folder = os.path.dirname(path)
    with suppress(OSError, ValueError):
        private_dir(folder)
        with os.scandir(folder) as found:
            files = sorted((e.stat().st_mtime_ns, e.path) for e in found
                           if e.name.endswith(".txt") and e.is_file(follow_symlinks=False))
        for _, old in files[: max(len(files) - MAX_SESSIONS + 1, 0)]:
            os.unlink(old)


def rules_shown(mems: list[MemoryLike | None], text: str) -> list[str]:
    """The ids of the standing rules of ``mems`` that ``text`` shows whole (a rule cut to
    fit the session start is not shown: a prompt it matches gets it whole)."""
    from .digest import RULES_SHARD, _rule_line

    out = []
    for mem in mems:
        if mem is None or RULES_SHARD not in mem.shards:
            continue
        with suppress(Exception):
            for e in mem.entries(RULES_SHARD):
                if _rule_line(e, 1 << 30, False) in text:
                    out.append(e.id)
    return out
