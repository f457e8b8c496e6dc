"""What was injected, seen from outside a prompt (split from :mod:`lean_memory.recall` by
ADR 0056: a prompt runs none of it, and each byte of code a prompt loads costs it ~22
instructions to unmarshal):

* :func:`context` and :func:`sheet`: every injected block, and one row per injected entry
  with its layer and cost (``context --json``, the page).
* :func:`injections`: the personal log of what was injected before each prompt (the page).
* :func:`injected_tokens`: ``status``'s line of what the hooks inject.

They read what :func:`lean_memory.recall.injected` makes and notes, so what a person is
shown is what the agent gets.
"""

from __future__ import annotations

import os

from . import learn
from ._jsonc import loads
from ._record import Record
from .digest import _match_text, _one_line
from .fsutil import dump_record, file_signature, load_record
from .layers import Block, digest_blocks, open_global
from .recall import _KEY, INJECTED_LOG, hook_budget
from .sessionlog import _session_home, read_private
from .tokens import estimate_tokens

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

    from ._protocols import MemoryLike
    from .format import Entry

    Entries = Callable[[MemoryLike], Iterable[Entry]]  # every entry of a memory, live first

LOG_SHOWN = 50  # prompts the page lists


class Injection(Record):
    """One prompt of the personal log: when, its session, the prompt (as kept) and the
    entries injected before it (``(id, title)``; id '' when no longer found)."""

    _fields = ("at", "session", "prompt", "entries")
    __slots__ = _fields
    at: str
    session: str
    prompt: str
    entries: tuple[tuple[str, str], ...]

    def __init__(self, at: str, session: str, prompt: str,
                 entries: tuple[tuple[str, str], ...]) -> None:
        self._init(at, session, prompt, entries)


def injections(project: MemoryLike, limit: int = LOG_SHOWN, *,
               entries: Entries | None = None) -> list[Injection]:
    """The latest ``limit`` prompts of the personal log, newest first."""
    raw = read_private(os.path.join(_session_home(project._root), INJECTED_LOG))
    rows = raw.splitlines()[-limit:]
    if not rows:
        return []
    kept = []
    for row in reversed(rows):
        try:
            d = loads(row)
            at, session, prompt, lines = d["at"], d["session"], d["prompt"], d["lines"]
        except (ValueError, TypeError, KeyError):
            continue
        if isinstance(lines, list) and all(
                isinstance(x, str) for x in (at, session, prompt, *lines)):
            kept.append((at, session, prompt, lines))
    ids, titles, lengths = _lookup(project, "\n".join(ln for *_, lines in kept for ln in lines),
                                   entries)
    out = []
    for at, session, prompt, lines in kept:
        found = [(_entry_id(ln, ids, lengths), ln[2:]) for ln in lines]
        out.append(Injection(at, session, prompt, tuple(
            (i, titles.get(i, t)) for i, t in found)))
    return out


def context(project: MemoryLike, prompt: str | None, budget: int | None = None,
            session: str | None = None) -> list[tuple[str, list[Block]]]:
    """Every block injected at session start and before ``prompt`` (the session's last ask
    when None); reads only."""
    return learn.context(project, prompt, hook_budget() if budget is None else budget,
                         session)


_INJECTED = "injected.marshal"
_INJECTED_VERSION = "lean_memory.injected/1"


def injected_tokens(project: MemoryLike, budget: int | None = None) -> tuple[int, int]:
    """The tokens :func:`context` injects at session start and before the session's last
    ask (``status``'s line). The second is the digest of that ask: a whole search, at 100k
    entries most of what ``status`` costs. So it is remembered in ``.cache/injected.marshal``
    (sealed) under the ask, the budget and the signature of every file a digest reads
    (:func:`_injected_key`); anything else misses and works it out again."""
    budget = hook_budget() if budget is None else budget
    start = sum(estimate_tokens(b.text) for b in learn.context(project, "", budget)[0][1])
    asks = learn.load_asks(_session_home(project._root))
    prompt = asks[-1].text if asks else ""
    if not prompt.strip():
        return start, 0
    path = os.path.join(project._cache, _INJECTED)
    key = _injected_key(project, prompt, budget)
    got = None if key is None else load_record(path, key, 1, project._agents)
    if got is not None and type(got[0]) is int:
        return start, got[0]
    before = sum(estimate_tokens(b.text) for b in digest_blocks(project, prompt,
                                                                 budget_tokens=budget))
    # remembered only when nothing it is keyed on changed meanwhile (a put, or the gate's
    # calibration this digest wrote: the next one remembers)
    if key is not None and key == _injected_key(project, prompt, budget):
        dump_record(path, key, [before], project._agents)
    return start, before


