"""Asks: what the person asked, and the two things learnt from them (pure, no I/O).

An **ask** is one prompt of one agent session, as the prompt hook saw it: scanned first (a
credential is cut out, never kept), bounded to :data:`MAX_ASK_BYTES`, with an id derived from
what it is, so capturing the same prompt twice gives the same record.

:func:`propose` finds requests that came back in :data:`MIN_SESSIONS` or more separate
sessions, paraphrases included, and proposes each as a one-line rule with its evidence. Only a
sentence that reads as a standing rule is considered (a preference, a policy, a prohibition,
marked by a cue such as *always*, *never*, *don't*, *remember*, *prefer*, *instead of*, *X not
Y*); a task asked again ("run the tests") is not a rule however often it comes back. Each such
sentence becomes a set of **signed terms**: content words, stemmed, each +1 when the sentence
wants it and -1 when it rejects it ("use uv not pip" is uv+ pip-; "uninstall uv" is uv-, so it
never meets "use uv"). Two sentences say the same thing when the idf-weighted cosine of their
signed terms is high and they do not each name something the other lacks ("always run ruff
before committing" and "always run the tests before committing" share a frame, not a rule).
Clusters are the connected components of that relation, built in a fixed order.

:func:`distill` folds one quiet session into a summary: what was asked, what was decided
(entries written during it), what is still open (asks nothing written afterwards answers) and
dead ends (entries in the failures shard), each line carrying its ask or entry id.

Everything here is deterministic: no model, no clock, no randomness; inputs in any order give
the same output.
"""

from __future__ import annotations

import math
import unicodedata
from collections import defaultdict
from datetime import datetime, timedelta

from ._askrecord import (  # the ask as the prompt hook keeps it (re-exported)
    CUT_MARK,
    MAX_ASK_BYTES,
    MAX_ASKS_PER_SESSION,
    SUMMARY_SHARD,
    Ask,
    _order,
    _unique_asks,
    bound_session,
    bound_text,
    clean_session_id,
    make_ask,
)
from ._hash import blake2b
from ._lazyre import lazy
from ._record import Record
from ._stem import stem
from .bm25 import STOP_WORDS

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence
    from datetime import datetime


__all__ = [
    "CUT_MARK",
    "MAX_ASKS_PER_SESSION",
    "MAX_ASK_BYTES",
    "MIN_SESSIONS",
    "Ask",
    "Evidence",
    "Proposal",
    "Summary",
    "Written",
    "bound_session",
    "bound_text",
    "clean_session_id",
    "distill",
    "make_ask",
    "propose",
    "quiet_sessions",
    "rule_clauses",
    "same_request",
    "summary_id",
]

MIN_SESSIONS = 3
MAX_RULE_CHARS = 200
MAX_LINE_CHARS = 160
MAX_SECTION_LINES = 20  # per part of a summary; the rest are named by id

# Tuned on the train split of bench/promote only (see its README).
LINK_COSINE = 0.55  # signed, idf-weighted cosine at or above which two rule sentences link
DISTINCT_SHARE = 0.7  # an unshared term this heavy (vs the sentence's heaviest) names a thing
CONFLICT_SHARE = 0.25  # shared weight with opposite signs above this share: they disagree

# -- reading a request -------------------------------------------------------------------------

# Phrases rewritten to one cue word before tokenising; order matters ("don't forget" first).
_PHRASES = [(lazy("(?i)" + p), r) for p, r in (
    (r"\b(?:do not|don'?t|dont) forget\b|\bkeep in mind\b|\bbear in mind\b|\bas i said\b"
     r"|\blike i said\b|\bi told you\b", " remember "),
    (r"\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|\bby default\b|\bevery time\b"
     r"|\beach time\b|\bas a rule\b|\bat all times\b", " always "),
    (r"\bno more\b|\bnever ever\b", " never "),
    (r"\binstead of\b|\brather than\b|\bin place of\b|\bas opposed to\b", " instead "),
    (r"\bget rid of\b|\brip out\b", " remove "),
    (r"\bpull requests?\b|\bmerge requests?\b", " pr "),
    (r"\bhands off\b", " never touch "),
    (r"\bleave ((?:[\w./-]+ ){0,3}?[\w./-]+) alone\b", r" never touch \1 "),
    (r"\bstick (?:to|with)\b|\bstay with\b|\bgo with\b|\bopt for\b", " use "),
    (r"\b(?:ca|wo|sha)n'?t\b", " not "),
    (r"n't\b|\bcannot\b", " not "),
)]
# A sentence ends at its punctuation, and where a second request is joined on ("fix X, and
# please use uv"), so the task's words never become part of the rule's.
_SENTENCE = lazy(
    r"([.!?;]+(?=\s|$)|\n+|,\s*(?:and|then|also|plus)\b"
    r"|\band\s+(?=please\b|remember\b|also\b|always\b|never\b|do not\b|i prefer\b))")
