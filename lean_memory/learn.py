"""The learning loop's storage and steps: asks kept per session, proposals said yes or no
to, quiet sessions distilled, and what the hooks add at session start (ADR 0023).

The matcher and the summaries are :mod:`lean_memory.asks` (pure; imported when needed, the
prompt hook keeps an ask with :mod:`lean_memory._askrecord` alone); this module reads and
writes the session layer (:func:`lean_memory.layers.session_home`)::

    asks/<session>.jsonl          one JSON ask a line, append-only, 0600
    asks/archive/<session>.jsonl  a distilled session's asks (searchable, never injected)
    .agents/memory/sessions.md    one summary entry per distilled session
    decisions.jsonl               a project's older decisions (now the person's, below)
    identity.json                 the project's identity (its repository's first commit)
    hidden.json                   proposals this project's rules already say
    latest.json                   the last distilled session's "still open" lines
    writes.jsonl                  entries written to this project, with the time
                                  (:mod:`lean_memory.sessionlog`; the global store's own)
    ends.jsonl                    when sessions ended (SessionEnd)

and the person's own, beside the global store (:func:`learn_home`)::

    decisions.jsonl               proposals said yes or no to, by id (a no holds everywhere)
    agent-proposals.jsonl         rules an agent proposed (they wait for the person's yes)
    proposals.json                the matcher's last results over every project's asks

What a session decided is what was written between its first ask and its end
(:func:`window`), not what is dated within its days.

Nothing here approves a proposal without a person: :func:`decide` is called by the CLI and
the page only. The person's own files (their decisions, what agents proposed, the matcher's
last results) are in :func:`learn_home`, beside the global store: a no holds in every
project. The hooks never fold a session or run the matcher at session start; SessionEnd and
a background process (:func:`learn_soon`) do.
"""

from __future__ import annotations

import os
import time
from bisect import bisect_left, bisect_right

from . import _askrecord as R
from . import format as fmt
from ._hash import blake2b
from ._jsonc import loads
from ._record import Record, suppress
from .bm25 import tokenize
from .digest import RULES_SHARD, _clip, _tokens
from .errors import InvalidEntry, LeanMemoryError, SecretFound
from .format import Entry
from .fsutil import atomic_write, file_signature
from .globalstore import writable
from .layers import (
    GLOBAL,
    PROJECT,
    SESSION,
    Block,
    _global_root,
    check_project,
    digest_blocks,
    global_memory,
    memory_at,
    open_global,
)
from .prompthook import (  # noqa: F401 (learn's names since before ADR 0039)
    ASKS_DIR,
    ASKS_LOCK,
    MAX_FILE,
    _file_name,
    _locked,
    _parse,
    _read,
    _record,
    record,
)
from .prompthook import hook_blocks as prompt_blocks
from .search import Hit
from .sessionlog import (
    _data_home,
    _session_home,
    append_private,
    load_writes,
    now_utc,
    private_dir,
    write_private,
)
from .spawn import detached, git

# Inside functions on purpose: json, datetime, the matcher (asks) and the scanner
# serve distill, match and propose only; a session start imports this module (ADR 0039).
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from . import asks as A
    from ._protocols import MemoryLike, Writable
    from .format import Entry
    from .fsutil import StrPath
    from .search import Hit

ARCHIVE_DIR = "archive"
SESSIONS_SHARD = R.SUMMARY_SHARD
COMPACT_ASKS = 10  # asks a compacted session gets back at its start
OPEN_LINES = 5  # "still open" lines of the last session at the next one's start
EXTRAS_SHARE = 4  # the session-start extras take at most 1/4 of the budget
MAX_EVIDENCE = 4000  # asks the matcher reads (the latest): ~1.5 s, never on a hook's clock
_TAG = "session-summary"
ENDS = "ends.jsonl"  # when sessions ended (SessionEnd): {"session", "at"} a line


class LearnError(LeanMemoryError):
    """A learning-loop command cannot do what was asked."""


# -- private files: the session layer's (lean_memory.sessionlog) ---------------------------

_private_dir = private_dir
_write = write_private
_append = append_private


# -- asks -----------------------------------------------------------------------------------


def _ask_files(home: StrPath, archived: bool) -> list[str]:
    folder = os.path.join(home, ASKS_DIR, ARCHIVE_DIR) if archived else \
        os.path.join(home, ASKS_DIR)
    with suppress(OSError), os.scandir(folder) as found:
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


RECENT_ASKS = 50  # asks `lean-memory asks` shows by default (the latest)