def _injected_key(project: MemoryLike, prompt: str, budget: int) -> list[Any] | None:
    """What a digest of ``prompt`` is made from: for each layer (the project, the global
    store when there is one) the signature of every file of its memory, archive and
    ``.agents`` folders and of its gate calibration, and of this package's own modules.
    None (nothing remembered) when a layer searches with more than BM25: a retriever
    plugin or an embedder's server are not files."""
    g = open_global()
    mems = [project] if g is None else [project, g]
    if any(m._retrievers is not None or tuple(m.config.retrievers) != ("bm25",)
           for m in mems):
        return None
    folders = [os.path.dirname(os.path.abspath(__file__))]
    files = []
    for m in mems:
        folders += [m._dir, os.path.join(m._dir, "archive"), m._agents]  # str: no pathlib
        files.append(os.path.join(m._cache, "digest-gate.marshal"))
    for folder in folders:
        try:
            with os.scandir(folder) as found:
                files += [f.path for f in found if f.is_file()]
        except OSError:
            files.append(folder)  # absent: its signature says so
    return [_INJECTED_VERSION, prompt, budget, None if g is None else g._root,
            sorted((f, file_signature(f)) for f in files)]


_STEM = 20  # characters of a title looked for in a block before its lines are worked out


def _starts(e: Entry) -> Iterable[str]:
    """How a digest line about ``e`` can begin (a rule, a match, a title alone)."""
    title = _one_line(e.title)
    yield f"- **{title}**: "
    yield f"- {_match_text(e)}"
    yield f"- {title}"


def _all_entries(mem: MemoryLike) -> Iterable[Entry]:
    for archive in (False, True):  # a live entry wins a shared beginning
        for name in mem.shards:
            yield from mem.entries(name, archive=archive)


def _ids(mems: Iterable[MemoryLike], text: str, entries: Entries | None = None,
         ) -> tuple[dict[str, str], dict[str, str]]:
    """{how a line begins: entry id}, {id: title} for the entries of ``mems`` (live, then
    archived) whose title begins a list line of ``text``."""
    out: dict[str, str] = {}
    titles: dict[str, str] = {}
    heads = {ln[at:at + n] for ln in text.splitlines() if ln.startswith("- ")
             for at in (2, 4) for n in range(1, _STEM + 1)}  # after "- " or "- **"
    for mem in mems:
        for e in (entries or _all_entries)(mem):
            stem = e.title.rstrip("…").strip()[:_STEM]
            if stem in heads:  # only these can have a line: the rest costs a set lookup
                titles.setdefault(e.id, e.title)
                for start in _starts(e):
                    out.setdefault(start[:_KEY], e.id)
    return out, titles


def _lookup(project: MemoryLike, text: str, entries: Entries | None,
            ) -> tuple[dict[str, str], dict[str, str], list[int]]:
    """:func:`_ids` over the project and the global store, and the lengths of the line
    beginnings longest first (what :func:`_entry_id` takes)."""
    g = open_global()
    ids, titles = _ids([project, *([g] if g is not None else [])], text, entries)
    return ids, titles, sorted({len(k) for k in ids}, reverse=True)


def _entry_id(line: str, ids: dict[str, str], lengths: Sequence[int]) -> str:
    if line.endswith(")") and " (" in line:  # an ask, a still-open line: ``- text (id)``
        tail = line.rpartition(" (")[2][:-1]
        if tail and " " not in tail and "," not in tail and not tail[:4].isdigit():
            return tail
    for n in lengths:
        found = ids.get(line[:n])
        if found is not None:
            return found
    return ""


def sheet(project: MemoryLike, parts: Sequence[tuple[str, Sequence[Block]]], budget: int, *,
          entries: Entries | None = None) -> list[dict[str, Any]]:
    """``context --json``: one row per injected entry (``id`` and ``title``; the heading
    and notes of a block are its row without an id), with its layer, block and tokens,
    and the budget; largest first. ``entries``: a memory's entries (a caller's cache)."""
    ids, titles, lengths = _lookup(project, "".join(b.text for _, blocks in parts
                                                    for b in blocks), entries)
    rows: list[dict[str, Any]] = []
    for when, blocks in parts:
        for b in blocks:
            rest: list[str] = []
            for line in b.text.splitlines(keepends=True):
                text = line.rstrip("\n")
                if text.startswith("- ") and not text.startswith("- (+"):
                    found = _entry_id(text, ids, lengths)
                    rows.append({"when": when, "layer": b.layer, "block": b.name,
                                 "id": found,
                                 "title": titles.get(found) or text[2:].replace("**", "")[:80],
                                 "tokens": estimate_tokens(line), "note": "",
                                 "budget": budget})
                else:
                    rest.append(line)
            if "".join(rest).strip():
                rows.append({"when": when, "layer": b.layer, "block": b.name, "id": "",
                             "title": "", "tokens": estimate_tokens("".join(rest)),
                             "note": b.note, "budget": budget})
    rows.sort(key=lambda r: (-r["tokens"], r["when"], r["block"], r["id"]))
    return rows

__all__ = ["LOG_SHOWN", "Injection", "context", "injected_tokens", "injections", "sheet"]