# A pasted error message says nothing about what the person wants.
_ERROR = lazy(r"\b[A-Z]\w*(?:Error|Exception|Warning): [^\n!?;]*")
_FILE_EXT = lazy(r"\.(?:[a-z]{1,4})$")
_SUBCLAUSE = lazy(r",|:|\(|\)|\s-+\s|\s\u2014\s|\bbut\b|\bthough\b|\bhowever\b")
_TOKEN = lazy(r"[a-z0-9#@$~][a-z0-9_+#./@-]*")
_TRAILING = ".-/@"


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


_NEGATE = frozenset({"not", "never", "no", "avoid", "stop", "without", "nor", "hate", "nothing"})
_INVERT = frozenset({"remove", "removing", "uninstall", "uninstalling", "delete", "deleting",
                     "drop", "dropping", "disable", "disabling", "ditch", "ban", "strip",
                     "eliminate", "deprecate"})
_REPLACE = frozenset({"replace", "replacing"})
_SWITCH = frozenset({"switch", "switching", "migrate", "migrating", "move", "moving", "port",
                     "convert", "converting", "change", "changing"})
_CONTRAST = frozenset({"instead", "over"})
_CUES = frozenset({"always", "never", "remember", "prefer", "prefers", "preferred", "instead",
                   "avoid", "stop", "only", "hate"})
# Words that carry no content of a rule: the cues themselves, politeness, light verbs of
# preference ("use uv" and "uv" ask the same), generic nouns of the workplace.
_FILLER = _wordset("""
always never remember prefer prefers preferred preference instead avoid stop only hate not no
nor without nothing please pls kindly again also just ok okay hey btw oh well really seriously
actually already still even ever make sure want wanna like love use using used uses usage
stick keep mind note say said says told mention first mentioned thanks thank problem worries
repo repository project codebase code here thing things stuff whenever every each time rule
rules going forward get got let go need needs favour favor choose pick rely opt habit default
yourself whatever okay yes yeah sure cool great good fine one ones
""")
_WH = frozenset({"why", "what", "how", "where", "which", "who", "whats", "hows", "whos"})
_SUBJECTS = frozenset({"i", "we", "you", "please", "and", "also", "just", "so", "then", "but",
                       "always", "remember", "pls", "kindly", "oh", "btw", "ok", "okay", "again"})
_DOISH = frozenset({"do", "does", "did", "should", "would", "could", "must", "will", "shall",
                    "can", "need", "to"})
_OTHER_SUBJECTS = frozenset({"it", "this", "that", "there", "he", "she", "they", "which",
                             "its", "thats", "theres", "something", "everything"})
# Where a contrast's object ends: "use uv, not pip, for installs".
_SCOPE_END = frozenset({"for", "in", "when", "on", "at", "to", "before", "after", "during",
                        "while", "if", "unless", "because", "since", "so", "then", "inside",
                        "within", "across", "and"})
# Words of the workplace that name one thing (a general table, not one fitted to the bench).
_SYNONYMS = {
    "delete": "remove", "erase": "remove", "rm": "remove", "uninstall": "remove",
    "modify": "edit", "alter": "edit", "touch": "edit",
    "prs": "pr", "deps": "dependency", "db": "database", "dbs": "database",
    "directory": "folder", "dir": "folder", "directories": "folder",
    "reply": "answer", "replies": "answer", "response": "answer", "responses": "answer",
    "brief": "short", "concise": "short", "logger": "log", "logging": "log",
}
_WORD_MEMO: dict[str, str] = {}


