"""What a prompt needs of the learning loop (split from :mod:`lean_memory.learn`, whose
matcher, distiller and proposals a prompt never runs: ADR 0039): the prompt kept as an ask
(:func:`record`) and the blocks a hook injects (:func:`hook_blocks`). ``learn`` names both
too; a session start imports it for its extras.

Pay once (ADR 0030; here since ADR 0050, a module fewer before each prompt): what this
session's hooks already injected, so nothing is injected twice.

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

from . import _askrecord as R
from ._hash import blake2b
from ._jsonc import loads, string
from ._record import contextmanager, suppress
from .fsutil import file_lock
from .layers import check_project, digest_blocks, open_global
from .sessionlog import (
    _session_home,
    append_private,
    now_utc,
    private_dir,
    read_private,
    write_private,
)
from .tokens import estimate_tokens

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Any

    from ._protocols import MemoryLike
    from .fsutil import StrPath
    from .layers import Block

ASKS_DIR = "asks"
MAX_FILE = R.MAX_ASKS_PER_SESSION * (R.MAX_ASK_BYTES + 1024)
ASKS_LOCK = ".lock"  # held by a prompt keeping an ask and by a distill archiving a session


def _read(path: StrPath) -> str:
    return read_private(path, MAX_FILE)


def _file_name(session: str) -> str:
    sid = R.clean_session_id(session)
    if R.plain_name(sid, "_-"):  # [A-Za-z0-9][A-Za-z0-9_-]{0,63}
        return sid + ".jsonl"
    return "h-" + blake2b(sid.encode(), digest_size=8).hexdigest() + ".jsonl"


def _record(ask: R.Ask) -> str:
    # json.dumps({"id": …, "session": …, "at": …, "text": …, "project": …},
    # ensure_ascii=False, sort_keys=True), without importing json (the prompt hook's path)
    at, ask_id, project, session, text = (string(v, False) for v in (
        ask.at, ask.id, ask.project, ask.session, ask.text))
    return (f'{{"at": {at}, "id": {ask_id}, "project": {project}, "session": {session}, '
            f'"text": {text}}}\n')


def _parse(text: str) -> list[R.Ask]:
    out = []
    for line in text.splitlines():
        with suppress(ValueError, TypeError, KeyError):
            d = loads(line)
            if isinstance(d, dict) and all(isinstance(d.get(k), str)
                                           for k in ("id", "session", "at", "text")):
                out.append(R.Ask(d["id"], d["session"], d["at"], d["text"],
                                 str(d.get("project", ""))))
    return out


def record(project: MemoryLike, session: str, prompt: str, at: str | None = None, *,
           home: str | None = None) -> R.Ask | None:
    """Keep ``prompt`` as an ask of ``session`` (scanned, bounded, deterministic id); None
    when capture is off, the prompt is empty or the same ask is already kept. A session
    holds at most :data:`asks.MAX_ASKS_PER_SESSION` asks: the latest. Appends and the
    rewrite at the cap hold one lock, so racing prompts lose no ask. ``home``: the
    project's session layer (``sessionlog._session_home``), when the caller has it."""
    if not project.config.capture_asks:
        return None
    if home is None:
        home = _session_home(project._root)  # its last part is the project's key
    ask = R.make_ask(session, prompt, at or now_utc(), project=os.path.basename(home))
    if ask is None:
        return None
    path = os.path.join(home, ASKS_DIR, _file_name(session))
    with _locked(os.path.join(home, ASKS_DIR, ASKS_LOCK)):
        have = _parse(_read(path))
        if any(a.id == ask.id for a in have):
            return None
        if len(have) >= R.MAX_ASKS_PER_SESSION:
            kept = R.bound_session([*have, ask])
            write_private(path, "".join(_record(a) for a in kept))
        else:
            append_private(path, _record(ask))
    return ask


@contextmanager
def _locked(path: str) -> Iterator[None]:
    """An exclusive lock between processes on ``path`` (a private file)."""
    private_dir(os.path.dirname(path))
    with file_lock(path, root=os.path.dirname(path)):
        yield


