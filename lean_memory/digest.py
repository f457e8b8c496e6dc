"""The digest: the block a harness injects before a prompt (ADR 0018).

Within a token budget (estimated) it holds, in this order:

* the shard overview, rendered from the current files (never a stale INDEX.md), when asked
  for: always for an empty prompt (the session-start block), and before each prompt only
  with ``digest_index = true`` (the session-start hook gave it already);
* the standing rules (live ``conventions`` entries), in at most their share of the budget:
  full, then cut shorter, then titles, then a count of those left out;
* the entries that best match the prompt, live and archived ranked together (archived ones
  marked), one line each, as many as the budget holds: a line that does not fit whole is
  left out (the best one is cut instead), and the block says how many were left out and how
  to fetch them. The matches keep at least a third of what the overview leaves, so the rules
  cannot crowd them out; nothing is added when nothing matches.

An entry that holds a credential is never shown: the block says how many it withheld (ADR
0011). Compaction's count-only placeholders are skipped: they carry no content. Deterministic.

This runs before every prompt, so it imports little at module level.
"""

from __future__ import annotations

import math
import os
import time

from . import format as fmt
from ._hash import blake2b
from .bm25 import TOKENIZER_VERSION, tokenize
from .errors import LeanMemoryError, QueryError
from .fsutil import dump_record, file_signature, load_record
from .search import Hit, _indexed_body, _main_text, clean_top, find, load_corpus, warm_later
from .summaries import render_index
from .tokens import estimate_tokens
from .withhold import Verdicts, content_key, count_note

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence
    from typing import Any

    from ._protocols import MemoryLike
    from .format import Entry

RULES_SHARD = "conventions"
RULE_CAP = 60  # tokens per rule: a long rule is cut, never carried whole into every prompt
MIN_MATCH = 30  # the best match cut below this says too little to be worth its tokens
MATCH_SHARE = 3  # at least 1/3 of what the overview leaves is kept for matches
# Matches fetched at first: one per LINE_GUESS tokens of room (a short entry's line), then
# four times as many while the budget still has room.
LINE_GUESS = 16
MIN_FETCH = 8
MAX_SKIPS = 8  # lines in a row too long for what is left: then the rest is left out
MAX_FETCH = 4096
MAX_QUERY_CHARS = 4000
# Compaction detail levels whose compacted entry lists no content (ids and a count, or a
# count alone; compaction.LEVELS): in the digest they would only cost tokens.
EMPTY_DETAILS = frozenset({"ids", "count"})
FETCH_HINT = '`lean-memory get --query "<words>"`'
POINTER = ("Project memory: `lean-memory get` (index), "
           f"{FETCH_HINT}.\n")
_CACHE_NAME = "digest-rules.marshal"
_CACHE_VERSION = "lean_memory.digest/3"
_CACHE_ROOMS = 16  # rooms remembered (the budget and the overview vary little)
RULES_HEAD = f"\n## Standing rules ({RULES_SHARD}: follow them)\n"
MATCH_HEAD = "\n## Memory matching this prompt\n"


def _tokens(text: str) -> int:
    return estimate_tokens(text)


def _clip(text: str, cap: int, suffix: str = "…") -> tuple[str, bool]:
    """``text`` cut (at a word, with ``suffix``) to at most ``cap`` tokens; (text, was_cut)."""
    if _tokens(text) <= cap:
        return text, False
    low, high = 0, len(text)
    if _tokens(text[: cap * 8]) > cap:  # no token is 8 characters long on average
        high = cap * 8
    while low < high:  # the longest prefix whose clipped form fits
        mid = (low + high + 1) // 2
        if _tokens(text[:mid].rstrip() + suffix) <= cap:
            low = mid
        else:
            high = mid - 1
    cut = text[:low]
    if low < len(text) and not text[low].isspace() and " " in cut.strip():
        cut = cut.rsplit(" ", 1)[0]  # do not end on half a word
    cut = cut.rstrip()
    return (cut + suffix if cut else ""), True


def _one_line(text: str) -> str:
    return " ".join(text.split())


# -- typos (here since ADR 0056, its only caller before every prompt: a module of its own
# cost every prompt ~0.5 M instructions to load) -------------------------------------------
# One typo in a longer word, mended against the memory's own vocabulary (ADR 0030).
#
# A prompt word of at least :data:`MIN_LETTERS` letters that the memory has never seen
# ("migartion", "reelase") is replaced by the word one typo away whose token the memory
# holds ("migration", "release"): a letter typed twice or a slip taken out, two neighbours
# swapped, a letter slipped to a neighbouring key, one left out, tried in that order (the
# first kind that finds any wins; within a kind, the candidate the most entries hold, then
# the first). Deterministic, a function of the word and the memory's term counts; case-free
# (the word is lower-cased first). It runs on the prompt hook's path: no ``re``, a few
# hundred dictionary probes per unknown word at most, and only for the first
# :data:`MAX_WORDS` unknown words.

MIN_LETTERS = 5  # a shorter word is one edit away from too many others ...
SHORT_LETTERS = 4  # ... but two letters swapped inside a word of four ("tets") is a slip
#                   whose mend must be held by MIN_SUPPORT entries (ADR 0047)
MIN_SUPPORT = 2
MAX_WORDS = 3  # unknown words mended per prompt (each costs up to ~26 * (n + 1) probes)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_STRIP = "?,.!:;\"'()[]{}<>`*"


_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


