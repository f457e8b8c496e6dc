"""The learning loop's storage and steps: asks kept per session, proposals said yes or no
to, quiet sessions distilled, and what the hooks add at session start (ADR 0023).

The matcher and the summaries are :mod:`lean_memory.asks` (pure; imported when needed, the
prompt hook keeps an ask with :mod:`lean_memory._askrecord` alone); this module reads and
writes the session layer (:func:`lean_memory.layers.session_home`)::

    asks/<session>.jsonl          one JSON ask a line, append-only, 0600
    asks/archive/<session>.jsonl  a distilled session's asks (searchable, never injected)
    .agents/memory/sessions.md    one summary entry per distilled session
    decisions.jsonl               proposals said yes or no to (never proposed again)
    latest.json                   the last distilled session's "still open" lines
    writes.jsonl                  entries written to this project, with the time
                                  (:mod:`lean_memory.sessionlog`; the global store's own)
    ends.jsonl                    when sessions ended (SessionEnd)

What a session decided is what was written between its first ask and its end
(:func:`window`), not what is dated within its days.

Nothing here approves a proposal without a person: :func:`decide` is called by the CLI only.
"""

from __future__ import annotations

import contextlib
import os

from . import _askrecord as R
from ._hash import blake2b
from ._jsonc import loads, string
from ._record import Record
from .errors import LeanMemoryError
from .layers import (
    GLOBAL,
    PROJECT,
    SESSION,
    Block,
    check_project,
    digest_blocks,
    global_memory,
    open_global,
)
from .sessionlog import (
    _data_home,
    _session_home,
    append_private,
    load_writes,
    now_utc,
    private_dir,
    read_private,
    write_private,
)

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from . import asks as A
    from .fsutil import StrPath
    from .search import Hit
    from .store import Memory

ASKS_DIR = "asks"
ARCHIVE_DIR = "archive"
SESSIONS_SHARD = R.SUMMARY_SHARD
MAX_FILE = R.MAX_ASKS_PER_SESSION * (R.MAX_ASK_BYTES + 1024)
COMPACT_ASKS = 10  # asks a compacted session gets back at its start
OPEN_LINES = 5  # "still open" lines of the last session at the next one's start
EXTRAS_SHARE = 4  # the session-start extras take at most 1/4 of the budget
MAX_EVIDENCE = 4000  # asks the matcher reads (the latest): ~1.5 s, within the hook's time
_TAG = "session-summary"
ENDS = "ends.jsonl"  # when sessions ended (SessionEnd): {"session", "at"} a line


class LearnError(LeanMemoryError):
    """A learning-loop command cannot do what was asked."""


# -- private files: the session layer's (lean_memory.sessionlog) ---------------------------

_private_dir = private_dir
_write = write_private
_append = append_private


def _read(path: StrPath) -> str:
    return read_private(path, MAX_FILE)


# -- asks -----------------------------------------------------------------------------------


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
        with contextlib.suppress(ValueError, TypeError, KeyError):
            d = loads(line)
            if isinstance(d, dict) and all(isinstance(d.get(k), str)
                                           for k in ("id", "session", "at", "text")):
                out.append(R.Ask(d["id"], d["session"], d["at"], d["text"],
                                 str(d.get("project", ""))))
    return out


def record(project: Memory, session: str, prompt: str, at: str | None = None) -> R.Ask | None:
    """Keep ``prompt`` as an ask of ``session`` (scanned, bounded, deterministic id); None
    when capture is off, the prompt is empty or the same ask is already kept. A session
    holds at most :data:`asks.MAX_ASKS_PER_SESSION` asks: the latest."""
    if not project.config.capture_asks:
        return None
    home = _session_home(project._root)  # its last part is the project's key
    ask = R.make_ask(session, prompt, at or now_utc(), project=os.path.basename(home))
    if ask is None:
        return None
    path = os.path.join(home, ASKS_DIR, _file_name(session))
    have = _parse(_read(path))
    if any(a.id == ask.id for a in have):
        return None
    if len(have) >= R.MAX_ASKS_PER_SESSION:
        kept = R.bound_session([*have, ask])
        _write(path, "".join(_record(a) for a in kept))
    else:
        _append(path, _record(ask))
    return ask


def _ask_files(home: StrPath, archived: bool) -> list[str]:
    folder = os.path.join(home, ASKS_DIR, ARCHIVE_DIR) if archived else \
        os.path.join(home, ASKS_DIR)
    with contextlib.suppress(OSError), os.scandir(folder) as found:
        return sorted(e.path for e in found if e.name.endswith(".jsonl") and e.name != ".jsonl"
                      and e.is_file() and not e.is_symlink())
    return []