def _normalize(text: str) -> str:
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'")
    text = _ERROR.sub(" ", text).lower()
    for rx, repl in _PHRASES:
        text = rx.sub(repl, text)
    return text


def _term(word: str) -> str:
    """The term a word stands for: its Porter stem when it is a plain word, else the name."""
    got = _WORD_MEMO.get(word)
    if got is None:
        name = _SYNONYMS.get(word, word)
        got = stem(name) if name.isalpha() and name.isascii() else name
        if len(_WORD_MEMO) < 100_000:
            _WORD_MEMO[word] = got
    return got


def _words(clause: str) -> list[str]:
    words: list[str] = []
    for tok in _TOKEN.findall(clause):
        tok = tok.rstrip(_TRAILING).replace("'", "")
        if "." in tok and not _FILE_EXT.search(tok):
            words.extend(p for p in tok.split(".") if p)  # "str.format()" is "format()"
        elif tok:
            words.append(tok)
    return words


def _is_content(word: str) -> bool:
    return word not in STOP_WORDS and word not in _FILLER and word not in _NEGATE \
        and word not in _INVERT and word not in _REPLACE and word not in _SWITCH \
        and word not in _CONTRAST \
        and not word.isdigit() and len(word) > 1


def _signed(clause: str, replacing: bool) -> tuple[dict[str, int], bool]:
    """(term -> +1 wanted / -1 rejected, whether the clause holds a rule cue).

    A prohibition at the head ("never", "don't", "no") turns the whole clause; a contrast
    ("instead of X", "over X", "uv not X") turns only what follows, up to a preposition
    ("use uv not pip for installs": installs stays wanted); a removal verb turns its object
    ("uninstall uv", and "never remove the hints" wants the hints)."""
    words = _words(clause)
    terms: dict[str, int] = {}
    base = sign = 1
    cue = switching = False
    prev = ""
    lead = True  # still before the clause's first content word
    other_subject = False  # "it does not work": a subject that is not the person
    prohibits = condition = False
    for i, w in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if w in _CUES:
            cue = cue or w != "only" or nxt == "use" or prev == "use"
        if lead and w in _OTHER_SUBJECTS:
            other_subject = True
        if w == "over" and prev in {"go", "look", "read", "all", "went", "over"}:
            pass
        elif w in _CONTRAST:
            sign = -base
        elif w in _NEGATE:
            if lead and not other_subject and w != "without" and (
                    prev in _SUBJECTS or prev in _DOISH or prev == ""):
                cue = prohibits = True
                base = sign = -base
            else:
                condition = condition or w == "without"
                if (w == "not" and _is_content(prev) and _is_content(nxt)
                        and not nxt.endswith(("ing", "ed"))):
                    cue = True  # "uv not pip", "tabs, not spaces"
                sign = -base
        elif w in _REPLACE:
            sign = -sign  # "replace X with Y": X is rejected, up to "with"
        elif w in _INVERT:
            terms.setdefault(_term(w), sign)
            if lead:
                # the action of the clause turns its object ("uninstall uv" rejects uv); later
                # it is only a word ("ask before removing files" wants files asked about)
                sign = -sign
                lead = False
        elif w in _SWITCH:
            switching = True
        elif switching and w == "from":
            sign = -1
        elif switching and w in {"to", "into"}:
            sign = 1
        elif w in {"with", "by"} and terms and sign == -1 and replacing:
            sign = 1  # "replace X with Y"
        elif w in _SCOPE_END and not switching:
            condition = condition or w == "unless"
            sign = base
        elif w in {"we", "i"} and nxt in {"use", "like", "love", "prefer", "always", "never"}:
            cue = True
        elif _is_content(w):
            t = _term(w)
            if t not in terms:
                terms[t] = sign
            lead = False
        prev = w
    if prohibits and condition:
        # "never commit without running the tests" asks what "always run the tests before
        # committing" asks: every part of it is wanted
        terms = dict.fromkeys(terms, 1)
    return terms, cue


