"""An ask as the prompt hook keeps it: scanned, bounded, with an id derived from what it is
(:mod:`lean_memory.asks` re-exports all of this; it is apart so that the hook, which keeps an
ask before every prompt, imports neither the matcher nor its tables). Pure, no I/O.
"""

from __future__ import annotations

from ._hash import blake2b
from ._record import Record
from ._secret_gate import may_hold

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterable


def redact(text: str) -> str:
    """:func:`lean_memory.secrets.redact`, imported only for a text it could change: most
    prompts name no keyword of any rule (``_secret_gate``, ADR 0039)."""
    if not may_hold(text):
        return text
    from .secrets import redact as scan  # the scanner: only for a text that may hold one

    return scan(text)


MAX_ASK_BYTES = 24 * 1024  # the guard the prompt hook applies to what it keeps
MAX_ASKS_PER_SESSION = 200
MAX_SESSION_ID = 128  # characters of a project label
CUT_MARK = " …(cut)"
# Scanning is linear but not free: a pasted log of megabytes is cut to this before the scan.
# Cutting (here and at the end) happens at white space, so no fragment of a credential that
# straddles a cut is kept where the scanner could no longer recognise it.
_SCAN_BYTES = 4 * MAX_ASK_BYTES
SUMMARY_SHARD = "sessions"  # the session layer's shard of summaries (asks.distill)

_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def is_time(at: str) -> bool:
    """Whether ``at`` reads ``YYYY-MM-DDTHH:MM:SSZ``: the regular expression
    ``\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z`` in str methods (``\\d`` is any decimal
    digit, as ``str.isdecimal``), since the prompt hook imports no ``re``."""
    return (len(at) == 20 and at[4] == at[7] == "-" and at[10] == "T"
            and at[13] == at[16] == ":" and at[19] == "Z"
            and (at[:4] + at[5:7] + at[8:10] + at[11:13] + at[14:16] + at[17:19]).isdecimal())


def plain_name(text: str, more: str = "._:-") -> bool:
    """Whether ``text`` is ``[A-Za-z0-9][A-Za-z0-9<more>]{0,63}`` (``more``: punctuation
    allowed after the first character), in str methods."""
    return (0 < len(text) <= 64 and text.isascii() and text[0].isalnum()
            and not text.strip(_ALNUM + more))


# -- the record --------------------------------------------------------------------------------


class Ask(Record):
    """One prompt of one session. ``text`` was scanned and bounded by :func:`make_ask`."""

    _fields = ("id", "session", "at", "text", "project")
    __slots__ = _fields
    id: str
    session: str
    at: str  # UTC, "YYYY-MM-DDTHH:MM:SSZ"
    text: str
    project: str  # a label of the project it was asked in (for the global suggestion)

    def __init__(self, id: str, session: str, at: str, text: str,
                 project: str = "") -> None:
        self._init(id, session, at, text, project)

    @property
    def date(self) -> str:
        return self.at[:10]


def _cut(text: str, limit: int) -> str:
    """``text`` within ``limit`` UTF-8 bytes, cut at white space, with :data:`CUT_MARK`."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = limit - len(CUT_MARK.encode("utf-8"))
    head = data[:room].decode("utf-8", "ignore")
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    return head[:space].rstrip() + CUT_MARK if space > 0 else CUT_MARK.lstrip()


def bound_text(prompt: str) -> str:
    """A prompt as an ask keeps it: credentials cut out (first), then at most
    :data:`MAX_ASK_BYTES` of UTF-8, cut at white space."""
    last = _BOUND[0]
    if last[0] == prompt:  # the hook keeps the ask, then logs what it injected: one scan
        return last[1]
    # lone surrogates (JSON may carry them) could never be written as UTF-8
    text = prompt.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")
    kept = _cut(redact(_cut(text, _SCAN_BYTES)), MAX_ASK_BYTES)
    _BOUND[0] = (prompt, kept)  # one tuple: a thread never reads another prompt's half
    return kept


_BOUND: list[tuple[str, str]] = [("", "")]  # the last prompt and its text (ADR 0056)


def _label(value: str) -> str:
    """A harness's name for something made safe to show and to key on: printable, bounded,
    no credential."""
    kept = "".join(ch for ch in value[: 4 * MAX_SESSION_ID] if ch.isprintable()
                   and not ch.isspace() and not "\ud800" <= ch <= "\udfff")
    return redact(kept[:MAX_SESSION_ID])


_HEX = frozenset("0123456789abcdefABCDEF")


def is_uuid(text: str) -> bool:
    """Whether ``text`` is a UUID in its canonical 8-4-4-4-12 hex form."""
    return (len(text) == 36 and text[8] == text[13] == text[18] == text[23] == "-"
            and all(c in _HEX for i, c in enumerate(text) if i not in (8, 13, 18, 23)))


def clean_session_id(session: str) -> str:
    """A session id as asks key on it. Harnesses send UUIDs; anything else that is not a
    short plain name the scanner passes is keyed by its digest, so no part of it is shown."""
    got = _SESSION_IDS.get(session)
    if got is None:
        # A UUID (what Claude Code and Codex send) is a plain name the scanner passes
        # (tests/test_hot_lines.py checks): said so without loading the scanner's rules.
        if is_uuid(session) or (plain_name(session) and redact(session) == session):
            got = session
        else:
            raw = session.encode("utf-8", "replace")
            got = "h-" + blake2b(raw, digest_size=8).hexdigest() if session else "unknown"
        if len(_SESSION_IDS) < 1024:  # a prompt asks twice (its ask, its file): one scan
            _SESSION_IDS[session] = got
    return got


_SESSION_IDS: dict[str, str] = {}


def make_ask(session: str, prompt: str, at: str, project: str = "") -> Ask | None:
    """The ask for ``prompt`` sent in ``session`` at ``at`` (UTC, ``YYYY-MM-DDTHH:MM:SSZ``);
    None for a prompt with nothing in it. The id depends only on session, time and kept text."""
    if not is_time(at):
        raise ValueError(f"ask time must be YYYY-MM-DDTHH:MM:SSZ, got {redact(at[:40])!r}")
    text = bound_text(prompt).strip()
    if not text:
        return None
    sid = clean_session_id(session)
    digest = blake2b(f"{sid}\0{at}\0{text}".encode(), digest_size=5)
    return Ask(id="a-" + digest.hexdigest(), session=sid, at=at, text=text,
               project=_label(project))


def _order(ask: Ask) -> tuple[str, str, str]:
    return (ask.at, ask.session, ask.id)


def _unique_asks(asks: Iterable[Ask]) -> list[Ask]:
    """Each ask once, in time order; of two records with one id, the same one whatever the
    input order (the greatest by its fields)."""
    by_id: dict[str, Ask] = {}
    for a in asks:
        old = by_id.get(a.id)
        if old is None or (a.at, a.session, a.text, a.project) > (
                old.at, old.session, old.text, old.project):
            by_id[a.id] = a
    return sorted(by_id.values(), key=_order)


def bound_session(asks: Iterable[Ask], limit: int = MAX_ASKS_PER_SESSION) -> tuple[Ask, ...]:
    """One session's asks, each once, in time order, at most ``limit``: the latest are kept,
    since they are what a compacted context most needs back."""
    unique = _unique_asks(asks)
    return tuple(unique[-limit:]) if limit > 0 else ()
