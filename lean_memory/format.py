"""The shard file format: lossless parsing and rendering of Markdown entries.

A shard is a preamble followed by entries. An entry starts at a ``## `` line at
column 0 outside fenced code; its metadata lives in one HTML comment on the next
line (invisible on GitHub)::

    ## Title of the entry
    <!-- lean-memory: id=3fa9c2d1; date=2026-11-30; tags=ci, windows -->

    The body, byte for byte.

Every entry keeps the exact source text it was parsed from, so rendering a
parsed shard gives back the same bytes whatever the input (ADR 0002).
"""

from __future__ import annotations

from . import _hash  # _hash.sha256: loaded on first use (ADR 0039)
from ._record import Record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container, Iterable

META_PREFIX = "<!-- lean-memory: "
META_SUFFIX = " -->"
HEADING = "## "
BOM = "\ufeff"
# Starts the "Said again" part of a body (lean_memory.dedup writes and strips it): text
# without it is its own main text, and needs no dedup (nor its regexes) to find it.
SAID_AGAIN = "<!-- lean-memory said-again -->"
# Line ends are "\n", "\r\n" and a lone "\r" (old Mac files), everywhere in this module.
# The text is read with str methods, not regular expressions: a query parses the entries it
# shows and so would import ``re`` and compile its patterns (~8 ms) for a few lines each.
# tests/test_format_strparse.py checks every helper against the regex it replaced.
_FENCE_CHARS = ("`", "~")
_META_ENDS_1 = (META_SUFFIX + "\r", META_SUFFIX + "\n")
_META_END_2 = META_SUFFIX + "\r\n"
_HEX = frozenset("0123456789ABCDEF")
# Percent-escaping keeps a metadata value on one line and away from `;`, `=` and `-->`.
_META_UNSAFE = {ord(c): f"%{ord(c):02X}" for c in "%;=>\r\n,"}
_KNOWN_KEYS = ("id", "date", "tags", "supersedes")


def main_text(text: str) -> str:
    """The body without its "Said again" part (the whole body when it has none). Here,
    not in :mod:`lean_memory.dedup`, which a hit said again would import (ADR 0039)."""
    if SAID_AGAIN not in text:  # the common case, at C speed
        return text
    # the first SAID_AGAIN after a blank line (\n\n or \r\n\r\n) and before a line end or
    # the end: regex (?:\r\n\r\n|\n\n)SAID_AGAIN(?=\r?\n|\Z)
    at = text.find(SAID_AGAIN, 2)
    while at >= 0:
        end = at + len(SAID_AGAIN)
        if end == len(text) or text.startswith(("\n", "\r\n"), end):
            if text.startswith("\r\n\r\n", at - 4):
                return text[: at - 4]
            if text.startswith("\n\n", at - 2):
                return text[: at - 2]
        at = text.find(SAID_AGAIN, at + 1)
    return text


class Entry(Record):
    """One memory entry. ``text`` is the body exactly as it was given."""

    _fields = ("id", "shard", "title", "text", "date", "tags", "supersedes", "meta", "line",
                 "raw", "has_meta")
    __slots__ = _fields
    _hidden = ("raw", "has_meta")  # left out of equality, hashing and repr
    id: str
    shard: str
    title: str
    text: str
    date: str | None
    tags: tuple[str, ...]
    supersedes: str | None
    meta: tuple[tuple[str, str], ...]  # unknown keys, in file order
    line: int  # 1-based line of the heading in its file
    raw: str
    has_meta: bool

    def __init__(self, id: str, shard: str, title: str, text: str, date: str | None = None,
                 tags: tuple[str, ...] = (), supersedes: str | None = None,
                 meta: tuple[tuple[str, str], ...] = (), line: int = 0, raw: str = "",
                 has_meta: bool = False) -> None:
        self._init(id, shard, title, text, date, tags, supersedes, meta, line, raw, has_meta)

    def get(self, key: str) -> str | None:
        """The value of an unknown metadata key, or None."""
        return dict(self.meta).get(key)