def load_asks(home: StrPath, *, session: str | None = None,
              archived: bool | None = False) -> list[R.Ask]:
    """The asks kept in ``home`` (live; with ``archived`` True the archived ones, None both),
    in time order; of one session only with ``session``."""
    kinds = (False, True) if archived is None else (archived,)
    files = [p for k in kinds for p in _ask_files(home, k)
             if session is None or os.path.basename(p) == _file_name(session)]
    found = [a for p in files for a in _parse(_read(p))]
    if session is not None:
        sid = R.clean_session_id(session)
        found = [a for a in found if a.session == sid]
    return R._unique_asks(found)


def _homes() -> list[str]:
    with contextlib.suppress(OSError), \
            os.scandir(os.path.join(_data_home(), "lean-memory", "projects")) as found:
        return sorted(e.path for e in found if e.is_dir() and not e.is_symlink())
    return []


def all_asks() -> list[R.Ask]:
    """The latest :data:`MAX_EVIDENCE` asks of every project of this person, live and
    archived (the evidence proposals need: a rule asked in three projects is one rule)."""
    return R._unique_asks(a for h in _homes() for a in load_asks(h, archived=None))[
        -MAX_EVIDENCE:]


def ask_hits(project: Memory, session: str, query: str, k: int = 5) -> list[Hit]:
    """This session's asks (live and archived) that share words with ``query``, as hits
    of the pseudo-shard ``asks``, most shared words first, then the latest."""
    from .bm25 import tokenize
    from .format import Entry
    from .search import Hit

    want = set(tokenize(query))
    scored = []
    for a in load_asks(_session_home(project._root), session=session, archived=None):
        shared = len(want & set(tokenize(a.text)))
        if shared:
            title = " ".join(a.text.split())[:80]
            scored.append(Hit(Entry(a.id, ASKS_DIR, title, a.text, a.date), ASKS_DIR,
                              float(shared)))
    scored.sort(key=lambda h: (-h.score, h.entry.date or "", h.entry.id), reverse=False)
    return scored[:k]


# -- proposals ------------------------------------------------------------------------------


class Decision(Record):
    _fields = ("key", "rule", "verdict", "to")
    __slots__ = _fields
    key: str
    rule: str
    verdict: str  # "yes" or "no"
    to: str  # the layer written to ("" for a no)

    def __init__(self, key: str, rule: str, verdict: str, to: str) -> None:
        self._init(key, rule, verdict, to)


def decisions(project: Memory) -> list[Decision]:
    out = []
    path = os.path.join(_session_home(project._root), "decisions.jsonl")
    for line in _read(path).splitlines():
        with contextlib.suppress(ValueError, TypeError, KeyError):
            d = loads(line)
            out.append(Decision(str(d["key"]), str(d["rule"]), str(d["verdict"]),
                                str(d.get("to", ""))))
    return out


def _rules(mem: Memory | None) -> list[str]:
    from .digest import RULES_SHARD

    if mem is None or RULES_SHARD not in mem.shards or not os.path.isdir(mem._dir):
        return []
    return [e.title + "\n" + e.text for e in mem.entries(RULES_SHARD)]


def proposals(project: Memory) -> list[A.Proposal]:
    """Requests that came back in three or more sessions, not yet written as a rule here
    or globally, not said yes or no to: numbered 1.. in this order."""
    from . import asks as A

    done = decisions(project)
    known = [*_rules(project), *_rules(open_global()), *(d.rule for d in done)]
    keys = {d.key for d in done}
    return [p for p in A.propose(all_asks(), known) if p.key not in keys]


# How the agent-facing listings (the MCP status, the memory tool) say that proposals wait.
AWAITING = ("await the person's yes (only the person approves, with "
            "`lean-memory promote N --yes`; you cannot)")


def waiting(project: Memory) -> list[A.Proposal]:
    """The proposals that wait, for a listing an agent reads: the matcher runs only when
    the remembered count (:func:`pending`) says some do."""
    return proposals(project) if pending(project) else []


def listing_head(n: int) -> str:
    """The line above a listing of ``n`` waiting proposals."""
    return f"{n} rule proposal{'s' if n != 1 else ''} {AWAITING}:"