class _Clause(Record):
    _fields = ("ask", "nth", "text", "terms")
    __slots__ = _fields
    ask: Ask
    nth: int  # which rule sentence of the ask
    text: str
    terms: dict[str, int]

    def __init__(self, ask: Ask, nth: int, text: str, terms: dict[str, int]) -> None:
        self._init(ask, nth, text, terms)


def rule_clauses(text: str) -> list[tuple[str, dict[str, int]]]:
    """Each sentence of ``text`` that reads as a standing rule, with its signed terms."""
    out = []
    for sentence, mark in _sentences(_normalize(text)):
        words = _words(sentence)
        if not words or words[0] in _WH or "?" in mark:
            continue
        has_replace = any(w in _REPLACE for w in words)
        terms: dict[str, int] = {}
        cue = False
        for part in _SUBCLAUSE.split(sentence):
            got, c = _signed(part, has_replace)
            cue = cue or c
            for t, s in got.items():
                terms.setdefault(t, s)
        if cue and terms:
            out.append((sentence, terms))
    return out


def _sentences(text: str) -> list[tuple[str, str]]:
    """(sentence, the punctuation that ends it), blank sentences left out."""
    parts = _SENTENCE.split(text)
    pairs = zip(parts[0::2], [*parts[1::2], ""], strict=True)
    return [(s.strip(), mark) for s, mark in pairs if s.strip()]


def _original_sentences(text: str) -> list[str]:
    return [s for s, _ in _sentences(text)]


def _clauses(asks: Iterable[Ask]) -> list[_Clause]:
    out = []
    for ask in asks:
        shown = _original_sentences(ask.text)
        for nth, (sentence, terms) in enumerate(rule_clauses(ask.text)):
            # the person's own words for the evidence, when the sentence can be found again
            text = next((s for s in shown if _normalize(s).strip() == sentence), sentence)
            out.append(_Clause(ask, nth, text, terms))
    return out


def _weights(asks: Sequence[Ask]) -> dict[str, float]:
    """idf of each term over all asks (a word in every prompt says little)."""
    df: dict[str, int] = defaultdict(int)
    for ask in asks:
        for t in {_term(w) for w in _words(_normalize(ask.text)) if _is_content(w)}:
            df[t] += 1
    n = len(asks)
    return {t: math.log((n + 1) / (d + 0.5)) + 1.0 for t, d in df.items()}


def _similar(a: dict[str, int], b: dict[str, int], w: dict[str, float]) -> bool:
    """Whether two rule sentences ask the same thing (see the module docstring)."""
    shared = a.keys() & b.keys()
    if not shared:
        return False
    agree = sum(w.get(t, 1.0) ** 2 for t in shared if a[t] == b[t])
    clash = sum(w.get(t, 1.0) ** 2 for t in shared if a[t] != b[t])
    if clash > CONFLICT_SHARE * (agree + clash):
        return False
    # the same thing wanted and the same thing rejected: the same preference, whatever else
    pair = {a[t] for t in shared if a[t] == b[t]} == {1, -1}
    norm_a = math.sqrt(sum(w.get(t, 1.0) ** 2 for t in a))
    norm_b = math.sqrt(sum(w.get(t, 1.0) ** 2 for t in b))
    if (agree - clash) / (norm_a * norm_b) < LINK_COSINE:
        return False
    # each naming something the other lacks: a shared frame, two different rules
    return pair or not (_names_more(a, b, w) and _names_more(b, a, w))


def _names_more(a: dict[str, int], b: dict[str, int], w: dict[str, float]) -> bool:
    top = max(w.get(t, 1.0) for t in a)
    return any(w.get(t, 1.0) >= DISTINCT_SHARE * top for t in a if t not in b)


def same_request(a: str, b: str) -> bool:
    """Whether two texts hold a rule sentence each that asks the same (weights from the two)."""
    asks = [Ask("x", "x", "2000-01-01T00:00:00Z", a), Ask("y", "y", "2000-01-01T00:00:00Z", b)]
    w = _weights(asks)
    return any(_similar(x, y, w) for _, x in rule_clauses(a) for _, y in rule_clauses(b))