class Shard(Record):
    """A parsed shard file: preamble plus entries, each carrying its raw text."""

    _fields = ("name", "preamble", "entries")
    __slots__ = _fields
    name: str
    preamble: str
    entries: tuple[Entry, ...]

    def __init__(self, name: str, preamble: str, entries: tuple[Entry, ...]) -> None:
        self._init(name, preamble, entries)

    def render(self) -> str:
        return self.preamble + "".join(e.raw for e in self.entries)

    @property
    def description(self) -> str:
        """The first prose line of the preamble (what belongs in this shard)."""
        for line in self.preamble.splitlines():
            line = line.strip()
            if line and not line.startswith(("#", "<!--")):
                return line
        return ""


_CLAUSE_ENDS = tuple(f"{c} " for c in ".:;!?")


def first_of(text: str, needles: Iterable[str], start: int = 0) -> int:
    """Where the first of ``needles`` occurs in ``text`` from ``start`` (-1: none): one C
    search a needle, no regex to import and compile for a check every put makes."""
    return min((i for i in (text.find(n, start) for n in needles) if i >= 0), default=-1)


def _clause_end(line: str) -> int:
    """Where the first clause of ``line`` (white space already single spaces) ends: the
    first ``.:;!?`` from its 17th character on that a space follows; -1: none."""
    return first_of(line, _CLAUSE_ENDS, 16)


def default_title(text: str) -> str:
    """The first clause of the first non-empty line, without Markdown markers, cut at a word."""
    for line in text.splitlines():
        line = line.strip().lstrip("#>*-+ \t").strip().strip("`")
        if line:
            break
    else:
        line = "Untitled"
    line = " ".join(line.split())
    end = _clause_end(line)
    if 0 <= end <= 80:
        line = line[:end]
    if len(line) > 80:
        cut = line[:80].rsplit(" ", 1)[0] or line[:80]
        line = cut.rstrip(" ,;:.") + "…"
    return line


def fence_parts(line: str) -> tuple[str, str] | None:
    """(marker, rest) of a fence line: up to three spaces, a run of three or more backticks
    or tildes (the marker), then the rest (no line feed in it); None for any other line."""
    rest = line.lstrip(" ")
    indent = len(line) - len(rest)
    if indent > 3 or not rest.startswith(_FENCE_CHARS):
        return None
    after = rest.lstrip(rest[0])
    run = len(rest) - len(after)
    if run < 3 or "\n" in after:
        return None
    return rest[:run], after


def closes_fence(opener: str, line: str) -> bool:
    """Whether ``line`` closes the fence ``opener`` opened: a run of the same character,
    at least as long, and nothing but blanks after it. The one definition of a closing
    fence (the parser, ``compaction.gist`` and the page use it; ADR 0028)."""
    m = fence_parts(line.rstrip("\r\n"))
    return bool(m and m[0][0] == opener[0] and len(m[0]) >= len(opener) and not m[1].strip())


def opens_fence(line: str) -> str | None:
    """The marker of the fence ``line`` opens outside fenced code, or None: a backtick
    fence's info string may hold no backtick (CommonMark). The one definition of an
    opening fence (ADR 0028)."""
    m = fence_parts(line.rstrip("\r\n"))
    if m is None or (m[0][0] == "`" and "`" in m[1]):
        return None
    return m[0]


def fence_after(fence: str | None, line: str) -> str | None:
    """The fence open after ``line`` (no line end), given the one open before it (None:
    none): the parser's fence rule (:func:`_step`'s), for every module that walks Markdown
    by lines."""
    return _step(fence, line)[0]


def _special_at(text: str, i: int) -> bool:
    """Whether a heading (``## ``) or a fence marker (after up to three spaces) starts at
    ``i``: the lines that can matter to the structure."""
    if text.startswith(HEADING, i):
        return True
    j = i
    while j < i + 3 and text.startswith(" ", j):
        j += 1
    return text.startswith(("```", "~~~"), j)