def _neighbours() -> dict[str, str]:
    """Each letter's neighbours on a QWERTY keyboard (the keys a finger slips to)."""
    where = {c: (r, i) for r, row in enumerate(_ROWS) for i, c in enumerate(row)}
    out = {}
    for c, (r, i) in where.items():
        near = [(r, i - 1), (r, i + 1), (r - 1, i), (r - 1, i + 1), (r + 1, i - 1), (r + 1, i)]
        out[c] = "".join(_ROWS[x][y] for x, y in near
                         if 0 <= x < len(_ROWS) and 0 <= y < len(_ROWS[x]))
    return out


_NEAR = _neighbours()


def _edits(word: str) -> tuple[list[str], ...]:
    """The words one typo from ``word``, by kind, each in a fixed order: a letter typed
    twice or a slip onto a neighbouring key taken out, two neighbours swapped, one letter
    typed as its keyboard neighbour, one letter left out put back. (Any letter changed,
    or any taken out, would mend correct words the memory does not hold into ones it does:
    "write" into "wait", "readme" into "read".)

    The first letter is never taken out, changed or put before (ADR 0047): a word's first
    letter is rarely mistyped, and an edit there turns a correct word the memory does not
    hold into another word ("table" into "stable", "cache" into "ccache", "loses" into
    "oses"). Neither is the last letter taken out or changed: that is where a word's
    endings are, and an edit there gives another form or a stem the word only begins
    with ("worker" into "worke", "mockk" into "mock", "minimap" into "minimal"). A word
    of :data:`SHORT_LETTERS` letters gets swaps only (``tets``), inside the word."""
    n = len(word)
    if n < MIN_LETTERS:
        return ([], [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(1, n - 1)
                     if word[i] != word[i + 1]], [], [])
    deletions = [word[:i] + word[i + 1:] for i in range(1, n - 1)
                 if word[i - 1] == word[i] or word[i - 1] in _NEAR.get(word[i], "")
                 or word[i + 1] == word[i] or word[i + 1] in _NEAR.get(word[i], "")]
    swaps = [word[:i] + word[i + 1] + word[i] + word[i + 2:] for i in range(n - 1)
             if word[i] != word[i + 1]]
    changes = [word[:i] + c + word[i + 1:] for i in range(1, n - 1)
               for c in _NEAR.get(word[i], "")]
    inserts = [word[:i] + c + word[i:] for i in range(1, n + 1) for c in _LETTERS]
    return deletions, swaps, changes, inserts


def nearest(word: str, df: Callable[[str], int]) -> str | None:
    """The word one edit from ``word`` (lower-case letters) whose one token the memory
    holds (``df(token) > 0``; for a word shorter than :data:`MIN_LETTERS`, at least
    :data:`MIN_SUPPORT`); None when there is none."""
    least = 1 if len(word) >= MIN_LETTERS else MIN_SUPPORT
    best, best_df = None, least - 1
    seen: set[str] = set()
    for kind in _edits(word):
        for cand in kind:
            # the same string as an edit at either end ("ccache" from "cache", "mock"
            # from "mockk"): not a slip inside the word
            if cand in seen or word == cand[1:] or cand in (word[1:], word[:-1]):
                continue
            seen.add(cand)
            tokens = tokenize(cand)
            if len(tokens) != 1 or (word == cand[:-1] and word.startswith(tokens[0])):
                continue  # a last letter put back that gives a stem the word begins with
            f = df(tokens[0])
            if f > best_df:
                best, best_df = cand, f
    return best


def mend(query: str, df: Callable[[str], int]) -> str:
    """``query`` with each unknown word of :data:`SHORT_LETTERS` letters or more replaced by
    :func:`nearest` (when there is one); the same string when nothing was mended."""
    words = query.split()
    out = []
    mended = fixed_any = 0
    for raw in words:
        word = raw.strip(_STRIP).lower()
        if (mended < MAX_WORDS and len(word) >= SHORT_LETTERS and word.isascii()
                and word.isalpha()):
            tokens = tokenize(word)
            if tokens and not any(df(t) for t in tokens):
                # counted whether or not a neighbour is found: bounded cost (a short word
                # costs two probes at most, so it is not counted)
                mended += len(word) >= MIN_LETTERS
                fixed = nearest(word, df)
                if fixed is not None:
                    out.append(fixed)
                    fixed_any = 1
                    continue
        out.append(raw)
    return " ".join(out) if fixed_any else query


# -- the overview and the rules ---------------------------------------------------------


def _overview(mem: MemoryLike, verdicts: Verdicts) -> str:
    """INDEX.md as the current files make it (a hand edit leaves the file stale), without
    its generated-file comment; the short pointer when it cannot be shown."""
    try:
        text = render_index(mem.status(), mem.config.max_index_tokens)
    except LeanMemoryError:  # over max_index_tokens: INDEX.md itself could not be written
        return POINTER
    if verdicts.holding([text])[0]:  # a shard description typed in with a credential
        return POINTER
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("<!--")]
    return "\n".join(lines).strip("\n") + "\n"