# -- proposals ---------------------------------------------------------------------------------


class Evidence(Record):
    _fields = ("ask", "session", "date", "text")
    __slots__ = _fields
    ask: str  # the ask id
    session: str
    date: str
    text: str  # the phrasing, one line

    def __init__(self, ask: str, session: str, date: str, text: str) -> None:
        self._init(ask, session, date, text)


class Proposal(Record):
    _fields = ("key", "rule", "sessions", "projects", "evidence")
    __slots__ = _fields
    key: str  # stable over runs while the same asks stand behind it
    rule: str  # the proposed one-line rule
    sessions: tuple[str, ...]
    projects: tuple[str, ...]
    evidence: tuple[Evidence, ...]

    def __init__(self, key: str, rule: str, sessions: tuple[str, ...],
                 projects: tuple[str, ...], evidence: tuple[Evidence, ...]) -> None:
        self._init(key, rule, sessions, projects, evidence)

    @property
    def suggest_global(self) -> bool:
        """Asked in two or more projects: a rule for the person, not for one project."""
        return len(self.projects) >= 2


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


_LEAD_FILLER = lazy(
    r"(?i)^(?:(?:please|pls|kindly|remember|reminder|also|and|oh|btw|ok|okay|hey|again|so|just"
    r"|note|as i said|like i said)\b[\s,:;!-]*)+")
_TAIL_FILLER = lazy(r"(?i)(?:[\s,]+(?:please|pls|thanks|thank you|again))+[\s.!]*$")


def _rule_text(text: str) -> str:
    line = _LEAD_FILLER.sub("", _one_line(text, MAX_RULE_CHARS * 2)).strip(" ,;:-")
    line = _TAIL_FILLER.sub("", line)
    head = line.split(" ", 1)[0].replace("'", "").replace("\u2019", "")
    # "Always …", "Install …", but "uv, not pip" and "pnpm over npm" keep a tool's spelling
    if head.isalpha() and head.islower() and (len(head) >= 3 or head in {"no", "do", "i"}) \
            and any(v in head for v in "aeiouy"):
        line = line[:1].upper() + line[1:]
    line = _one_line(line, MAX_RULE_CHARS - 1)
    return line if line.endswith((".", "!", "…")) else line + "."


def _representative(members: list[_Clause], core: dict[str, int], w: dict[str, float]) -> str:
    """The phrasing that covers most of what the members agree on, then the shortest."""
    def rank(c: _Clause) -> tuple[float, int, str, str, int]:
        covered = sum(w.get(t, 1.0) for t, s in core.items() if c.terms.get(t) == s)
        extra = sum(w.get(t, 1.0) for t in c.terms if t not in core)
        return (-(covered - 0.5 * extra), len(c.text), c.ask.at, c.ask.id, c.nth)
    return _rule_text(min(members, key=rank).text)


def _core(members: list[_Clause]) -> dict[str, int]:
    """Terms that at least half the members hold, with the sign most of them give it."""
    votes: dict[str, int] = defaultdict(int)
    count: dict[str, int] = defaultdict(int)
    for c in members:
        for t, s in c.terms.items():
            votes[t] += s
            count[t] += 1
    need = len(members) / 2
    return {t: (1 if votes[t] >= 0 else -1) for t in sorted(count) if count[t] >= need}