def hook_blocks(project: MemoryLike, event: str, payload: dict[str, Any], prompt: str,
                budget: int, include_archive: bool | None = None, *,
                act: bool = True, extras: Sequence[Block] = ()) -> list[Block]:
    """What the hook for ``event`` injects, as blocks; with ``act`` (the hook itself),
    records the prompt as an ask first (fail-open: a failure to record never costs the
    person the digest). ``extras``: a session start's own blocks, after the digest
    (:func:`lean_memory.learn.hook_blocks` makes them, folding quiet sessions first)."""
    check_project(project)
    session = payload.get("session_id")
    session = session if isinstance(session, str) and session else None
    # the session layer's folder, worked out once a prompt (a realpath and a hash: ADR 0056)
    home: str | None = None
    if act and event == "UserPromptSubmit" and session and prompt.strip():
        with suppress(Exception):
            home = _session_home(project._root)
            record(project, session, prompt, home=home)
    source = payload.get("source")
    source = source if isinstance(source, str) else None

    used = sum(estimate_tokens(b.text) for b in extras)
    if session is None or not project.config.pay_once:
        return [*digest_blocks(project, prompt, budget_tokens=budget - used,
                               include_archive=include_archive), *extras]
    # Pay once (ADR 0030): the rules ride the start; a prompt gets what matches it and was
    # not shown yet in this session (it is still in the agent's context).

    now = transcript_bytes(payload)
    if event == "SessionStart":
        if act and (source is None or source in RESETS):
            reset(project._root, session)
        blocks = digest_blocks(project, prompt, budget_tokens=budget - used,
                               include_archive=include_archive)
        if act:
            text = "".join(b.text for b in blocks)
            note(project._root, session,
                         rules_shown([open_global(), project], text), now)
        return [*blocks, *extras]
    shown: list[str] = []
    if home is None:
        home = _session_home(project._root)
    blocks = digest_blocks(project, prompt, budget_tokens=budget - used,
                           include_archive=include_archive, rules=False,
                           seen=seen(project._root, session, now, home=home), shown=shown)
    if act:
        note(project._root, session, shown, now, home=home)
    return [*blocks, *extras]


# -- pay once (ADR 0030) ----------------------------------------------------------------

SHOWN_DIR = "shown"
MAX_IDS = 2000  # ids remembered per session (a session shows far fewer)
MAX_SESSIONS = 64  # records kept; the least recently written go first
RESTATE_BYTES = 400_000  # ~100k tokens of transcript: past that, an id is shown again
RESETS = frozenset({"startup", "clear", "compact"})  # SessionStart sources: a fresh context


def _shown_path(root: StrPath, session: str, home: str | None = None) -> str:
    sid = R.clean_session_id(session)
    name = sid if R.plain_name(sid, "_-") else \
        "h-" + blake2b(sid.encode(), digest_size=8).hexdigest()
    return os.path.join(_session_home(root) if home is None else home, SHOWN_DIR,
                        name + ".txt")


def transcript_bytes(payload: dict[str, object]) -> int:
    """How long the session's transcript is now (0 when the hook was not told)."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return 0
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _shown_rows(root: StrPath, session: str, home: str | None = None) -> list[tuple[str, int]]:
    out = []
    with suppress(OSError, ValueError):
        for line in read_private(_shown_path(root, session, home), 256 * 1024).splitlines():
            entry_id, _, at = line.partition(" ")
            if entry_id and at.isdigit():
                out.append((entry_id, int(at)))
    return out


def seen(root: StrPath, session: str, now: int, *, home: str | None = None) -> set[str]:
    """The ids this session was shown and still has in its context (``home``: the
    project's session layer, when the caller has it)."""
    return {i for i, at in _shown_rows(root, session, home) if 0 <= now - at < RESTATE_BYTES}


def note(root: StrPath, session: str, ids: list[str], now: int, *,
         home: str | None = None) -> None:
    """Add ``ids`` (shown when the transcript was ``now`` bytes long) to the record."""
    if not ids:
        return
    new = set(ids)
    rows = [r for r in _shown_rows(root, session, home) if r[0] not in new]
    rows += [(i, now) for i in dict.fromkeys(ids)]
    with suppress(OSError, ValueError):
        # no fsync: a crash may cost this per-session cache (an entry shown again), never memory
        write_private(_shown_path(root, session, home),
                      "".join(f"{i} {at}\n" for i, at in rows[-MAX_IDS:]), durable=False)


def reset(root: StrPath, session: str) -> None:
    """Forget what this session was shown (its context starts afresh); keep at most
    :data:`MAX_SESSIONS` records."""
    path = _shown_path(root, session)
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