class _Rules:
    """The standing rules of one digest: how many there are, how many were withheld, and
    their lines for a given room, remembered in ``.cache/digest-rules.marshal``.

    The key is what the lines are made of: the conventions shard's bytes (by hash), the keys
    of what in it holds a credential (as ``Verdicts`` decided this time: the cache never
    decides that), and the memory's correction links (what may supersede a rule; the dates
    of the rules are in the shard's bytes). An ordinary put changes none of them. A hit
    skips parsing the shard, working out the superseded entries (every shard's summary) and
    clipping each rule (the token estimator in a binary search), every prompt.

    The links are a function of the shard files, so the record also keeps the signatures
    of every shard file they were read under: while those are the same, the links are not
    read at all (the put state holds them, with every entry's id: ~8 ms at 100k entries);
    after a put they are read once and compared, and the signatures brought up to date.
    """

    def __init__(self, mem: MemoryLike, verdicts: Verdicts) -> None:
        self.mem = mem
        self.count = self.withheld = 0
        self._entries: list[Entry] | None = None
        self._lines: dict[int, list[str]] = {}
        self._key: list[Any] = []
        self._sigs: list[list[int]] = []
        self._links: list[list[str]] | None = None
        self._dirty = False
        if RULES_SHARD not in mem.shards:
            return

        path = mem._shard_file(RULES_SHARD)
        self._text, bad = verdicts.read(path, RULES_SHARD)
        self._bad = bad
        self._key = [_CACHE_VERSION, list(mem.shards),
                     blake2b(self._text.encode("utf-8", "surrogatepass"),
                             digest_size=16).digest(),
                     sorted(bad)]
        self._sigs = _signatures(mem)
        cached = self._load()
        if cached is not None:
            self.count, self.withheld, self._lines = cached
        else:
            self._parse()

    def links(self) -> list[list[str]]:
        if self._links is None:
            self._links = [list(link) for link in self.mem.correction_links()]
        return self._links

    def _load(self) -> tuple[int, int, dict[int, list[str]]] | None:
        cached = load_record(os.path.join(self.mem._cache, _CACHE_NAME), self._key, 5,
                             self.mem._agents)
        if cached is None:
            self.links()  # (a memory without its put state is warmed up for the next prompt)
            return None
        count, withheld, lines, sigs, links = cached
        if not (isinstance(count, int) and isinstance(withheld, int)
                and isinstance(lines, dict)):
            return None
        if sigs != self._sigs:
            if links != self.links():
                return None
            self._dirty = True  # the same links under the new signatures
        return count, withheld, lines

    def _parse(self) -> list[Entry]:
        """Live entries of the conventions shard, in file order, without those that hold
        a credential (and how many of those there were)."""
        if self._entries is None:
            hidden = self.mem.superseded_ids()
            live = [e for e in fmt.parse(self._text, RULES_SHARD).entries
                    if e.id not in hidden]
            self._entries = [e for e in live if content_key(e.raw) not in self._bad]
            self.count = len(self._entries)
            self.withheld = len(live) - self.count
            self._dirty = True
        return self._entries

    def lines(self, room: int) -> list[str]:
        """:func:`_fit_rules` of the rules in ``room`` tokens."""
        lines = self._lines.get(room)
        if not isinstance(lines, list) or not all(isinstance(ln, str) for ln in lines):
            lines = _fit_rules(self._parse(), room)
            if len(self._lines) >= _CACHE_ROOMS:
                self._lines.clear()
            self._lines[room] = lines
            self._dirty = True
        return lines

    def save(self) -> None:
        """Remember the rules' lines; a failure only costs speed."""
        if not self._dirty or not self._key:
            return

        dump_record(os.path.join(self.mem._cache, _CACHE_NAME), self._key,
                    (self.count, self.withheld, self._lines, self._sigs, self.links()),
                    self.mem._agents)
        self._dirty = False


def _signatures(mem: MemoryLike) -> list[list[int]]:
    """Every shard file's signature, live then archived: what the caches key on."""
    return [list(file_signature(mem._shard_file(name, archive=archive)))
            for archive in (False, True) for name in mem.shards]


def _rule_line(e: Entry, cap: int, titles_only: bool) -> str:
    title = _one_line(e.title)
    if titles_only:
        return f"- {_clip(title, max(cap, 4))[0]}"
    body = _one_line(_main_text(e.text))
    stem = title.rstrip("…").rstrip()
    head = f"- {body}" if body.startswith(stem) else f"- **{title}**: {body}"
    return _clip(head, cap)[0]