def recent_asks(project: MemoryLike, *, session: str | None = None,
                archived: bool = False) -> list[tuple[R.Ask, bool]]:
    """What `lean-memory asks` lists, each with whether it was folded (its session
    distilled): the latest :data:`RECENT_ASKS`, live or folded; with ``session`` all of that
    session's; with ``archived`` only the folded ones."""
    home = _session_home(project._root)
    old = load_asks(home, session=session, archived=True)  # each ask file read once
    folded = {a.id for a in old}
    found = old if archived else R._unique_asks([*load_asks(home, session=session), *old])
    if session is None and not archived:
        found = found[-RECENT_ASKS:]
    return [(a, a.id in folded) for a in found]


def _homes() -> list[str]:
    with suppress(OSError), \
            os.scandir(os.path.join(_data_home(), "lean-memory", "projects")) as found:
        return sorted(e.path for e in found if e.is_dir() and not e.is_symlink())
    return []


def all_asks() -> list[R.Ask]:
    """The latest :data:`MAX_EVIDENCE` asks of every project of this person, live and
    archived (the evidence proposals need: a rule asked in three projects is one rule)."""
    out = []
    for h in _homes():
        label, ident = os.path.basename(h), _home_identity(h)
        # an ask carries its home's path label; the home's identity (its repository's
        # first commit) makes a moved or re-cloned project's asks one project's
        out += [a if a.project != label or ident == label else
                R.Ask(a.id, a.session, a.at, a.text, ident)
                for a in load_asks(h, archived=None)]
    return R._unique_asks(out)[-MAX_EVIDENCE:]


def ask_hits(project: MemoryLike, session: str, query: str, k: int = 5) -> list[Hit]:
    """This session's asks (live and archived) that share words with ``query``, as hits
    of the pseudo-shard ``asks``, most shared words first, then the latest."""
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


# -- who the person is, and which project this is -----------------------------------------


def learn_home() -> str:
    """The person's own learning files (decisions, agent proposals, the matcher's last
    results): beside the global store (ADR 0022), so they follow the person, not a project."""
    return os.path.join(_global_root(), ".agents", "learn")


def _git_stamp(root: str) -> str:
    """Which clone ``root`` is in: the nearest ``.git`` above it (device, inode) and when
    its ``HEAD`` was written (a new clone or ``git init`` at the same place may reuse the
    inode, never the time); '' outside a repository."""
    here = root
    while True:
        with suppress(OSError):
            st = os.stat(os.path.join(here, ".git"))
            head = ""
            with suppress(OSError):
                head = str(os.stat(os.path.join(here, ".git", "HEAD")).st_ctime_ns)
            return f"{st.st_dev}:{st.st_ino}:{head}"
        up = os.path.dirname(here)
        if up == here:
            return ""
        here = up


def _git(root: str, *args: str) -> str:
    """``git ARGS`` in ``root``, isolated from the person's and the system's git config;
    '' on any failure (no git, not a repository, no commit yet)."""
    r = git(root, *args, timeout=GIT_TIMEOUT)
    return r.text if r.ok else ""


GIT_TIMEOUT = 20.0  # rev-list walks the history once per clone; the result is kept
IDENTITY = "identity.json"  # a session home's project identity, with what it was read from


def _path_label(root: StrPath) -> str:
    """The project label asks carry (the session home's name: a hash of the real path)."""
    return os.path.basename(_session_home(root))


def project_identity(root: StrPath, *, compute: bool = True) -> str:
    """A project's identity, the same after a move or a fresh clone: a hash of the
    repository's first commit (and the project's folder inside it), else its path label.
    Kept in the session home per clone; without ``compute`` (the hooks) git never runs:
    the identity last worked out here is taken as it is (the path label if none)."""
    real = os.path.realpath(root)
    home = _session_home(real)
    stamp = _git_stamp(real) if compute else ""
    with suppress(ValueError, TypeError):
        kept = loads(_read(os.path.join(home, IDENTITY)) or "{}")
        if isinstance(kept, dict) and kept.get("root") == real and \
                (not compute or kept.get("stamp") == stamp) and isinstance(kept.get("id"), str):
            return str(kept["id"])
    label = _path_label(real)
    if not compute:
        return label
    ident = label
    if stamp:
        firsts = sorted(x for x in _git(real, "rev-list", "--max-parents=0", "HEAD").split()
                        if len(x) in (40, 64) and not x.strip("0123456789abcdef"))
        if firsts:
            inside = _git(real, "rev-parse", "--show-prefix").strip()
            ident = "r-" + blake2b(f"{firsts[0]}\0{inside}".encode("utf-8", "surrogatepass"),
                                   digest_size=6).hexdigest()
    import json

    with suppress(OSError, LeanMemoryError):
        _write(os.path.join(home, IDENTITY), json.dumps(
            {"id": ident, "root": real, "stamp": stamp, "label": label},
            ensure_ascii=False, sort_keys=True) + "\n")
    return ident


def _home_identity(home: str) -> str:
    """The identity a session home's asks belong to (as last computed), else its name."""
    with suppress(ValueError, TypeError):
        kept = loads(_read(os.path.join(home, IDENTITY)) or "{}")
        if isinstance(kept, dict) and isinstance(kept.get("id"), str):
            return str(kept["id"])
    return os.path.basename(home)