def _candidates(text: str) -> list[int]:
    """The starts (after a line end) of the lines :func:`_special_at` accepts, in order."""
    out: list[int] = []
    for marker in (HEADING, "```", "~~~"):
        at = text.find(marker, 1)
        while at >= 0:
            start = at
            if marker != HEADING:  # a fence may be indented by up to three spaces
                while start > max(at - 3, 0) and text[start - 1] == " ":
                    start -= 1
            if start > 0 and text[start - 1] in "\r\n":
                out.append(start)
            at = text.find(marker, at + 1)
    out.sort()
    return out


def _step(fence: str | None, line: str) -> tuple[str | None, bool]:
    """One line through the fence state machine: (the open fence after it, whether the
    line starts an entry). The one definition of "a heading outside fenced code"."""
    if fence is not None:
        return (None if closes_fence(fence, line) else fence), False
    if line.startswith(HEADING):
        return None, True
    return opens_fence(line), False


def _structure(text: str) -> tuple[list[int], bool]:
    """Offsets of entry headings (``## `` at column 0, outside fenced code), and whether
    a fence is still open at the end.

    Only lines that could matter (headings and fence markers) are looked at, found by
    C-speed ``str.find`` scans rather than a loop over lines.
    """
    found: list[int] = []
    fence: str | None = None
    starts = _candidates(text)
    # The first line starts after a UTF-8 byte order mark, which stays in the preamble.
    first = 1 if text.startswith(BOM) else 0
    if _special_at(text, first):
        starts.insert(0, first)
    for start in starts:
        fence, heading = _step(fence, text[start:_eol_at(text, start)])
        if heading:
            found.append(start)
    return found, fence is not None


def _eol_at(text: str, start: int = 0) -> int:
    """Where the line at ``start`` ends (its line end's first character, or the end)."""
    nl = text.find("\n", start)
    cr = text.find("\r", start, len(text) if nl < 0 else nl)
    if cr >= 0:
        return cr
    return len(text) if nl < 0 else nl


def entry_offsets(text: str) -> list[int]:
    """Where each entry of ``text`` starts (its heading line)."""
    return _structure(text)[0]


def open_fence_at_end(text: str) -> bool:
    """True when ``text`` ends inside a fenced code block (a heading after it would be
    swallowed)."""
    return _structure(text)[1]


def split_lines(text: str) -> list[str]:
    """Split after each line end (``\\n``, ``\\r\\n`` or a lone ``\\r``), keeping it."""
    if "\r" not in text:
        lines = [line + "\n" for line in text.split("\n")]
        last = lines.pop()
        if len(last) > 1:
            lines.append(last[:-1])
        return lines
    out: list[str] = []
    start, n = 0, len(text)
    while start < n:
        end = line_end(text, start)
        out.append(text[start:end])
        start = end
    return out


def line_end(text: str, start: int = 0) -> int:
    """The offset just after the line end of the line at ``start`` (``len(text)`` if none)."""
    nl = text.find("\n", start)
    cr = text.find("\r", start, len(text) if nl < 0 else nl)
    if cr >= 0:
        return cr + 2 if text.startswith("\n", cr + 1) else cr + 1
    return len(text) if nl < 0 else nl + 1


def count_lines(text: str, start: int = 0, end: int | None = None) -> int:
    """How many line ends ``text[start:end]`` holds."""
    chunk = text[start:end]
    if "\r" not in chunk:
        return chunk.count("\n")
    return chunk.count("\n") + chunk.count("\r") - chunk.count("\r\n")


def split_first_line(text: str) -> tuple[str, str, str]:
    """(first line, its line end, the rest), like ``str.partition("\\n")`` for any line end."""
    eol = _eol_at(text)
    if eol == len(text):
        return text, "", ""
    sep = "\r\n" if text.startswith("\r\n", eol) else text[eol]
    return text[:eol], sep, text[eol + len(sep):]