def _inputs_signature(project: Memory) -> str:
    """What the proposals depend on, by file signatures: every asks file, this project's
    decisions, the project's and the global conventions."""
    from .digest import RULES_SHARD
    from .fsutil import file_signature

    files = [p for h in _homes() for k in (False, True) for p in _ask_files(h, k)]
    files.append(os.path.join(_session_home(project._root), "decisions.jsonl"))
    for mem in (project, open_global()):
        if mem is not None and RULES_SHARD in mem.shards:
            files.append(mem._shard_file(RULES_SHARD))
    sigs = "\n".join(f"{p}\0{file_signature(p)}" for p in files)
    return blake2b(sigs.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def pending(project: Memory) -> int:
    """How many proposals wait, remembered while nothing they depend on changed (the
    matcher runs at most once per change, not at every session start)."""
    path = os.path.join(_session_home(project._root), "pending.json")
    key = _inputs_signature(project)
    with contextlib.suppress(ValueError, TypeError):
        cached = loads(_read(path) or "{}")
        if isinstance(cached, dict) and cached.get("key") == key and \
                isinstance(cached.get("count"), int):
            return int(cached["count"])
    count = len(proposals(project))
    import json

    with contextlib.suppress(OSError, LeanMemoryError):
        _write(path, json.dumps({"key": key, "count": count}) + "\n")
    return count


def pick(project: Memory, which: str) -> A.Proposal:
    """Proposal ``which``: its number in :func:`proposals` or its key."""
    found = proposals(project)
    if which.isdecimal() and 1 <= int(which) <= len(found):
        return found[int(which) - 1]
    for p in found:
        if p.key == which:
            return p
    raise LearnError(f"no proposal {which[:20]!r}: run `lean-memory promote` for the list")


def decide(project: Memory, proposal: A.Proposal, yes: bool, *, to_global: bool = False,
           date: str | None = None) -> str:
    """Write a proposal's rule (a person said yes) or dismiss it for good; the line to
    show. Only the CLI calls this, after a person's yes."""
    from .digest import RULES_SHARD

    where = ""
    if yes:
        target = global_memory(create=True) if to_global else project
        entry = target.put_entry(RULES_SHARD, proposal.rule, tags=("promoted",), date=date)
        where = GLOBAL if to_global else PROJECT
        said = f"wrote {entry.id} to {where} {RULES_SHARD}: {entry.title}"
    else:
        said = f"dismissed {proposal.key}: it will not be proposed again"
    import json

    _append(os.path.join(_session_home(project._root), "decisions.jsonl"), json.dumps(
        {"key": proposal.key, "rule": proposal.rule, "verdict": "yes" if yes else "no",
         "to": where, "at": now_utc()}, ensure_ascii=False, sort_keys=True) + "\n")
    return said


# -- distill --------------------------------------------------------------------------------


def session_store(project: Memory, *, create: bool = False) -> Memory | None:
    """The session layer's own store (its ``sessions`` shard holds the summaries)."""
    from .store import Memory

    home = _session_home(project._root)
    mem = Memory(home)
    if not os.path.isdir(mem._dir):
        if not create:
            return None
        _private_dir(os.path.join(home, ".agents"))
        config = os.path.join(home, ".agents", "config.toml")
        if not os.path.exists(config):
            # a summary of a long session lists up to 20 lines a part: over a project's cap
            _write(config, f'[memory]\nshards = ["{SESSIONS_SHARD}"]\n'
                           'max_entry_tokens = 20000\ntoken_budget = 1000000\n')
        mem.init()
    return mem


def _later(at: str, seconds: float) -> str:
    from datetime import datetime, timedelta

    moved = datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ") + timedelta(seconds=seconds)
    return moved.strftime("%Y-%m-%dT%H:%M:%SZ")


def _ends(home: str) -> dict[str, str]:
    """When each session ended (SessionEnd), the latest time noted."""
    out: dict[str, str] = {}
    for line in _read(os.path.join(home, ENDS)).splitlines():
        with contextlib.suppress(ValueError, TypeError, KeyError, AttributeError):
            d = loads(line)
            sid, at = d["session"], d["at"]
            if isinstance(sid, str) and isinstance(at, str) and R.is_time(at):
                out[sid] = max(out.get(sid, ""), at)
    return out


def window(project: Memory, session: str, mine: list[R.Ask], others: Iterable[R.Ask],
           ended: dict[str, str]) -> tuple[str, str]:
    """The time a session ran, (first ask, end): its end is when it ended (SessionEnd),
    else the first ask of another session of this project after its last, at the latest
    ``distill_after`` after its last ask (it was quiet from then on)."""
    first, last = mine[0].at, mine[-1].at
    end = ended.get(session, "")
    if end >= last:
        return first, end
    nxt = min((a.at for a in others if a.session != session and a.at > last), default="~")
    return first, min(nxt, _later(last, project.config.distill_after))


def _written(project: Memory, first: str, end: str) -> list[A.Written]:
    """Entries written to the project and global layers between ``first`` and ``end``
    (UTC times), as the write log noted them: each once, at its latest write, with its
    text as the memory holds it now (an entry no longer there is left out)."""
    from . import asks as A

    out = []
    for mem in (project, open_global()):
        if mem is None or not os.path.isdir(mem._dir):
            continue
        latest: dict[str, tuple[str, str]] = {}
        for at, entry_id, shard, _title in load_writes(mem._root):
            if first <= at <= end and shard in mem.shards:
                latest[entry_id] = (at, shard)
        entries = {e.id: e for shard in sorted({s for _, s in latest.values()})
                   for e in mem.entries(shard)}
        for entry_id, (at, _shard) in sorted(latest.items()):
            e = entries.get(entry_id)
            if e is not None:
                out.append(A.Written(e.id, e.shard, e.title, e.text, at))
    return out


def distill(project: Memory, *, now: str | None = None, ended: Iterable[str] = (),
            everything: bool = False) -> list[A.Summary]:
    """Fold each quiet session (no prompt for ``distill_after``, or ended, or every one
    with ``everything``) into one summary entry and archive its asks. Idempotent: a
    distilled session has no live asks left, and its summary is written once."""
    from . import asks as A

    home = _session_home(project._root)
    live = load_asks(home)
    if not live:
        return []
    ended = [R.clean_session_id(s) for s in ended]
    quiet = {a.session for a in live} if everything else set(A.quiet_sessions(
        live, now or now_utc(), project.config.distill_after, ended))
    done = []
    store = session_store(project, create=True) if quiet else None
    every = load_asks(home, archived=None) if quiet else []
    ends = _ends(home)
    for sid in sorted(quiet):
        assert store is not None
        mine = [a for a in every if a.session == sid]  # every: read once, in time order
        first, end = window(project, sid, mine, every, ends)
        summary = A.distill(sid, mine, _written(project, first, end))
        old = [e for e in store.entries(SESSIONS_SHARD) if summary.id in e.tags]
        if not old or old[-1].text.strip() != summary.text.strip():
            store.put_entry(SESSIONS_SHARD, summary.text, title=summary.title,
                            tags=(_TAG, summary.id), date=mine[-1].date, new=True,
                            supersedes=old[-1].id if old else None)
        _archive(home, sid)
        _note_latest(home, summary, mine[-1].at)
        done.append(summary)
    return done


def _archive(home: str, session: str) -> None:
    src = os.path.join(home, ASKS_DIR, _file_name(session))
    dst = os.path.join(home, ASKS_DIR, ARCHIVE_DIR, _file_name(session))
    text = _read(dst) + _read(src)
    _write(dst, "".join(_record(a) for a in R._unique_asks(_parse(text))))
    with contextlib.suppress(FileNotFoundError):
        os.unlink(src)


def _note_latest(home: str, summary: A.Summary, at: str) -> None:
    old = _latest(home)
    if old and str(old.get("at", "")) > at:
        return
    import json

    _write(os.path.join(home, "latest.json"), json.dumps(
        {"session": summary.session, "id": summary.id, "at": at,
         "open": [list(x) for x in summary.open]}, ensure_ascii=False, sort_keys=True) + "\n")


def _latest(home: str) -> dict[str, Any]:
    with contextlib.suppress(ValueError):
        d = loads(_read(os.path.join(home, "latest.json")) or "{}")
        return d if isinstance(d, dict) else {}
    return {}


# -- what the hooks add -------------------------------------------------------------------


def start_blocks(project: Memory, session: str | None, source: str | None,
                 budget: int, *, fold: bool = True) -> list[Block]:
    """The session-start extras: this session's asks after a compaction, the last
    session's still-open lines, how many proposals wait; in ``budget`` tokens."""
    from .digest import _clip, _tokens

    home = _session_home(project._root)
    blocks: list[Block] = []
    left = budget
    if fold and project.config.capture_asks:
        # sessions gone quiet are folded now, so their still-open lines can ride below
        with contextlib.suppress(LeanMemoryError, OSError):
            distill(project)
    if source == "compact" and session:
        mine = load_asks(home, session=session, archived=None)
        if mine:
            shown = mine[-COMPACT_ASKS:]
            lines = [_clip(f"- {' '.join(a.text.split())} ({a.id})", 60)[0] for a in shown]
            text = "\n## What the person asked in this session (before compaction)\n" + \
                "\n".join(lines) + "\n"
            note = f"{len(mine) - len(shown)} older asks left out" if len(mine) > len(shown) \
                else ""
            blocks.append(Block("asks of this session", SESSION, text, note))
    latest = _latest(home)
    still = [x for x in latest.get("open", []) if isinstance(x, list) and len(x) == 2]
    if still and latest.get("session") != (R.clean_session_id(session) if session else None):
        lines = [_clip(f"- {x[1]} ({x[0]})", 50)[0] for x in still[:OPEN_LINES]]
        more = len(still) - len(lines)
        text = "\n## Still open from the last session\n" + "\n".join(lines) + "\n" + (
            f"- (+{more} more: `lean-memory asks --archived`)\n" if more else "")
        blocks.append(Block("still open", SESSION, text))
    waiting = pending(project)
    if waiting:
        text = (f"\n_{waiting} rule proposal{'s' if waiting != 1 else ''} wait for the "
                "person's yes or no: `lean-memory promote` (never approve one yourself)._\n")
        blocks.append(Block("pending proposals", SESSION, text))
    kept = []
    for b in blocks:
        cost = _tokens(b.text)
        if cost <= left:
            kept.append(b)
            left -= cost
    return kept


def hook_blocks(project: Memory, event: str, payload: dict[str, Any], prompt: str,
                budget: int, include_archive: bool | None = None, *,
                act: bool = True) -> list[Block]:
    """What the hook for ``event`` injects, as blocks; with ``act`` (the hook itself),
    records the prompt as an ask and folds quiet sessions first (fail-open: a failure to
    record never costs the person the digest)."""
    check_project(project)
    session = payload.get("session_id")
    session = session if isinstance(session, str) and session else None
    if act and event == "UserPromptSubmit" and session and prompt.strip():
        with contextlib.suppress(Exception):
            record(project, session, prompt)
    extras: list[Block] = []
    source = payload.get("source")
    source = source if isinstance(source, str) else None
    if event == "SessionStart":
        with contextlib.suppress(Exception):
            extras = start_blocks(project, session, source,
                                  max(budget, 0) // EXTRAS_SHARE, fold=act)
    from .tokens import estimate_tokens

    used = sum(estimate_tokens(b.text) for b in extras)
    if session is None or not project.config.pay_once:
        return [*digest_blocks(project, prompt, budget_tokens=budget - used,
                               include_archive=include_archive), *extras]
    # Pay once (ADR 0030): the rules ride the start; a prompt gets what matches it and was
    # not shown yet in this session (it is still in the agent's context).
    from . import payonce

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


def hook_text(project: Memory, event: str, payload: dict[str, Any], prompt: str,
              budget: int) -> str:
    return "".join(b.text for b in hook_blocks(project, event, payload, prompt,
                                               budget)).lstrip("\n")


def end_session(payload: Any, where: StrPath | None) -> None:
    """``hook session-end``: distill the session that ended (``session_id`` of the hook's
    ``payload``) in the project at ``where``. The caller fails open."""
    from .store import Memory

    session = payload.get("session_id") if isinstance(payload, dict) else None
    if isinstance(session, str) and session and where is not None:
        project = check_project(Memory(where))
        if os.path.isdir(project._dir) and project.config.capture_asks:
            home = _session_home(project._root)
            if load_asks(home, session=session):  # when it ended bounds what it decided
                import json

                _append(os.path.join(home, ENDS), json.dumps(
                    {"session": R.clean_session_id(session), "at": now_utc()},
                    sort_keys=True) + "\n")
            distill(project, ended=[session])


def context(project: Memory, prompt: str | None, budget: int,
            session: str | None = None) -> list[tuple[str, list[Block]]]:
    """What lean_memory injects: the session-start blocks and the blocks before ``prompt``
    (the last ask kept when None). Reads only: nothing is recorded or folded."""
    start = hook_blocks(project, "SessionStart",
                        {"session_id": session or "", "source": "compact"}, "", budget,
                        act=False)
    if prompt is None:
        mine = load_asks(_session_home(project._root), session=session)
        prompt = mine[-1].text if mine else ""
    before = digest_blocks(project, prompt, budget_tokens=budget) if prompt.strip() else []
    return [("session start", start), ("before a prompt", before)]


__all__ = ["Decision", "LearnError", "all_asks", "context", "decide", "decisions", "distill",
           "hook_blocks", "hook_text", "load_asks", "pick", "proposals", "record",
           "session_store", "start_blocks"]
