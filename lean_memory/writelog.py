"""The write log's writer: each entry a put (a correction, an edit, the memory tool's
writes) stored, noted with the time in its memory's session layer (ADR 0022, 0023). Where
the log lives, its bound and its reader (:func:`lean_memory.sessionlog.load_writes`, for
:mod:`lean_memory.learn`, which a session start loads) are :mod:`lean_memory.sessionlog`'s;
the writer is here, off the hot paths (ADR 0057).
"""

from __future__ import annotations

import os

from ._jsonc import string
from .sessionlog import WRITES, _data_home, _session_home, append_bounded, now_utc

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable

    from .format import Entry
    from .fsutil import StrPath


def _is_personal(root: StrPath) -> bool:
    """Whether ``root`` is a store of the session layer itself (its summaries): those
    writes are not decisions of a session."""
    projects = os.path.realpath(os.path.join(_data_home(), "lean-memory", "projects"))
    real = os.path.realpath(root)
    return real == projects or real.startswith(projects.rstrip(os.sep) + os.sep)


def _write_line(at: str, entry_id: str, shard: str, title: str) -> str:
    """One line of the write log, as ``json.dumps({...}, ensure_ascii=False,
    sort_keys=True)`` writes it, through json's own string encoder (``_jsonc``): no ``json``
    (and its ``re``) imported on every put."""
    at, entry_id, shard, title = (string(v, False) for v in (at, entry_id, shard, title))
    return f'{{"at": {at}, "id": {entry_id}, "shard": {shard}, "title": {title}}}\n'


def note_writes(root: StrPath, entries: Iterable[Entry], *, enabled: bool = True) -> None:
    """Note ``entries`` as written now to the memory at ``root``; never raises."""
    if not enabled:
        return
    try:
        if _is_personal(root):
            return
        at = now_utc()
        lines = "".join(_write_line(at, e.id, e.shard, e.title) for e in entries)
        if not lines:
            return
        append_bounded(os.path.join(_session_home(root), WRITES), lines)
    except Exception:  # a write is never lost for the sake of its note
        return