def _fit_rules(rules: Sequence[Entry], room: int) -> list[str]:
    """Every rule in ``room`` tokens if at all possible: full (cut at RULE_CAP), then a
    smaller cap each, then titles only; only then a count of the rules left out."""
    if not rules:
        return []
    n = len(rules)
    levels = ((RULE_CAP, False), (max(room // n - 1, 12), False), (max(room // n - 1, 6), True))
    for cap, titles in levels if 4 * n <= room else ():
        lines = [_rule_line(e, min(cap, RULE_CAP), titles) for e in rules]
        if sum(_tokens(ln) + 1 for ln in lines) <= room:
            return lines
    lines = []
    used = 0
    for i, e in enumerate(rules):
        line = _rule_line(e, 12, True)
        more = f"- (+{n - i - 1} more rules: `lean-memory get {RULES_SHARD}`)"
        need = _tokens(line) + 1 + (_tokens(more) + 1 if i < n - 1 else 0)
        if used + need > room:
            count = f"- ({n - i} more rules: `lean-memory get {RULES_SHARD}`)"
            if used + _tokens(count) + 1 <= room:  # else it would eat the matches' share
                lines.append(count)
            break
        lines.append(line)
        used += _tokens(line) + 1
    return lines


# -- the gate: does memory have anything to say? (ADR 0021) ------------------------------

# How the query's idf mass is weighed (measured on LoCoMo and Cranfield, bench/retrieval/
# digest.py): a term the memory holds weighs its BM25 idf; a term it has never seen weighs
# a share of the largest idf possible, by what kind of word it came from.
UNKNOWN_SPECIFIC = 3.0  # a name or an identifier nothing in memory mentions: the prompt is
#                         about something memory does not know
UNKNOWN_PLAIN = 0.5  # any other word: the prompt speaks of something memory does not hold
#                      (ADR 0030: case-free, so a name weighs what any unknown word does) ...
UNKNOWN_MOST = 1.0  # ... raised, up to the idf of a word no entry holds, as far as this memory
#                     knows everyday words: where it knows most of them, a word it has never
#                     seen is not one of them, but what the prompt is about (ADR 0041)
GATE_TOP = 10  # the best coverage among this many hits opens the gate
GATE_KEEP = 12  # once open, the first this many hits stay ...
GATE_RATIO = 0.4  # ... and later ones while their score is at least this share of the best
# In a session (pay-once) the context keeps what earlier prompts were shown, so a prompt
# needs only its strongest matches: the first SESSION_KEEP, then those that score nearly
# as well as the best. A prompt whose words do not tell one entry from another ("run the
# tests" in a memory of fifteen projects) scores many alike and gets more of them, one
# whose best match stands out gets few; pay-once keeps the next such prompt from paying
# for them again (measured on bench/coding's dev split, ADR 0030, amended by ADR 0042).
SESSION_KEEP = 5
SESSION_RATIO = 0.7
SESSION_MAX = 16  # and never more than this many
_CALENDAR = frozenset((
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "i"))


def _specific_terms(prompt: str, known: set[str]) -> set[str]:
    """The tokens of the prompt's words that name something by their shape alone:
    identifier-like (``_`` or ``/`` inside, or letters mixed with digits). Letter case never
    counts (ADR 0030: "Fix the README" and "fix the readme" are one prompt). Month and
    weekday names are dates, common in any prompt: never specific. A compound
    (``test_api``) one of whose parts the memory holds (``known``) is not: its joined form
    is new, what it names is not."""
    out: set[str] = set()
    for raw in prompt.split():
        word = raw.strip(_STRIP)
        if not word or word.lower() in _CALENDAR:
            continue
        if ("_" in word or "/" in word
                or (any(c.isdigit() for c in word) and any(c.isalpha() for c in word))):
            tokens = tokenize(word)
            if len(tokens) < 2 or known.isdisjoint(tokens):
                out.update(tokens)
    return out


def _term_weights(prompt: str, n_docs: int, df: Sequence[tuple[str, int]],
                  plain: float = UNKNOWN_PLAIN) -> dict[str, float]:
    """Each query term's weight: its idf when the memory holds it, else a share of the
    largest idf by kind, ``plain`` for a plain word (:func:`unknown_weight`; a number
    weighs nothing: dates and counts are in every prompt)."""
    top = math.log(1 + (n_docs + 0.5) / 0.5)
    specific = (_specific_terms(prompt, {t for t, f in df if f})
                if any(not f for _, f in df) else set())
    out = {}
    for term, f in df:
        if f:
            out[term] = math.log(1 + (n_docs - f + 0.5) / (f + 0.5))
        elif term in specific:
            out[term] = UNKNOWN_SPECIFIC * top
        else:
            out[term] = 0.0 if term.isdigit() else plain * top
    if specific or any(not f for _, f in df):
        for term, share in _unknown_shares(prompt, {t for t, f in df if f}).items():
            if term in out:
                out[term] *= share
    return out


def _unknown_shares(prompt: str, known: set[str]) -> dict[str, float]:
    """One word, one weight (ADR 0047): the share of its own weight each unknown token of
    a prompt word keeps. A word that yields several tokens (an identifier: its joined form
    and its parts) would otherwise weigh as many unknown words as it has parts, and one new
    name ("azurerm_container_app_job_schedule": six tokens) outweigh the rest of the
    prompt: its unknown tokens share one word's weight. The joined form of a compound
    whose parts the memory holds ("feature:account:settings") weighs nothing: its parts
    say what it names."""
    out: dict[str, float] = {}
    for raw in prompt.split():
        tokens = tokenize(raw.strip(_STRIP))
        if len(tokens) < 2:
            continue
        unknown = [t for t in dict.fromkeys(tokens) if t not in known]
        if unknown and unknown[0] == tokens[0] and not known.isdisjoint(tokens[1:]):
            out[tokens[0]] = 0.0
            unknown = unknown[1:]
        for t in unknown:
            out[t] = min(out.get(t, 1.0), 1.0 / len(unknown))
    return out


def unknown_weight(known: float) -> float:
    """An unknown plain word's share of the top idf in a memory that holds the share
    ``known`` of everyday words (the :data:`PROBES`' words): the odds that such a word is
    held, between :data:`UNKNOWN_PLAIN` and :data:`UNKNOWN_MOST`. A project's memory holds
    about a quarter of them (odds 1:3, the floor: an unknown word is as likely an everyday
    word it never needed); a pooled memory or a paper collection holds three quarters
    (odds 3:1, the ceiling: an unknown word names what the memory is not about)."""
    if known >= 1:
        return UNKNOWN_MOST
    return min(UNKNOWN_MOST, max(UNKNOWN_PLAIN, known / (1 - known)))


def _coverage(hit: Hit, weights: dict[str, float], mass: float) -> float:
    """The share of the query's weight that the entry's indexed words hold."""
    e = hit.entry
    held = set(tokenize(f"{e.title}\n{_indexed_body(e)}"))
    return sum(w for t, w in weights.items() if t in held) / mass


def opens(hits: Sequence[Hit], prompt: str, n_docs: int, df: Sequence[tuple[str, int]],
          min_coverage: float, plain: float = UNKNOWN_PLAIN) -> bool:
    """Whether memory has something to say about ``prompt``: one of its GATE_TOP best hits
    (in the first stage's order) holds at least ``min_coverage`` of the query's weight
    (an unknown plain word weighing ``plain``). Deterministic: a function of the hits, the
    prompt and the memory's term counts."""
    if not hits:
        return False
    weights = _term_weights(prompt, n_docs, df, plain)
    mass = sum(weights.values())
    top = [hits[i] for i in _first_stage(hits)[:GATE_TOP]]
    # max(coverage) >= min_coverage, stopping at the first hit that has it (usually the best:
    # each coverage tokenizes the entry)
    return mass > 0 and any(_coverage(h, weights, mass) >= min_coverage for h in top)


def best_coverage(hits: Sequence[Hit], prompt: str, n_docs: int,
                  df: Sequence[tuple[str, int]], plain: float = UNKNOWN_PLAIN) -> float:
    """The best coverage among the GATE_TOP best hits (first stage's order)."""
    if not hits:
        return 0.0
    weights = _term_weights(prompt, n_docs, df, plain)
    mass = sum(weights.values())
    if mass <= 0:
        return 0.0
    return max(_coverage(hits[i], weights, mass) for i in _first_stage(hits)[:GATE_TOP])


# -- the gate's bar, calibrated on the memory itself (ADR 0030) ----------------------------

# Text no memory is about: requests about the code at hand that name no tool, process or
# part of a project. What they reach against a memory is what chance reaches there: its
# words, not its topics. (Everyday talk was tried too: a chat memory, LoCoMo, is about
# everyday talk, and its bar rose to the cap, costing .05 of its recall.) A memory of
# generic words (short entries, a small vocabulary: every word is rare there) lets chance
# reach far, so its bar is higher. Fixed text, so the bar is a function of the memory alone.
PROBES = (
    "write a docstring for this function",
    "convert this loop into a list comprehension",
    "what is the difference between a tuple and a list",
    "explain what this regular expression matches",
    "rename this variable to something clearer",
    "add type hints to these arguments",
    "make this function shorter and easier to read",
    "why does this return None instead of the value",
    "sort this array of objects by date descending",
    "turn this callback into async await",
    "split this long method into smaller ones",
    "what does this error message mean",
    "add a comment explaining the tricky part",
    "remove the unused imports from this file",
    "is there a faster way to compute this sum",
    "write a small example that shows how to use it",
    "how do I reverse a string",
    "format this date as day month year",
    "check whether the dictionary has that key",
    "parse this string into an integer safely",
    "what is a closure",
    "merge these two dictionaries",
    "generate a random password of twelve characters",
    "count how many times each word appears",
    "translate this paragraph into plain english",
    "summarize the article I pasted",
)
BAR_QUANTILE = 0.9  # the bar: what chance reaches for this share of the probes ...
# ... and no more: with unknown words weighed by what the memory knows (ADR 0041) chance
# reaches less where names are unknown (LoCoMo), and 0.05 more cost answerable prompts
# there and in small project memories (bench/coding dev, LoCoMo's even half).
BAR_MARGIN = 0.0
BAR_CAP = 0.4  # never higher: a prompt matching 40 % of its weight is about the memory
BAR_BUDGET_S = 0.5  # the prompt hook's share for a calibration after a shard changed
_BAR_CACHE = "digest-gate.marshal"
_BAR_VERSION = "lean_memory.digest.bar/3"  # 3: one word, one weight (ADR 0047)


class _OutOfTime(Exception):
    pass


def _probe_coverages(mem: MemoryLike,
                     deadline: float | None = None) -> tuple[float, list[float]]:
    """How this memory meets text it is not about: the unknown plain word's weight here
    (:func:`unknown_weight` of the share of the :data:`PROBES`' words it holds), and each
    probe's best coverage under that weight: BM25 over the index alone (the first stage the
    gate reads), typos mended as for a prompt. Read straight from the corpus: no plugin
    retriever (its time limit per probe), no warm-up started. Raises _OutOfTime past
    ``deadline`` (``time.monotonic``)."""

    corpus = load_corpus(mem)
    try:
        index = corpus.index
        # the search's own walk: only the candidates are judged for credentials, so a fresh
        # clone's calibration does not scan the whole memory (ADR 0051)
        eligible = corpus.eligible(mem.shards, mem.config.search_archive)
        queries = [mend(probe, index.df) for probe in PROBES]
        words = list(dict.fromkeys(t for q in queries for t in tokenize(q)))
        plain = unknown_weight(sum(1 for t in words if index.df(t)) / max(len(words), 1))
        out = []
        for query in queries:
            if deadline is not None and time.monotonic() > deadline:
                raise _OutOfTime
            hits = []
            for n, score in clean_top(corpus, query, GATE_TOP, eligible, corpus.dates)[0]:
                shard, archived = corpus.where(n)
                hit = Hit(corpus.entry(n), shard, score, archived)
                if not _placeholder(hit.entry):
                    hits.append(hit)
            df = [(t, index.df(t)) for t in dict.fromkeys(tokenize(query))]
            out.append(best_coverage(hits, query, len(index), df, plain))
        return plain, out
    finally:
        corpus.close()


def calibration(mem: MemoryLike, budget_s: float | None = None) -> tuple[float, float]:
    """The gate's two numbers for this memory: the bar (:func:`bar`) and the weight of an
    unknown plain word (:func:`unknown_weight`), both read from how the memory meets the
    :data:`PROBES`. Remembered in ``.cache/digest-gate.marshal`` while no shard file
    changed. With ``budget_s`` (the prompt hook), a calibration that would take longer
    gives the floor and :data:`UNKNOWN_PLAIN` this time (the hook's background warm-up
    calibrates without a limit)."""
    floor = mem.config.digest_min_coverage
    if floor <= 0:
        return 0.0, UNKNOWN_PLAIN
    # the tokens decide which probe words the memory holds: another tokenizer, another bar
    key = [_BAR_VERSION, TOKENIZER_VERSION, list(mem.shards), _signatures(mem), PROBES,
           BAR_QUANTILE, UNKNOWN_PLAIN, UNKNOWN_MOST, UNKNOWN_SPECIFIC, GATE_TOP]
    path = os.path.join(mem._cache, _BAR_CACHE)
    got = load_record(path, key, 2, mem._agents)
    if got is not None and isinstance(got[0], float) and isinstance(got[1], float):
        chance, plain = got
    else:
        try:
            plain, covs = _probe_coverages(
                mem, None if budget_s is None else time.monotonic() + budget_s)
        except Exception:  # out of time, a damaged or racing index: the floor, this time
            if budget_s is not None:  # and the hook's warm-up calibrates for the next prompt:
                warm_later(mem)  # else every prompt of a large memory paid the budget again
            return floor, UNKNOWN_PLAIN
        covs.sort()
        chance = covs[min(int(BAR_QUANTILE * len(covs)), len(covs) - 1)] if covs else 0.0
        dump_record(path, key, [float(chance), float(plain)], mem._agents)
    return max(floor, min(chance + BAR_MARGIN, BAR_CAP)), plain


def bar(mem: MemoryLike, budget_s: float | None = None) -> float:
    """The best coverage a prompt's hits need for the gate to open in this memory: the
    config's ``digest_min_coverage``, raised to what chance reaches here (the
    :data:`BAR_QUANTILE` of the :data:`PROBES`' best coverage, plus :data:`BAR_MARGIN`),
    at most :data:`BAR_CAP` (:func:`calibration`)."""
    return calibration(mem, budget_s)[0]


def _first_stage(hits: Sequence[Hit]) -> list[int]:
    """The hits' positions in the first stage's order (by ``Hit.base``, BM25's own score
    by default, then ``Hit.rank``): a semantic re-rank re-orders the head of the ranking,
    and the gate must read the evidence, not the re-ordering (ADR 0021)."""
    return sorted(range(len(hits)), key=lambda i: (-hits[i].base, hits[i].rank))


def trimmed(hits: list[Hit], keep: int | None = None, ratio: float | None = None,
            most: int | None = None) -> tuple[list[Hit], bool]:
    """``hits`` less the long tail of weak word matches: in the first stage's order, from
    the first one after the first ``keep`` (GATE_KEEP) that scores under ``ratio``
    (GATE_RATIO) of the best, or past the first ``most``; whether any was cut. The rest
    keep their (fused) order."""
    keep = GATE_KEEP if keep is None else keep
    ratio = GATE_RATIO if ratio is None else ratio
    order = _first_stage(hits)
    best = hits[order[0]].base if hits else 0.0
    for j in range(keep, len(order)):
        if (most is not None and j >= most) or not (
                best > 0 and hits[order[j]].base >= ratio * best):
            cut = set(order[j:])
            return [h for i, h in enumerate(hits) if i not in cut], True
    return hits, False


# -- the matches ------------------------------------------------------------------------


class _Matches:
    """The prompt's hits, best first, fetched in growing batches as the packing asks."""

    def __init__(self, mem: MemoryLike, query: str, shards: Sequence[str],
                 include_archive: bool | None, room: int,
                 seen: Collection[str] | None = None) -> None:
        self.mem = mem
        self.query = query
        self.shards = shards
        self.include_archive = include_archive
        # in a session (pay-once): the ids shown earlier, gated on but never shown again
        self.seen = seen
        self.repeated = 0  # matches left out because they were shown already
        self.hits: list[Hit] = []
        self.withheld = 0
        self.complete = False  # every match is in ``hits``
        # the gate's bar, once the first batch found something (the index is up to date then)
        self.min_coverage = mem.config.digest_min_coverage
        self.plain = UNKNOWN_PLAIN  # an unknown plain word's weight here (calibration)
        self.open: bool | None = None  # the gate's decision, made on the first batch
        # in a session the cut keeps at most SESSION_MAX: one more tells it there are more
        k = max(SESSION_MAX + 1 if seen is not None else room // LINE_GUESS, MIN_FETCH,
                GATE_TOP)
        if mem._retrievers is not None or any(n != "bm25" for n in mem.config.retrievers):
            # fused: the first stage's whole re-ranked head, so that the gate sees its
            # GATE_TOP best and the cut its order
            k = max(k, mem.config.rerank_depth)
        self._fetch(min(k, MAX_FETCH))

    def _fetch(self, k: int) -> None:
        self.k = k
        # lazy: of dozens of hits the packing shows a few; the rest are never parsed
        found = find(self.mem, self.query, k=k, shards=self.shards,
                     include_archive=self.include_archive, mend=mend, lazy=True)
        self.hits = [h for h in found.hits if not _placeholder(h.entry)]
        self.withheld = found.withheld
        self.complete = len(found.hits) < k or k >= MAX_FETCH
        if self.min_coverage > 0:
            if self.open is None:
                if self.hits:
                    self.min_coverage, self.plain = calibration(self.mem, BAR_BUDGET_S)
                self.open = opens(self.hits, found.query or self.query, found.n_docs,
                                  found.df, self.min_coverage, self.plain)
            if not self.open:
                self.hits, cut = [], True
            elif self.seen is None:
                self.hits, cut = trimmed(self.hits)
            else:
                self.hits, cut = trimmed(self.hits, SESSION_KEEP, SESSION_RATIO, SESSION_MAX)
            self.complete = self.complete or cut
        if self.seen:
            kept = [h for h in self.hits if h.entry.id not in self.seen]
            self.repeated = len(self.hits) - len(kept)
            self.hits = kept

    def get(self, i: int) -> Hit | None:
        """The ``i``-th best match, fetching more when needed; None past the last."""
        while i >= len(self.hits) and not self.complete:
            self._fetch(min(self.k * 4, MAX_FETCH))
        return self.hits[i] if i < len(self.hits) else None


def _placeholder(e: Entry) -> bool:
    return e.get("compacted") is not None and e.get("detail") in EMPTY_DETAILS


def _matches(mem: MemoryLike, prompt: str, include_archive: bool | None, room: int,
             seen: Collection[str] | None = None, rules: bool = False) -> _Matches | None:
    """The prompt's matches: in every shard but the rules' (they ride whole), or, with
    ``rules`` (pay-once: the rules rode the session start), in every shard."""
    query = prompt[:MAX_QUERY_CHARS]
    others = list(mem.shards) if rules else [s for s in mem.shards if s != RULES_SHARD]
    if not others or not tokenize(query):
        return None
    return _Matches(mem, query, others, include_archive, room, seen)


def _match_text(e: Entry) -> str:
    """The entry as one line of text: its body, after its title when the body does not
    begin with it (a derived title is the body's first words: not paid for twice)."""
    title = _one_line(e.title)
    body = _one_line(_main_text(e.text))
    stem = title.rstrip("…").rstrip()
    if not body or body == title:
        return title
    if body.startswith(stem):
        return body
    return f"{title} {body}" if title[-1:] in ".:!?" else f"{title}: {body}"


def _match_line(hit: Hit, room: int | None = None) -> str:
    """``- text (date, archived)``; cut to ``room`` tokens when given."""
    facts = [d for d in (hit.entry.date, "archived" if hit.archived else "") if d]
    tail = f" ({', '.join(facts)})" if facts else ""
    line = f"- {_match_text(hit.entry)}{tail}"
    if room is None:
        return line
    where = f"archive/{hit.shard}.md" if hit.archived else f"{hit.shard}.md"
    suffix = f"… (cut; whole entry {hit.entry.id} in .agents/memory/{where}){tail}"
    return _clip(line, room, suffix=suffix)[0]


def _left_out_note(n: int, more: bool) -> str:
    if n <= 0:
        return ""  # a "+" alone would claim matches nobody has seen
    count = f"{n}{'+' if more else ''}"
    what = "entry" if n == 1 and not more else "entries"
    return f"_({count} more matching {what} left out for the token budget: {FETCH_HINT})_"


def _pack_matches(found: _Matches, room: int,
                  ids: list[str] | None = None) -> tuple[list[str], int, bool]:
    """Match lines, best first, within ``room`` tokens (their note included); how many
    were left out, and whether there may be more than that. A line that does not fit
    whole is left out, except the best one, which is cut instead. ``ids`` gets the id
    of each line's entry (a line cut short adds none: it was not shown whole)."""
    lines: list[str] = []
    seen: set[str] = set()
    # The note's cost is kept back while packing (its count has fewer digits than this).
    left = room - _tokens(MATCH_HEAD) - 1 - (_tokens(_left_out_note(10 ** 5, True)) + 1)
    skipped = run = 0
    i = 0
    while left > 1 and run < MAX_SKIPS:
        hit = found.get(i)
        if hit is None:
            break
        i += 1
        line = _match_line(hit)
        if line in seen:  # the same text twice (an original and its copy) is said once
            continue
        whole = line
        cost = _tokens(line) + 1
        if cost > left:
            if lines or left < MIN_MATCH:
                skipped += 1
                run += 1
                continue
            line = _match_line(hit, left - 1)
            cost = _tokens(line) + 1
            if not line or cost > left:
                skipped += 1
                run += 1
                continue
        run = 0
        seen.add(line)
        lines.append(line)
        if ids is not None:
            ids.append(hit.entry.id if line == whole else "")
        left -= cost
    if not lines:
        return [], 0, False
    if i == len(found.hits) and not found.complete:
        found.get(i)  # is there one more? (only when the budget ran out right here)
    return lines, skipped + len(found.hits) - i, not found.complete


# -- the block --------------------------------------------------------------------------


def digest(mem: MemoryLike, prompt: str, *, budget_tokens: int = 1200, index: bool | None = None,
           include_archive: bool | None = None, rules: bool = True,
           seen: Collection[str] = (), shown: list[str] | None = None) -> str:
    """The block to inject before ``prompt``, in at most ``budget_tokens`` (estimated).

    ``index``: whether the shard overview comes first (default: for an empty prompt, or
    when the config's ``digest_index`` says so). ``include_archive``: whether archived
    entries match too (default: the config's ``search_archive``, true).

    Pay-once (ADR 0030): with ``rules`` False the standing rules do not ride (the session
    start gave them) and match like any entry; entries whose id is in ``seen`` (shown
    earlier in this session) are never shown again, and when they were all the prompt
    matched, the block is one short line. ``shown`` gets the ids shown whole.
    """
    if not isinstance(prompt, str):
        raise QueryError("the prompt must be a string")
    if not isinstance(budget_tokens, int) or isinstance(budget_tokens, bool):
        raise QueryError("budget_tokens must be a whole number")
    mem._require_init()
    asked = bool(prompt.strip())
    if index is None:
        index = not asked or mem.config.digest_index
    # The matches first: on a fresh clone, bringing the index up to date within the prompt
    # hook's time limit must not wait for the rules (which then read the verdicts it saved).
    found = _matches(mem, prompt, include_archive, budget_tokens,
                     None if rules else seen, not rules) if asked else None
    if not rules and not index:
        text = _block(max(budget_tokens, 0), "", None, found, shown)
        note = count_note(found.withheld if found else 0)
        if text and note:
            return text + f"\n_({note})_\n"
        return text or (repeated_line(found.repeated) if found and found.repeated else "")
    verdicts = Verdicts(mem)
    try:
        overview = _overview(mem, verdicts) if index else ""
        standing = _Rules(mem, verdicts)
    finally:
        verdicts.save()
    withheld = standing.withheld
    note = count_note(withheld + (found.withheld if found else 0))
    budget = max(budget_tokens, 0)
    if not note:
        text = _block(budget, overview, standing, found, shown)
        standing.save()
        return text
    note = f"\n_({note})_\n"
    text = _block(budget - _tokens(note) - 1, overview, standing, found, shown)
    standing.save()
    return text + note if text else ""


def repeated_line(n: int) -> str:
    """The one line a prompt gets when everything it matched was shown earlier in this
    session (it is still in the agent's context)."""
    what = "entry" if n == 1 else f"{n} entries"
    return f"_(memory: the matching {what} shown earlier in this session)_\n"


def _layout(budget: int, overview: str, matches: bool) -> tuple[str, int] | None:
    """The overview as shown and the rules' room, in a block of ``budget`` tokens with or
    without matches; None when not even the overview fits."""
    if overview and _tokens(overview) > budget // 2:  # a tiny budget: a pointer instead
        overview = POINTER
    if _tokens(overview) > budget:
        return None
    left = budget - _tokens(overview)
    reserve = 0
    if matches:
        floor = MIN_MATCH + _tokens(MATCH_HEAD) + _tokens(_left_out_note(10 ** 5, True)) + 2
        reserve = min(left, max(left // MATCH_SHARE, floor))
    return overview, left - reserve - _tokens(RULES_HEAD) - 1


def warm_rules(mem: MemoryLike, budget_tokens: int) -> None:
    """Build what a digest of ``budget_tokens`` reads, for the next prompt to find cached:
    the verdicts of the rules and of the overview, and the rules' lines for a prompt with
    matches and for one without (the prompt hook's background warm-up)."""
    mem._require_init()
    verdicts = Verdicts(mem)
    try:
        overview = _overview(mem, verdicts)  # the session start shows it
        rules = _Rules(mem, verdicts)
    finally:
        verdicts.save()
    calibration(mem)  # the gate's, for a prompt after a put to find cached
    shown = overview if mem.config.digest_index else ""
    for matches in (False, True):
        laid = _layout(max(budget_tokens, 0), shown, matches)
        if laid is not None and rules.count:
            rules.lines(laid[1])
    rules.save()


def _block(budget: int, overview: str, rules: _Rules | None, found: _Matches | None,
           shown: list[str] | None = None) -> str:
    laid = _layout(budget, overview, found is not None and bool(found.hits))
    if laid is None:
        return ""
    overview, room = laid
    rule_lines: list[str] = []
    if rules is not None and rules.count:
        rule_lines = rules.lines(room)
    parts = [overview] if overview else []
    if rule_lines:
        parts.append(RULES_HEAD + "\n".join(rule_lines) + "\n")
    used = sum(_tokens(p) for p in parts) + len(parts)
    lines: list[str] = []
    ids: list[str] = []
    rest, more = 0, False
    if found is not None and found.hits:
        lines, rest, more = _pack_matches(found, budget - used - 1, ids)
    while True:  # estimates are not quite additive: drop from the end until it fits
        text = "".join(parts)
        if lines:
            note = _left_out_note(rest, more)
            text += MATCH_HEAD + "\n".join(lines) + "\n" + (f"{note}\n" if note else "")
        if _tokens(text) <= budget:
            break
        if lines:
            lines.pop()
            ids.pop()
            rest += 1
        elif parts:
            parts.pop()
        else:
            return ""
    if shown is not None:
        shown.extend(i for i in ids if i)
    return text.lstrip("\n")