def escape_body(body: str) -> str:
    """Make a body safe to embed: no line of it can start an entry or leave a fence open.

    Lines that would be read as a heading, and fence openers that never close, get a
    leading backslash (Markdown's own escape, so they still read right on GitHub);
    lines that already start with backslashes before such a pattern get one more, which
    keeps :func:`unescape_body` an exact inverse.
    """
    lines = split_lines(body)
    n = len(lines)
    escaped = [_escaped(line) for line in lines]
    # The longest closing fence of each kind at or after each line: an opener with no
    # closer after it is known at once, so the scan stays linear (rescanning the rest of
    # the body after each unclosed opener was quadratic).
    longest = {"`": [0] * (n + 1), "~": [0] * (n + 1)}
    for i in range(n - 1, -1, -1):
        for row in longest.values():
            row[i] = row[i + 1]
        m = None if escaped[i] else fence_parts(lines[i].rstrip("\r\n"))
        if m is not None and not m[1].strip():
            row = longest[m[0][0]]
            row[i] = max(row[i], len(m[0]))
    needs: set[int] = set()
    i = 0
    while i < n:
        line = lines[i]
        if escaped[i]:
            needs.add(i)
            i += 1
            continue
        fence, heading = _step(None, line)
        if heading:
            needs.add(i)
        elif fence is not None:
            if longest[fence[0]][i + 1] < len(fence):
                # It would never close and swallow every entry after this one: escape it;
                # what it enclosed is ordinary text now.
                needs.add(i)
            else:
                i += 1
                while escaped[i] or not closes_fence(fence, lines[i]):
                    if escaped[i]:
                        needs.add(i)
                    i += 1
        i += 1
    return "".join(("\\" + ln if i in needs else ln) for i, ln in enumerate(lines))


def unescape_body(text: str) -> str:
    """Inverse of :func:`escape_body`: drop one backslash where one was added."""
    if "\\" not in text:
        return text
    return "".join(line[1:] if _escaped(line) else line for line in split_lines(text))


def _escaped(line: str) -> bool:
    """Whether ``line`` is backslashes before a heading or a fence marker (one of them was
    added by :func:`escape_body`)."""
    rest = line.lstrip("\\")
    return len(rest) < len(line) and _special_at(rest, 0)


def meta_escape(value: str) -> str:
    return value.translate(_META_UNSAFE)


def _meta_unescape(value: str) -> str:
    if "%" not in value:
        return value
    pieces = value.split("%")
    out = [pieces[0]]
    for piece in pieces[1:]:  # each "%XY" (upper-case hex) is the character XY
        if len(piece) >= 2 and piece[0] in _HEX and piece[1] in _HEX:
            out.append(chr(int(piece[:2], 16)) + piece[2:])
        else:
            out.append("%" + piece)
    return "".join(out)


# A count in committed metadata (``said_again``): plain ASCII digits, at most this many. A
# file is untrusted: `isdigit()` passes "²" (int() refuses it) and int() refuses over 4,300
# digits; either made `list` and a repeated `put` fail with an internal error.
MAX_COUNT_DIGITS = 9


def parse_count(value: str | None) -> int | None:
    """``value`` as a count (1 to MAX_COUNT_DIGITS ASCII digits), None for anything else."""
    if value and len(value) <= MAX_COUNT_DIGITS and value.isascii() and value.isdigit():
        return int(value)
    return None


def is_date(value: str) -> bool:
    """Whether ``value`` is a date as the metadata holds one: ``dddd-dd-dd`` (any decimal
    digits)."""
    return (len(value) == 10 and value[4] == value[7] == "-"
            and (value[:4] + value[5:7] + value[8:]).isdecimal())


def format_meta(pairs: list[tuple[str, str]]) -> str:
    body = "; ".join(f"{k}={v}" for k, v in pairs)
    return f"{META_PREFIX}{body}{META_SUFFIX}"