# -- proposals ------------------------------------------------------------------------------


def proposal_id(rule: str, target: str) -> str:
    """A proposal's id: its rule's text (case and spacing aside) and the layer a yes
    writes to. A yes names this id, so it writes the rule the person read, where they read
    it would go, or nothing."""
    norm = _norm_rule(rule)
    return "p-" + blake2b(f"{target}\0{norm}".encode("utf-8", "surrogatepass"),
                          digest_size=4).hexdigest()


def _norm_rule(rule: str) -> str:
    return " ".join(rule.casefold().split()).rstrip(".!… ")


class Pending(Record):
    """A rule that waits for the person's yes or no: from the matcher (asked in three or
    more sessions) or proposed by an agent (the memory tool, MCP)."""

    _fields = ("id", "rule", "target", "project", "shard", "title", "text", "origin", "key",
               "sessions", "projects", "evidence")
    __slots__ = _fields
    id: str
    rule: str  # one line, as listed
    target: str  # GLOBAL or PROJECT: where a yes writes it (`--global`: the global layer)
    project: str  # a PROJECT proposal's project identity
    shard: str  # what a yes writes: ``text`` (titled ``title`` when given) to ``shard``
    title: str
    text: str
    origin: str  # where it came from, one line
    key: str  # the matcher's key ('' for an agent's proposal)
    sessions: tuple[str, ...]
    projects: tuple[str, ...]  # the identities of the projects it was asked in
    evidence: tuple[tuple[str, str, str, str], ...]  # (ask id, session, date, phrasing)

    def __init__(self, id: str, rule: str, target: str, project: str, shard: str,
                 title: str, text: str, origin: str, key: str = "",
                 sessions: tuple[str, ...] = (), projects: tuple[str, ...] = (),
                 evidence: tuple[tuple[str, str, str, str], ...] = ()) -> None:
        self._init(id, rule, target, project, shard, title, text, origin, key, sessions,
                   projects, evidence)

    @property
    def suggest_global(self) -> bool:
        return self.target == GLOBAL

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "rule": self.rule, "target": self.target,
                "project": self.project, "shard": self.shard, "title": self.title,
                "text": self.text, "origin": self.origin, "key": self.key,
                "sessions": list(self.sessions), "projects": list(self.projects),
                "suggest_global": self.target == GLOBAL,
                "evidence": [dict(zip(("ask", "session", "date", "text"), e, strict=True))
                             for e in self.evidence]}


def _pending(d: Any) -> Pending | None:
    """A :class:`Pending` read back from JSON; None for anything malformed."""
    try:
        ev = tuple((str(e["ask"]), str(e["session"]), str(e["date"]), str(e["text"]))
                   for e in d.get("evidence", ()))
        f = [d[k] for k in ("id", "rule", "target", "project", "shard", "title", "text",
                            "origin")]
        if not all(isinstance(x, str) for x in f) or d["target"] not in (GLOBAL, PROJECT):
            return None
        return Pending(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], str(d.get("key", "")),
                       tuple(str(s) for s in d.get("sessions", ())),
                       tuple(str(s) for s in d.get("projects", ())), ev)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


class Decision(Record):
    _fields = ("id", "key", "rule", "verdict", "to", "project")
    __slots__ = _fields
    id: str  # the proposal id said yes or no to ('' in a project's older decisions)
    key: str  # the matcher's key, when it had one
    rule: str
    verdict: str  # "yes" or "no"
    to: str  # the layer written to ("" for a no)
    project: str  # the project identity it was said in

    def __init__(self, id: str, key: str, rule: str, verdict: str, to: str,
                 project: str = "") -> None:
        self._init(id, key, rule, verdict, to, project)


DECISIONS = "decisions.jsonl"
AGENT_PROPOSALS = "agent-proposals.jsonl"
MATCHED = "proposals.json"  # the matcher's last results over every project's asks
HIDDEN = "hidden.json"  # a project's proposals its own rules already say
MAX_AGENT_RULE = 2000  # characters of one rule an agent proposes


def _decision_rows(path: str, project: str) -> list[Decision]:
    out = []
    for line in _read(path).splitlines():
        with suppress(ValueError, TypeError, KeyError, AttributeError):
            d = loads(line)
            out.append(Decision(str(d.get("id", "")), str(d.get("key", "")), str(d["rule"]),
                                str(d["verdict"]), str(d.get("to", "")),
                                str(d.get("project", project))))
    return out


def decisions(project: MemoryLike | None = None) -> list[Decision]:
    """The person's decisions (every project's), and a project's older ones kept in its
    session home (before decisions were the person's)."""
    out = _decision_rows(os.path.join(learn_home(), DECISIONS), "")
    if project is not None:
        out += _decision_rows(os.path.join(_session_home(project._root), DECISIONS),
                              _path_label(project._root))
    return out