def _components(clauses: list[_Clause], w: dict[str, float]) -> list[list[_Clause]]:
    parent = list(range(len(clauses)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    postings: dict[str, list[int]] = defaultdict(list)
    for i, c in enumerate(clauses):
        for t in c.terms:
            postings[t].append(i)
    for i, c in enumerate(clauses):
        seen: set[int] = set()
        for t in c.terms:
            for j in postings[t]:
                if j > i and j not in seen:
                    seen.add(j)
                    if find(i) != find(j) and _similar(c.terms, clauses[j].terms, w):
                        parent[max(find(i), find(j))] = min(find(i), find(j))
    groups: dict[int, list[_Clause]] = defaultdict(list)
    for i, c in enumerate(clauses):
        groups[find(i)].append(c)
    return [groups[k] for k in sorted(groups)]


def propose(asks: Iterable[Ask], known: Sequence[str] = (),
            min_sessions: int = MIN_SESSIONS) -> list[Proposal]:
    """Requests that came back in ``min_sessions`` or more sessions, as proposed rules, most
    sessions first. ``known`` holds rules already written and proposals already dismissed:
    a request that says the same as one of them is not proposed again."""
    unique = _unique_asks(asks)
    w = _weights(unique)
    clauses = sorted(_clauses(unique), key=lambda c: (_order(c.ask), c.nth))
    known_terms = [t for k in known for _, t in rule_clauses(k)]
    out: list[Proposal] = []
    taken: set[str] = set()
    for members in _components(clauses, w):
        sessions = sorted({c.ask.session for c in members})
        if len(sessions) < min_sessions:
            continue
        core = _core(members)
        if not core or any(_similar(core, k, w) for k in known_terms):
            continue
        rule = _representative(members, core, w)
        if any(same_request(rule, k) for k in known):
            continue
        key_src = "\n".join(f"{'+' if s > 0 else '-'}{t}" for t, s in core.items())
        key = "p-" + blake2b(key_src.encode(), digest_size=5).hexdigest()
        if key in taken:  # two requests that agree on the same words: keep both numbers apart
            key_src += "\n" + members[0].ask.id
            key = "p-" + blake2b(key_src.encode(), digest_size=5).hexdigest()
        taken.add(key)
        evidence = tuple(Evidence(c.ask.id, c.ask.session, c.ask.date,
                                  _one_line(c.text, MAX_LINE_CHARS)) for c in members)
        out.append(Proposal(
            key=key,
            rule=rule,
            sessions=tuple(sessions),
            projects=tuple(sorted({c.ask.project for c in members if c.ask.project})),
            evidence=evidence,
        ))
    out.sort(key=lambda p: (-len(p.sessions), -_last_date_key(p), p.key))
    return out


def _last_date_key(p: Proposal) -> int:
    return int(max(e.date for e in p.evidence).replace("-", ""))


# -- distill -----------------------------------------------------------------------------------

DEAD_END_SHARD = "failures"


class Written(Record):
    """An entry written to memory during a session (``at`` as for asks; None: time unknown,
    taken as after every ask)."""

    _fields = ("id", "shard", "title", "text", "at")
    __slots__ = _fields
    id: str
    shard: str
    title: str
    text: str
    at: str | None

    def __init__(self, id: str, shard: str, title: str, text: str = "",
                 at: str | None = None) -> None:
        self._init(id, shard, title, text, at)


class Summary(Record):
    _fields = ("id", "session", "title", "text", "asked", "decided", "open", "dead_ends")
    __slots__ = _fields
    id: str
    session: str
    title: str
    text: str
    asked: tuple[tuple[str, str], ...]  # (ask or entry id, line)
    decided: tuple[tuple[str, str], ...]
    open: tuple[tuple[str, str], ...]
    dead_ends: tuple[tuple[str, str], ...]

    def __init__(self, id: str, session: str, title: str, text: str,
                 asked: tuple[tuple[str, str], ...], decided: tuple[tuple[str, str], ...],
                 open: tuple[tuple[str, str], ...],
                 dead_ends: tuple[tuple[str, str], ...]) -> None:
        self._init(id, session, title, text, asked, decided, open, dead_ends)


def _fields(e: Written) -> tuple[str, str, str, str]:
    return (e.at or "~", e.shard, e.title, e.text)


def summary_id(session: str) -> str:
    """The id of a session's summary: one per session, so distilling again replaces it."""
    return "s-" + blake2b(clean_session_id(session).encode(), digest_size=5).hexdigest()


def _content(text: str) -> set[str]:
    return {_term(w) for w in _words(_normalize(text)) if _is_content(w)}


def _answers(ask: Ask, terms: set[str], later: list[tuple[str, set[str]]]) -> bool:
    """Whether an entry written at or after the ask covers at least half its content words."""
    need = max(1, math.ceil(len(terms) / 2))
    return any(len(terms & got) >= need for when, got in later if when >= ask.at)


def distill(session: str, asks: Iterable[Ask], written: Iterable[Written],
            settled: Collection[str] = ()) -> Summary:
    """One session folded into its summary entry. Deterministic and idempotent: the summary
    itself, or another summary, among ``written`` is ignored, and the order of the inputs
    does not matter. ``settled``: ids of asks that are never open (a routine task asked in
    other sessions too, a preference a proposal rests on)."""
    sid = clean_session_id(session)
    mine = tuple(_unique_asks(a for a in asks if a.session == sid))
    sid_summary = summary_id(sid)
    by_id: dict[str, Written] = {}
    for e in written:  # an entry recorded twice: the same record whatever the order
        if e.id != sid_summary and e.shard != SUMMARY_SHARD and (
                e.id not in by_id or _fields(e) > _fields(by_id[e.id])):
            by_id[e.id] = e
    entries = sorted(by_id.values(), key=lambda e: (e.at or "~", e.id))
    asked = tuple((a.id, _one_line(a.text, MAX_LINE_CHARS)) for a in mine)
    decided = tuple((e.id, f"{_one_line(e.title, MAX_LINE_CHARS)} [{e.shard}]")
                    for e in entries if e.shard != DEAD_END_SHARD)
    dead = tuple((e.id, _one_line(e.title, MAX_LINE_CHARS)) for e in entries
                 if e.shard == DEAD_END_SHARD)
    # a dead end is an attempt, not an answer: only what was decided closes an ask
    later = [(e.at or "~", _content(e.title + "\n" + e.text)) for e in entries
             if e.shard != DEAD_END_SHARD]
    still = []
    for a in mine:
        terms = _content(a.text)
        # chit-chat ("continue", "thanks") and standing rules are not open questions
        if len(terms) < 2 or a.id in settled or rule_clauses(a.text):
            continue
        if not _answers(a, terms, later):
            still.append((a.id, _one_line(a.text, MAX_LINE_CHARS)))
    # the title names the session's first real request: not chit-chat, not a standing rule
    first = next((line for (_, line) in asked
                  if len(_content(line)) >= 2 and not rule_clauses(line)),
                 asked[0][1] if asked else "no asks")
    day = mine[0].date if mine else (entries[0].at or "")[:10]
    title = _one_line(f"Session {day}: {first}".replace(": :", ":"), 80)
    return Summary(sid_summary, sid, title, _render(sid, mine, asked, decided, tuple(still),
                                                    dead), asked, decided, tuple(still), dead)


def _render(sid: str, mine: tuple[Ask, ...], asked: tuple[tuple[str, str], ...],
            decided: tuple[tuple[str, str], ...], still: tuple[tuple[str, str], ...],
            dead: tuple[tuple[str, str], ...]) -> str:
    span = f"{mine[0].at} to {mine[-1].at}" if mine else "no asks"
    lines = [f"Session {sid}, {span}: {len(mine)} asks, {len(decided)} decided, "
             f"{len(still)} open, {len(dead)} dead ends.", ""]
    for head, items in (("Asked", asked), ("Decided", decided), ("Still open", still),
                        ("Dead ends", dead)):
        lines.append(f"**{head}**")
        shown = items[:MAX_SECTION_LINES]
        lines.extend(f"- {line} ({ref})" for ref, line in shown)
        if not items:
            lines.append("- none")
        elif len(shown) < len(items):
            lines.append(f"- and {len(items) - len(shown)} more: "
                         + ", ".join(ref for ref, _ in items[len(shown):]))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _parse_at(at: str) -> datetime:
    return datetime.strptime(at, "%Y-%m-%dT%H:%M:%SZ")


def quiet_sessions(asks: Iterable[Ask], now: str, after_seconds: float = 7200,
                   ended: Iterable[str] = ()) -> tuple[str, ...]:
    """Sessions whose last ask is ``after_seconds`` or more before ``now``, or that ended."""
    last: dict[str, str] = {}
    for a in asks:
        last[a.session] = max(last.get(a.session, ""), a.at)

    cutoff = _parse_at(now) - timedelta(seconds=after_seconds)
    done = set(ended)
    return tuple(s for s in sorted(last) if s in done or _parse_at(last[s]) <= cutoff)
