"""One entry point per capability over every layer (ADR 0034): what the agent gets.

* :func:`search`: the ranking of ``get --query`` (global, project and this session's asks,
  each hit labelled with its layer; ``layers=("project",)`` for this store alone).
* :func:`injected`: the block a hook injects (``additionalContext``), byte for byte.
* :func:`context` and :func:`sheet`: every injected block, and one row per injected entry
  with its layer and cost (``context --json``).

Every client goes through these: the CLI, the hooks, MCP, the page and the
:class:`~lean_memory.Memory` API, so what a person is shown is what the agent gets.
"""

from __future__ import annotations

import os

from ._jsonc import string
from ._record import Record
from .errors import QueryError
from .layers import LAYERS, PROJECT, SESSION, LayerHit, find
from .search import find as find_one
from .sessionlog import _session_home, append_bounded, now_utc

# Inside functions on purpose: learn (the asks, the hook's blocks) and digest serve the hook,
# the page and the MCP server; the warm `get --query` comes here for `search` alone and loads
# neither (tests/test_hot_lines.py, ADR 0038).
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    from ._protocols import MemoryLike
    from .format import Entry

    Entries = Callable[[MemoryLike], Iterable[Entry]]  # every entry of a memory, live first

CONTEXT_LIMIT = 9000  # characters; Claude Code and Codex cap additionalContext at 10,000
PROMPT_EVENT = "UserPromptSubmit"
START_EVENT = "SessionStart"
THIS_STORE = (PROJECT,)  # ``layers=`` for the store searched alone (``get --global``)


class Found(Record):
    """What a search over the layers found: labelled hits, best first; how many entries
    that hold a credential were withheld; notes (a retriever searched without)."""

    _fields = ("hits", "withheld", "notes")
    __slots__ = _fields
    hits: list[LayerHit]
    withheld: int
    notes: tuple[str, ...]

    def __init__(self, hits: list[LayerHit], withheld: int, notes: tuple[str, ...]) -> None:
        self._init(hits, withheld, notes)


def hook_budget() -> int:
    """The hooks' digest budget (``LEAN_MEMORY_DIGEST_TOKENS``, else 1200)."""
    env = os.environ.get("LEAN_MEMORY_DIGEST_TOKENS", "")
    return int(env) if env.isdigit() else 1200


def search(project: MemoryLike, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
           include_archive: bool | None = None, session: str | None = None,
           layers: Sequence[str] = LAYERS) -> Found:
    """The ``k`` best entries for ``query`` over ``layers``: global, project and (with
    ``session``) that session's asks; ``layers=("project",)``: this store alone."""
    wanted = tuple(layers)
    if wanted == THIS_STORE:
        one = find_one(project, query, k=k, shards=shards, include_archive=include_archive)
        return Found([LayerHit(PROJECT, h) for h in one.hits], one.withheld, one.notes)
    if set(wanted) != set(LAYERS):
        raise ValueError(f"layers must be {LAYERS} or {THIS_STORE}")
    if session:
        from .learn import ask_hits

        asks = ask_hits(project, session, query, k)
    else:
        asks = []
    hits, withheld, notes = find(project, query, k=k, shards=shards,
                                 include_archive=include_archive, session=asks)
    return Found(hits, withheld, notes)


def fit(text: str) -> str:
    """``text`` cut at whole lines to :data:`CONTEXT_LIMIT` characters (both agents cap
    ``additionalContext``), the note of withheld entries kept; '' when nothing is left."""
    note = ""
    if len(text) > CONTEXT_LIMIT and text.endswith(")_\n") and "withheld: " in text[-200:]:
        cut = text.rstrip("\n").rfind("\n") + 1  # the note of withheld entries stays
        text, note = text[:cut], text[cut:]
    while len(text) + len(note) > CONTEXT_LIMIT:
        text = text[: text.rstrip("\n").rfind("\n") + 1] if "\n" in text.rstrip("\n") else ""
    return text + note if text.strip() else ""


def injected(project: MemoryLike, prompt: str, *, event: str = PROMPT_EVENT,
             payload: dict[str, Any] | None = None, budget_tokens: int | None = None,
             include_archive: bool | None = None, act: bool = False) -> str:
    """The ``additionalContext`` the hook for ``event`` injects before ``prompt`` ('' for
    nothing). With ``act`` (the hook itself) the prompt is kept as an ask first; without,
    nothing is written (the page, ``get --digest``, the API)."""
    if not isinstance(prompt, str):
        raise QueryError("the prompt must be a string")
    budget = hook_budget() if budget_tokens is None else budget_tokens
    if event == PROMPT_EVENT:  # a prompt: learn (its session-start half) stays unloaded
        from .prompthook import hook_blocks as prompt_blocks

        blocks = prompt_blocks(project, event, payload or {}, prompt, budget,
                               include_archive, act=act)
    else:
        from .learn import hook_blocks

        blocks = hook_blocks(project, event, payload or {}, prompt, budget, include_archive,
                             act=act)
    text = fit("".join(b.text for b in blocks).lstrip("\n"))
    if act and event == PROMPT_EVENT and text:
        _note_injected(project, payload or {}, prompt, text)
    return text


# -- the personal log of what was injected --------------------------------------------------

INJECTED_LOG = "injected.jsonl"  # in the session layer's folder: personal, never committed
MAX_LOGGED_LINES = 30  # entry lines noted per prompt
_KEY = 40  # characters of a line that name its entry


def _entry_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith("- ") and not ln.startswith("- (")]


def _note_injected(project: MemoryLike, payload: dict[str, Any], prompt: str, text: str) -> None:
    """Note which entries ``text`` injected before ``prompt`` (as the ask keeps it: a
    credential cut out) in the session layer's bounded log; never raises."""
    from . import _askrecord as R  # the hook's path only

    try:
        session = payload.get("session_id")
        if not project.config.capture_asks or not isinstance(session, str) or not session:
            return
        ask = R.make_ask(session, prompt, now_utc())
        if ask is None:
            return
        starts = ", ".join(string(ln[:_KEY], False)
                           for ln in _entry_lines(text)[:MAX_LOGGED_LINES])
        line = (f'{{"at": {string(ask.at)}, "session": {string(ask.session, False)}, '
                f'"prompt": {string(ask.text[:300], False)}, "lines": [{starts}]}}\n')
        append_bounded(os.path.join(_session_home(project._root), INJECTED_LOG), line)
    except Exception:  # the block is never lost for the sake of its note
        return


# -- one row per injected entry -------------------------------------------------------------

__all__ = ["CONTEXT_LIMIT", "LAYERS", "SESSION", "THIS_STORE", "Found", "fit", "hook_budget",
           "injected", "search"]