def parse_meta(line: str) -> list[tuple[str, str]] | None:
    """Key/value pairs of a metadata line, or None if the line is not one."""
    body = _meta_body(line)
    if body is None:
        return None
    pairs: list[tuple[str, str]] = []
    for part in body.split(";"):
        key, sep, value = part.strip().partition("=")
        if sep and key:
            pairs.append((key, value.strip()))
    return pairs


def _meta_body(line: str) -> str | None:
    """What a metadata line holds between its prefix and its suffix (then an optional
    ``\\r``, an optional ``\\n``), with no line feed in it; None if not a metadata line."""
    if not line.startswith(META_PREFIX):
        return None
    # At most one of the endings fits (each ends with another character).
    if line.endswith(META_SUFFIX):
        stop = len(line) - len(META_SUFFIX)
    elif line.endswith(_META_ENDS_1):
        stop = len(line) - len(META_SUFFIX) - 1
    elif line.endswith(_META_END_2):
        stop = len(line) - len(META_SUFFIX) - 2
    else:
        return None
    body = line[len(META_PREFIX):stop]
    return None if stop < len(META_PREFIX) or "\n" in body else body


def _strip_body(region: str, exact: bool) -> str:
    """The body inside an entry's region (what follows the heading and metadata)."""
    if region.startswith("\r\n"):
        region = region[2:]
    elif region.startswith(("\n", "\r")):
        region = region[1:]
    for end in ("\n\n", "\r\n\r\n", "\r\r", "\r\n", "\n", "\r"):
        if region.endswith(end):
            region = region[: -len(end)]
            break
    return unescape_body(region if exact else region.strip("\r\n"))


def derived_id(shard: str, title: str, text: str, nth: int, salt: int = 0) -> str:
    """Deterministic id of an entry written by hand (no metadata yet): from its shard,
    title, text and how many entries before it have that title (``salt`` breaks a clash).

    The text is part of it so that a new note under a recurring title ("Note") never takes
    the id an archived namesake was stamped with.
    """
    seed = f"{shard}\0{title.strip()}\0{nth}\0{text}" + (f"\0{salt}" if salt else "")
    return "h" + _hash.sha256(seed.encode("utf-8", "surrogatepass")).hexdigest()[:7]


def new_id(shard: str, title: str, text: str, date: str, taken: Container[str]) -> str:
    """A short id from the entry's content; deterministic, unique among ``taken``."""
    n = 0
    while True:
        seed = f"{shard}\0{date}\0{title}\0{text}\0{n}".encode()
        candidate = _hash.sha256(seed).hexdigest()[:8]
        if candidate not in taken:
            return candidate
        n += 1


def _parse_entry(shard: str, raw: str, line_no: int) -> Entry:
    """One entry from its raw text; ``id`` is "" when the metadata has none."""
    body_start = line_end(raw)
    title = raw[len(HEADING):body_start].rstrip("\r\n").strip()
    pairs = None
    if raw.startswith(META_PREFIX, body_start):
        end = line_end(raw, body_start)
        pairs = parse_meta(raw[body_start:end])
        if pairs is not None:
            body_start = end
    has_meta = pairs is not None
    text = _strip_body(raw[body_start:], exact=has_meta)
    known: dict[str, str] = {}
    extra: list[tuple[str, str]] = []
    for key, value in pairs or []:
        if key in _KNOWN_KEYS and key not in known:
            known[key] = value
        else:
            extra.append((key, _meta_unescape(value)))
    date = _meta_unescape(known.get("date", "")) or None
    if date is not None and not is_date(date):
        extra.append(("date", date))  # kept, but the entry counts as undated
        date = None
    tags = tuple(t for t in (_meta_unescape(x.strip()) for x in known.get("tags", "").split(","))
                 if t)
    return Entry(
        id=_meta_unescape(known.get("id", "")),
        shard=shard,
        title=title,
        text=text,
        date=date,
        tags=tags,
        supersedes=_meta_unescape(known.get("supersedes", "")) or None,
        meta=tuple(extra),
        line=line_no,
        raw=raw,
        has_meta=has_meta,
    )


