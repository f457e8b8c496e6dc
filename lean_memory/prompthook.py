"""What a prompt needs of the learning loop (split from :mod:`lean_memory.learn`, whose
matcher, distiller and proposals a prompt never runs: ADR 0039): the prompt kept as an ask
(:func:`record`) and the blocks a hook injects (:func:`hook_blocks`). ``learn`` names both
too; a session start imports it for its extras.
"""

from __future__ import annotations

import os

from . import _askrecord as R
from . import payonce
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


def record(project: MemoryLike, session: str, prompt: str, at: str | None = None) -> R.Ask | None:
    """Keep ``prompt`` as an ask of ``session`` (scanned, bounded, deterministic id); None
    when capture is off, the prompt is empty or the same ask is already kept. A session
    holds at most :data:`asks.MAX_ASKS_PER_SESSION` asks: the latest. Appends and the
    rewrite at the cap hold one lock, so racing prompts lose no ask."""
    if not project.config.capture_asks:
        return None
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
    if act and event == "UserPromptSubmit" and session and prompt.strip():
        with suppress(Exception):
            record(project, session, prompt)
    source = payload.get("source")
    source = source if isinstance(source, str) else None

    used = sum(estimate_tokens(b.text) for b in extras)
    if session is None or not project.config.pay_once:
        return [*digest_blocks(project, prompt, budget_tokens=budget - used,
                               include_archive=include_archive), *extras]
    # Pay once (ADR 0030): the rules ride the start; a prompt gets what matches it and was
    # not shown yet in this session (it is still in the agent's context).

    now = payonce.transcript_bytes(payload)
    if event == "SessionStart":
        if act and (source is None or source in payonce.RESETS):
            payonce.reset(project._root, session)
        blocks = digest_blocks(project, prompt, budget_tokens=budget - used,
                               include_archive=include_archive)
        if act:
            text = "".join(b.text for b in blocks)
            payonce.note(project._root, session,
                         payonce.rules_shown([open_global(), project], text), now)
        return [*blocks, *extras]
    shown: list[str] = []
    blocks = digest_blocks(project, prompt, budget_tokens=budget - used,
                           include_archive=include_archive, rules=False,
                           seen=payonce.seen(project._root, session, now), shown=shown)
    if act:
        payonce.note(project._root, session, shown, now)
    return [*blocks, *extras]