def _rules(mem: MemoryLike | None) -> list[str]:
    if mem is None or RULES_SHARD not in mem.shards or not os.path.isdir(mem._dir):
        return []
    return [e.title + "\n" + e.text for e in mem.entries(RULES_SHARD)]


def _inputs_signature() -> str:
    """What the matcher's results depend on, by file signatures: every asks file, the
    person's decisions and the global conventions."""
    files = [p for h in _homes() for k in (False, True) for p in _ask_files(h, k)]
    files += [os.path.join(h, IDENTITY) for h in _homes()]
    files.append(os.path.join(learn_home(), DECISIONS))
    g = open_global()
    if g is not None and RULES_SHARD in g.shards:
        files.append(g._shard_file(RULES_SHARD))
    sigs = "\n".join(f"{p}\0{file_signature(p)}" for p in files)
    return blake2b(sigs.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _matched() -> tuple[str, list[Pending]]:
    """The matcher's last results (signature, proposals); ('', []) when never run."""
    with suppress(ValueError, TypeError):
        d = loads(_read(os.path.join(learn_home(), MATCHED)) or "{}")
        if isinstance(d, dict) and isinstance(d.get("proposals"), list):
            found = [p for p in map(_pending, d["proposals"]) if p is not None]
            return str(d.get("signature", "")), found
    return "", []


def _match() -> list[Pending]:
    """Run the matcher over every project's asks (the slow step: never on a hook's clock
    at session start) and keep its results. Each proposal is for the project it was
    asked in, or for the global layer when asked in two or more projects."""
    from . import asks as A

    with _locked(os.path.join(learn_home(), "match.lock")):
        sig = _inputs_signature()
        said = [d for d in decisions() if d.verdict == "no" or d.to == GLOBAL]
        known = [*_rules(open_global()), *(d.rule for d in said)]
        out = []
        for p in A.propose(all_asks(), known):
            target = GLOBAL if p.suggest_global else PROJECT
            out.append(Pending(
                proposal_id(p.rule, target), p.rule, target,
                p.projects[0] if target == PROJECT and p.projects else "", RULES_SHARD, "",
                p.rule, f"asked in {len(p.sessions)} sessions"
                + (f" in {len(p.projects)} projects" if target == GLOBAL else ""),
                p.key, p.sessions, p.projects,
                tuple((e.ask, e.session, e.date, e.text) for e in p.evidence)))
        import json

        _write(os.path.join(learn_home(), MATCHED), json.dumps(
            {"signature": sig, "proposals": [p.as_json() for p in out]},
            ensure_ascii=False, sort_keys=True) + "\n")
    return out


def _agent_proposals() -> list[Pending]:
    seen: dict[str, Pending] = {}
    for line in _read(os.path.join(learn_home(), AGENT_PROPOSALS)).splitlines():
        with suppress(ValueError, TypeError):
            p = _pending(loads(line))
            if p is not None and p.id not in seen:
                seen[p.id] = p
    return list(seen.values())


def _decided(p: Pending, done: list[Decision], ident: str) -> bool:
    rule = _norm_rule(p.rule)
    # a no holds everywhere; a yes where it was written (a project's rule is not another
    # project's)
    return any((d.id == p.id or (d.key and d.key == p.key) or _norm_rule(d.rule) == rule)
               and (d.verdict == "no" or d.to == GLOBAL or d.project == ident) for d in done)


def current(project: MemoryLike, *, fresh: bool = True) -> list[Pending]:
    """The proposals that wait in ``project``: the global ones and this project's, not
    said yes or no to, not already a rule here. ``fresh`` (the CLI, the page) runs the
    matcher when its inputs changed and checks paraphrases of the project's rules; without
    it (the hooks, the agent's listings) the kept results are read, nothing more."""
    home = _session_home(project._root)
    ident = project_identity(project._root, compute=fresh)
    labels = {ident, _path_label(project._root)}
    if fresh:
        sig, found = _matched()
        if sig != _inputs_signature():
            found = _match()
    else:
        found = _matched()[1]
    found += _agent_proposals()
    done = decisions(project)
    mine = [p for p in found if (p.target == GLOBAL or p.project in labels)
            and not _decided(p, done, ident)]
    if fresh:
        hidden = _hidden(project, mine)
        import json

        with suppress(OSError, LeanMemoryError):
            _write(os.path.join(home, HIDDEN), json.dumps(sorted(hidden)) + "\n")
    else:
        hidden = set()
        with suppress(ValueError, TypeError):
            kept = loads(_read(os.path.join(home, HIDDEN)) or "[]")
            hidden = {str(x) for x in kept} if isinstance(kept, list) else set()
    return [p for p in mine if p.id not in hidden]


def _hidden(project: MemoryLike, found: list[Pending]) -> set[str]:
    """The ids of ``found`` that a rule of this project or the global layer already says."""
    rules = [*_rules(project), *_rules(open_global())]
    if not rules or not found:
        return set()
    from . import asks as A

    plain = {_norm_rule(r.replace("\n", " ")) for r in rules}
    return {p.id for p in found if _norm_rule(p.rule) in plain
            or (p.key and any(A.same_request(p.rule, r) for r in rules))}


def proposals(project: MemoryLike) -> list[Pending]:
    """:func:`current`, as the CLI and the page list it."""
    return current(project)


# How the agent-facing listings (the MCP status, the memory tool) say that proposals wait.
AWAITING = ("the person's yes (only the person approves, with "
            "`lean-memory promote ID --yes`; you cannot)")


def waiting(project: MemoryLike) -> list[Pending]:
    """The proposals that wait, for a listing an agent reads: the kept results only (the
    matcher never runs on an agent's call)."""
    return current(project, fresh=False)


def listing_head(n: int) -> str:
    """The line above a listing of ``n`` waiting proposals."""
    return f"{n} rule proposal{'s await' if n != 1 else ' awaits'} {AWAITING}:"


def listing_line(p: Pending) -> str:
    """One proposal as every listing shows it: its id first (a yes names it)."""
    where = "global: every project" if p.target == GLOBAL else "this project"
    return f"{p.id}  {p.rule}  [{where}; {p.origin}]"


def pending(project: MemoryLike) -> int:
    """How many proposals wait, as last worked out (read, never computed: the hooks)."""
    return len(current(project, fresh=False))


def pick(project: MemoryLike, which: str) -> Pending:
    """The waiting proposal whose id is ``which``; refused when none is (the list changed,
    it was decided) or ``which`` is a position (a number means another rule once the list
    changes)."""
    which = which.strip()
    if which.isdecimal():
        raise LearnError(f"give the proposal's id (p-…), not its position {which}: run "
                         "`lean-memory promote` for the list")
    for p in current(project):
        if p.id == which:
            return p
    raise LearnError(f"no current proposal {which[:20]!r} (decided, or its rule changed "
                     "since it was listed): run `lean-memory promote` for the list")


def decide(project: MemoryLike, proposal: Pending, yes: bool, *, to_global: bool = False,
           date: str | None = None) -> str:
    """Write a proposal's rule (a person said yes) to its layer (``to_global``: the global
    one), or dismiss it for good in every project; the line to show. Only the CLI and the
    page call this, after a person's yes."""
    where = ""
    if yes:
        where = GLOBAL if to_global else proposal.target
        target = global_memory(create=True) if where == GLOBAL else writable(project)
        entry = target.put_entry(proposal.shard, proposal.text, title=proposal.title or None,
                                 tags=("promoted",), date=date)
        said = f"wrote {entry.id} to {where} {proposal.shard}: {entry.title}"
    else:
        said = f"dismissed {proposal.id}: it will not be proposed again, in any project"
    import json

    _append(os.path.join(learn_home(), DECISIONS), json.dumps(
        {"id": proposal.id, "key": proposal.key, "rule": proposal.rule,
         "verdict": "yes" if yes else "no", "to": where,
         "project": project_identity(project._root), "at": now_utc()},
        ensure_ascii=False, sort_keys=True) + "\n")
    return said


def propose(project: MemoryLike, text: str, *, title: str = "", shard: str | None = None,
            to_global: bool = False, via: str = "the memory tool") -> Pending:
    """An agent's rule, kept as a proposal that waits for the person's yes (nothing is
    written to a memory): scanned like a put, bounded, with where it came from."""
    from .secrets import scan_text

    shard = shard or RULES_SHARD
    text, title = text.strip(), " ".join(title.split())
    if not text:
        raise InvalidEntry("a proposed rule needs text")
    if len(text) + len(title) > MAX_AGENT_RULE or "\0" in text + title:
        raise InvalidEntry(f"a proposed rule is one rule: at most {MAX_AGENT_RULE} "
                           "characters, no NUL")
    # no allowlist: a repository's own would let a credential into the person's files
    found = scan_text(f"{title}\n{text}")
    if found:
        raise SecretFound(found, where="the proposed rule")
    target = GLOBAL if to_global else PROJECT
    rule = " ".join((f"{title}: {text}" if title else text).split())
    where = os.path.basename(os.path.realpath(project._root)) or "/"
    p = Pending(proposal_id(rule, target), rule, target,
                "" if to_global else project_identity(project._root), shard, title, text,
                f"proposed by the agent via {via} in {where}")
    if all(q.id != p.id for q in _agent_proposals()):
        import json

        _append(os.path.join(learn_home(), AGENT_PROPOSALS),
                json.dumps({**p.as_json(), "at": now_utc()}, ensure_ascii=False,
                           sort_keys=True) + "\n")
    return p


# -- distill --------------------------------------------------------------------------------


def session_store(project: MemoryLike, *, create: bool = False) -> MemoryLike | None:
    """The session layer's own store (its ``sessions`` shard holds the summaries)."""
    home = _session_home(project._root)
    mem = type(project)(home)
    if not os.path.isdir(mem._dir):
        if not create:
            return None
        _private_dir(os.path.join(home, ".agents"))
        mem = writable(mem)  # a reader's (the hook's, ADR 0050) opened again to write
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
        with suppress(ValueError, TypeError, KeyError, AttributeError):
            d = loads(line)
            sid, at = d["session"], d["at"]
            if isinstance(sid, str) and isinstance(at, str) and R.is_time(at):
                out[sid] = max(out.get(sid, ""), at)
    return out


def window(project: MemoryLike, session: str, mine: list[R.Ask], others: Iterable[R.Ask],
           ended: dict[str, str]) -> tuple[str, str]:
    """The time a session ran, (first ask, end): its end is when it ended (SessionEnd),
    else the first ask of another session of this project after its last, at the latest
    ``distill_after`` after its last ask (it was quiet from then on)."""
    times = sorted(a.at for a in others if a.session != session)
    return _window(project, session, mine, times, ended)


def _window(project: MemoryLike, session: str, mine: list[R.Ask], times: list[str],
            ended: dict[str, str]) -> tuple[str, str]:
    """:func:`window` with the other asks' times sorted (each session a bisection)."""
    first, last = mine[0].at, mine[-1].at
    end = ended.get(session, "")
    if end >= last:
        return first, end
    i = bisect_right(times, last)  # this session's own asks are all at or before its last
    nxt = times[i] if i < len(times) else "~"
    return first, min(nxt, _later(last, project.config.distill_after))


class _Writes:
    """The writes to a memory noted in the write log, in time order, with the entries
    they name: read once for every session a distill folds."""

    def __init__(self, mem: MemoryLike) -> None:
        latest = [(at, entry_id, shard) for at, entry_id, shard, _t in load_writes(mem._root)
                  if shard in mem.shards]
        self.rows = latest  # sorted by time (load_writes)
        self.times = [r[0] for r in latest]
        self.entries = {e.id: e for shard in sorted({r[2] for r in latest})
                        for e in mem.entries(shard)}

    def between(self, first: str, end: str) -> list[A.Written]:
        from . import asks as A

        chosen: dict[str, str] = {}
        for at, entry_id, _shard in self.rows[bisect_left(self.times, first):
                                               bisect_right(self.times, end)]:
            chosen[entry_id] = at  # each once, at its latest write
        out = []
        for entry_id, at in sorted(chosen.items()):
            e = self.entries.get(entry_id)
            if e is not None:
                out.append(A.Written(e.id, e.shard, e.title, e.text, at))
        return out


def _written_logs(project: MemoryLike) -> list[_Writes]:
    return [_Writes(mem) for mem in (project, open_global())
            if mem is not None and os.path.isdir(mem._dir)]


def _written(project: MemoryLike, first: str, end: str) -> list[A.Written]:
    """Entries written to the project and global layers between ``first`` and ``end``
    (UTC times), as the write log noted them: each once, at its latest write, with its
    text as the memory holds it now (an entry no longer there is left out)."""
    return [w for log in _written_logs(project) for w in log.between(first, end)]


def _task_key(text: str) -> str:
    """A request's words, case, order and punctuation aside: the same task asked again."""
    words = "".join(c if c.isalnum() else " " for c in text.casefold()).split()
    return " ".join(sorted(set(words)))


def _settled(every: list[R.Ask]) -> set[str]:
    """Asks that are not open questions however the session ended: a task asked in two or
    more sessions (a routine, "run the tests") and a preference a proposal rests on."""
    keys = {a.id: _task_key(a.text) for a in every}
    sessions: dict[str, set[str]] = {}
    for a in every:
        sessions.setdefault(keys[a.id], set()).add(a.session)
    out = {a.id for a in every if len(sessions[keys[a.id]]) >= 2}
    out.update(e[0] for p in _matched()[1] for e in p.evidence)
    out.update(e[0] for p in _agent_proposals() for e in p.evidence)
    return out


def distill(project: MemoryLike, *, now: str | None = None, ended: Iterable[str] = (),
            everything: bool = False) -> list[A.Summary]:
    """Fold each quiet session (no prompt for ``distill_after``, or ended, or every one
    with ``everything``) into one summary entry and archive its asks. One distill at a
    time (a lock; what to fold is read under it), linear in asks and writes. Idempotent:
    a distilled session has no live asks left, and its summary is written once."""
    from . import asks as A

    home = _session_home(project._root)
    if not _ask_files(home, False):
        return []
    with _locked(os.path.join(home, "distill.lock")):
        live = load_asks(home)  # under the lock: a racing distill took its share
        if not live:
            return []
        ended = [R.clean_session_id(s) for s in ended]
        quiet = {a.session for a in live} if everything else set(A.quiet_sessions(
            live, now or now_utc(), project.config.distill_after, ended))
        if not quiet:
            return []
        store = session_store(project, create=True)
        assert store is not None
        every = R._unique_asks([*live, *load_asks(home, archived=True)])
        by_session: dict[str, list[R.Ask]] = {}
        for a in every:  # in time order
            by_session.setdefault(a.session, []).append(a)
        times = [a.at for a in every]
        ends = _ends(home)
        logs = _written_logs(project)
        settled = _settled(every)
        olds: dict[str, Entry] = {}
        for e in store.entries(SESSIONS_SHARD):  # the latest summary of each session
            for t in e.tags:
                olds[t] = e
        done = []
        changed: list[tuple[A.Summary, str, str | None]] = []
        for sid in sorted(quiet):
            mine = by_session[sid]
            first, end = _window(project, sid, mine, times, ends)
            written = [w for log in logs for w in log.between(first, end)]
            summary = A.distill(sid, mine, written, settled=settled)
            old = olds.get(summary.id)
            if old is None or old.text.strip() != summary.text.strip():
                changed.append((summary, mine[-1].date, old.id if old is not None else None))
            done.append(summary)
        _put_summaries(writable(store), changed)  # the summaries first: a crash leaves asks to fold
        for sid in sorted(quiet):
            _archive(home, sid)
        latest = max(done, key=lambda s: (by_session[s.session][-1].at, s.session))
        _note_latest(home, latest, by_session[latest.session][-1].at)
    return done


def _put_summaries(store: Writable, items: list[tuple[A.Summary, str, str | None]]) -> None:
    """New summaries (summary, date, the id of the one it replaces) in one write of the
    shard and its index: a put each rewrites both once per session, quadratic in a backlog
    of sessions. Not scanned again: an ask's text was cut of credentials when it was kept,
    and an entry's title when it was put."""
    if not items:
        return
    with store.lock():
        path = store._shard_file(SESSIONS_SHARD)
        before = store.read_text(path)
        taken = {e.id for e in fmt.parse(before, SESSIONS_SHARD).entries} | {
            e.id for e in store.entries(SESSIONS_SHARD, archive=True)}
        raws = []
        for summary, day, old in items:
            text, title, tags, date = store._validate(summary.text, summary.title,
                                                      (_TAG, summary.id), day)
            entry = fmt.with_raw(fmt.Entry(fmt.new_id(SESSIONS_SHARD, title, text, date, taken),
                                           SESSIONS_SHARD, title, text, date, tags, old))
            taken.add(entry.id)
            raws.append(fmt.ensure_separated(entry.raw))
        after = fmt.ensure_separated(before) + "".join(raws)
        atomic_write(path, after, root=store._agents)
        store.write_index({SESSIONS_SHARD: fmt.parse(after, SESSIONS_SHARD)})


def _archive(home: str, session: str) -> None:
    """Move a session's live asks to the archive, under the asks' lock: an ask a prompt
    adds meanwhile is either archived with them or left live, never lost."""
    src = os.path.join(home, ASKS_DIR, _file_name(session))
    dst = os.path.join(home, ASKS_DIR, ARCHIVE_DIR, _file_name(session))
    with _locked(os.path.join(home, ASKS_DIR, ASKS_LOCK)):
        if not os.path.lexists(dst):  # the common case: a rename, atomic, nothing copied
            _private_dir(os.path.dirname(dst))
            with suppress(FileNotFoundError):
                os.rename(src, dst)
            return
        text = _read(dst) + _read(src)
        # the archive first, then the live file goes: a crash between leaves both, and
        # the next distill merges them (each ask once)
        _write(dst, "".join(_record(a) for a in R._unique_asks(_parse(text))))
        with suppress(FileNotFoundError):
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
    with suppress(ValueError):
        d = loads(_read(os.path.join(home, "latest.json")) or "{}")
        return d if isinstance(d, dict) else {}
    return {}


# -- the background step ----------------------------------------------------------------------

LEARNING = "learn.running"  # the marker of the background fold and match (spawn.detached)
_LEARN = ("import sys; import lean_memory.store; "
          "from lean_memory.learn import learn_in_background; "
          "learn_in_background(sys.argv[1], sys.argv[2:])")


def learn_soon(project: MemoryLike, *, fold: bool) -> bool:
    """Start the slow steps in a background process, off the prompt's clock: fold the
    quiet sessions (with ``fold``) and run the matcher. True if one was started."""
    return detached(project, LEARNING, _LEARN, *(("fold",) if fold else ()))


def learn_in_background(root: str, args: list[str]) -> None:
    """The process :func:`learn_soon` starts (it imports the facade first): fold, match,
    remove the marker."""
    mem = memory_at(root)
    try:
        with suppress(LeanMemoryError, OSError):
            if "fold" in args:
                distill(check_project(mem))
            current(mem)  # the identity, the matcher when its inputs changed, what is hidden
    finally:
        with suppress(OSError):
            os.unlink(os.path.join(mem._cache, LEARNING))


def _learn_due(project: MemoryLike) -> tuple[bool, bool]:
    """(a session may be quiet, the matcher's results may be stale), from the live asks
    files' times alone (one folder listing): nothing is read or computed."""
    home = _session_home(project._root)
    cache = 0.0
    with suppress(OSError):
        cache = os.stat(os.path.join(learn_home(), MATCHED)).st_mtime
    quiet = stale = False
    limit = time.time() - project.config.distill_after
    with suppress(OSError), os.scandir(os.path.join(home, ASKS_DIR)) as found:
        for e in found:
            if e.name.endswith(".jsonl") and e.is_file(follow_symlinks=False):
                m = e.stat(follow_symlinks=False).st_mtime
                quiet = quiet or m <= limit
                stale = stale or m >= cache
    return quiet, stale


# -- what the hooks add -------------------------------------------------------------------


def start_blocks(project: MemoryLike, session: str | None, source: str | None,
                 budget: int, *, fold: bool = True) -> list[Block]:
    """The session-start extras: this session's asks after a compaction, the last
    session's still-open lines, how many proposals wait; in ``budget`` tokens. Nothing
    is folded or matched here (the prompt's clock): with ``fold`` (the hook itself), a
    background process is started when sessions may be quiet or asks came since the
    matcher last ran."""
    home = _session_home(project._root)
    blocks: list[Block] = []
    left = budget
    if fold and project.config.capture_asks:
        with suppress(LeanMemoryError, OSError):
            quiet, stale = _learn_due(project)
            if quiet or stale:
                learn_soon(project, fold=quiet)
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
        text = (f"\n_{waiting} rule proposal{'s wait' if waiting != 1 else ' waits'} for "
                "the person's yes or no: `lean-memory promote` (never approve one "
                "yourself)._\n")
        blocks.append(Block("pending proposals", SESSION, text))
    kept = []
    for b in blocks:
        cost = _tokens(b.text)
        if cost <= left:
            kept.append(b)
            left -= cost
    return kept


def hook_blocks(project: MemoryLike, event: str, payload: dict[str, Any], prompt: str,
                budget: int, include_archive: bool | None = None, *,
                act: bool = True) -> list[Block]:
    """What the hook for ``event`` injects, as blocks (:func:`lean_memory.prompthook.
    hook_blocks`, which a prompt calls directly); at a session start, with the start's own
    blocks, quiet sessions folded first with ``act`` (fail-open)."""
    extras: list[Block] = []
    if event == "SessionStart":
        check_project(project)
        session = payload.get("session_id")
        source = payload.get("source")
        with suppress(Exception):
            extras = start_blocks(project, session if isinstance(session, str) and session
                                  else None, source if isinstance(source, str) else None,
                                  max(budget, 0) // EXTRAS_SHARE, fold=act)
    return prompt_blocks(project, event, payload, prompt, budget, include_archive, act=act,
                         extras=extras)


def hook_text(project: MemoryLike, event: str, payload: dict[str, Any], prompt: str,
              budget: int) -> str:
    return "".join(b.text for b in hook_blocks(project, event, payload, prompt,
                                               budget)).lstrip("\n")


def end_session(payload: Any, where: StrPath | None) -> None:
    """``hook session-end``: distill the session that ended (``session_id`` of the hook's
    ``payload``) in the project at ``where``. The caller fails open."""
    session = payload.get("session_id") if isinstance(payload, dict) else None
    if isinstance(session, str) and session and where is not None:
        project = check_project(memory_at(where))
        if os.path.isdir(project._dir) and project.config.capture_asks:
            home = _session_home(project._root)
            if load_asks(home, session=session):  # when it ended bounds what it decided
                import json

                _append(os.path.join(home, ENDS), json.dumps(
                    {"session": R.clean_session_id(session), "at": now_utc()},
                    sort_keys=True) + "\n")
            distill(project, ended=[session])  # linear: one session's asks
            learn_soon(project, fold=False)  # the matcher: in the background


def context(project: MemoryLike, prompt: str | None, budget: int,
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


__all__ = ["Decision", "LearnError", "Pending", "all_asks", "context", "current", "decide",
           "decisions", "distill", "hook_blocks", "hook_text", "learn_in_background",
           "learn_soon", "load_asks", "pick", "project_identity", "proposal_id", "proposals",
           "propose", "record", "session_store", "start_blocks"]