def parse_entry(raw: str, shard: str, line: int) -> Entry | None:
    """The one entry ``raw`` holds (an entry's text, as the search index's spans cut it):
    ``parse(raw, shard).entries[0]`` at ``line``, except that an entry without an id keeps
    ``id=""`` (the caller knows the id it was given: a derived id depends on the whole
    shard). None when ``raw`` holds no entry or more than one."""
    heads = _structure(raw)[0]
    if len(heads) != 1:
        return None
    return _parse_entry(shard, raw[heads[0]:], line)


def parse(text: str, name: str = "") -> Shard:
    """Parse a shard. ``parse(t).render() == t`` for every string ``t``."""
    heads = _structure(text)[0]
    if not heads:
        return Shard(name, text, ())
    entries: list[Entry] = []
    line_no = count_lines(text, 0, heads[0]) + 1
    for n, start in enumerate(heads):
        end = heads[n + 1] if n + 1 < len(heads) else len(text)
        raw = text[start:end]
        entries.append(_parse_entry(name, raw, line_no))
        line_no += count_lines(raw)
    _derive_ids(name, entries)
    return Shard(name, text[: heads[0]], tuple(entries))


def _derive_ids(shard: str, entries: list[Entry]) -> None:
    """Give each entry without an id its derived id, never one an entry of the shard
    already carries (a stamped namesake keeps the id it was given)."""
    seen_titles: dict[str, int] = {}
    nths = []
    for e in entries:
        nth = seen_titles.get(e.title, 0)
        seen_titles[e.title] = nth + 1
        nths.append(nth)
    taken = {e.id for e in entries if e.id}
    for i, e in enumerate(entries):
        if e.id:
            continue
        salt = 0
        candidate = derived_id(shard, e.title, e.text, nths[i])
        while candidate in taken:
            salt += 1
            candidate = derived_id(shard, e.title, e.text, nths[i], salt)
        taken.add(candidate)
        entries[i] = replace(e, id=candidate)


def render_entry(entry: Entry, newline: str = "\n") -> str:
    """The raw text of an entry written by lean_memory (ends with a blank line)."""
    pairs: list[tuple[str, str]] = [("id", meta_escape(entry.id))]
    if entry.date:
        pairs.append(("date", entry.date))
    if entry.tags:
        pairs.append(("tags", ", ".join(meta_escape(t) for t in entry.tags)))
    if entry.supersedes:
        pairs.append(("supersedes", meta_escape(entry.supersedes)))
    pairs.extend((k, meta_escape(v)) for k, v in entry.meta)
    return (f"{HEADING}{entry.title}{newline}{format_meta(pairs)}{newline}{newline}"
            f"{escape_body(entry.text)}\n\n")


def stamp(entry: Entry, pairs: list[tuple[str, str]]) -> Entry:
    """The entry (one without metadata) with a metadata line of ``pairs`` (values escaped
    already) under its heading; the rest of its text as it was."""
    head, sep, rest = split_first_line(entry.raw)
    newline = sep or "\n"
    return replace(entry, raw=f"{head}{newline}{format_meta(pairs)}{newline}{rest}",
                   has_meta=True)


def with_raw(entry: Entry) -> Entry:
    """The entry with its raw text regenerated from its fields."""
    return replace(entry, raw=render_entry(entry), has_meta=True)


def ensure_separated(text: str) -> str:
    """Text that a new entry can follow: it ends with a blank line (or is empty)."""
    if not text or text.endswith(("\n\n", "\r\n\r\n", "\r\r")):
        return text
    if text.endswith("\r\n"):
        return text + "\r\n"
    if text.endswith(("\n", "\r")):
        return text + text[-1]
    return text + "\n\n"
