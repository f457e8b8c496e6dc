"""The shard format is read with str methods exactly as the regexes read it (issue 24).

A query parses and renders the few entries it shows; with regexes that meant importing ``re``
and compiling eight patterns (~8 ms) for a few lines each. ``lean_memory.format`` now uses
str methods; the regexes it used are kept here as the oracle (as for the tokenizer, ADR 0024):
each helper against its regex, then ``parse`` and ``escape_body`` end to end against the
regex-driven code. Fails on the old code (no such helpers) and on any difference.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import format as fmt

# -- the oracle: the regexes format.py used, and the code that drove them --------------------

_SPECIAL = r"(?:## | {0,3}(?:`{3,}|~{3,}))"
_ESCAPED = re.compile(r"\\+" + _SPECIAL)
_UNESCAPE = re.compile(r"(?:\A|(?<=[\r\n]))\\(?=\\*" + _SPECIAL + ")")
_STRUCTURE = re.compile(r"(?:\n|\r(?!\n))(?=" + _SPECIAL + ")")
_EOL = re.compile(r"\r\n?|\n")
_LINE_SPLIT = re.compile(r"(?<=\n)|(?<=\r)(?!\n)")
_STRUCTURE_AT_0 = re.compile(_SPECIAL)
_PERCENT = re.compile(r"%([0-9A-F]{2})")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_META_LINE = re.compile(r"<!-- lean-memory: (.*) -->\r?\n?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_META_UNSAFE = re.compile(r"[%;=>\r\n,]")


def re_fence_parts(line: str) -> tuple[str, str] | None:
    m = _FENCE.fullmatch(line)
    return None if m is None else (m.group(1), m.group(2))


# The fence state machine as format.py wrote it with _FENCE (before 53d9567 folded it into
# ``fmt._step``): written out here so that no rule of it is shared with the parser.


def re_fence_closes(opener: str, line: str) -> bool:
    m = _FENCE.fullmatch(line.rstrip("\r\n"))
    return bool(m and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener)
                and not m.group(2).strip())


def re_opens_fence(line: str) -> str | None:
    m = _FENCE.fullmatch(line.rstrip("\r\n"))
    if m is None or (m.group(1)[0] == "`" and "`" in m.group(2)):
        return None
    return m.group(1)


def re_step(fence: str | None, line: str) -> tuple[str | None, bool]:
    if fence is not None:
        return (None if re_fence_closes(fence, line) else fence), False
    if line.startswith("## "):
        return None, True
    return re_opens_fence(line), False


def re_fence_after(fence: str | None, line: str) -> str | None:
    return re_step(fence, line)[0]


def re_structure(text: str) -> tuple[list[int], bool]:
    found: list[int] = []
    fence: str | None = None
    starts = [m.end() for m in _STRUCTURE.finditer(text)]
    first = 1 if text.startswith(fmt.BOM) else 0
    if _STRUCTURE_AT_0.match(text, first):
        starts.insert(0, first)
    for start in starts:
        eol = _EOL.search(text, start)
        fence, heading = re_step(fence, text[start:] if eol is None else text[start:eol.start()])
        if heading:
            found.append(start)
    return found, fence is not None


def re_split_lines(text: str) -> list[str]:
    lines = _LINE_SPLIT.split(text)
    if lines and not lines[-1]:
        lines.pop()
    return lines


def re_split_first_line(text: str) -> tuple[str, str, str]:
    m = _EOL.search(text)
    if m is None:
        return text, "", ""
    return text[: m.start()], m.group(), text[m.end():]


def re_unescape_body(text: str) -> str:
    return _UNESCAPE.sub("", text) if "\\" in text else text


def re_meta_escape(value: str) -> str:
    return _META_UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", value)


def re_meta_unescape(value: str) -> str:
    return _PERCENT.sub(lambda m: chr(int(m.group(1), 16)), value)


def re_meta_body(line: str) -> str | None:
    m = _META_LINE.fullmatch(line)
    return None if m is None else m.group(1)


def re_escaped(line: str) -> bool:
    return bool(_ESCAPED.match(line))


def re_is_date(value: str) -> bool:
    return bool(_DATE.fullmatch(value))


_ORACLE = {"fence_parts": re_fence_parts, "_structure": re_structure, "_step": re_step,
           "closes_fence": re_fence_closes, "opens_fence": re_opens_fence,
           "fence_after": re_fence_after,
           "split_lines": re_split_lines, "split_first_line": re_split_first_line,
           "unescape_body": re_unescape_body, "meta_escape": re_meta_escape,
           "_meta_unescape": re_meta_unescape, "_meta_body": re_meta_body,
           "_escaped": re_escaped, "is_date": re_is_date}

# -- texts that reach every branch -------------------------------------------------------------

_CHARS = "#`~ \\\n\r-;=>,%<!aZ09AF\t\ufeff\u0663\u00e9"
_LINES = ["## Title", "### Sub", "#", "## ", "```", "````py", "~~~", "~~~~~", "   ```", "    ```",
          " ~~~ x", "```a`b", "``` x", "````", "~~~`", "```  ", "\\## x", "\\\\```", "\\",
          "<!-- lean-memory: id=a1; date=2026-01-02 -->",
          "<!-- lean-memory: tags=a%2Cb, c; x=%3B%zz -->", "<!-- lean-memory:  -->", "-->", "",
          "text", "2026-01-02", "%41%4", "\ufeff## t"]
_ENDS = ["\n", "\r\n", "\r", "\n\n", "\r\r", ""]

texts = st.text(alphabet=_CHARS, max_size=80)
lines_text = st.lists(st.tuples(st.one_of(st.sampled_from(_LINES), texts),
                                st.sampled_from(_ENDS)), max_size=12).map(
    lambda parts: "".join(line + end for line, end in parts))
any_text = st.one_of(texts, lines_text)
values = st.text(alphabet="%0123456789ABCDEFabcdefg;=>,\r\n -\u0663\u00b2", max_size=30)


@given(any_text)
@settings(max_examples=500, deadline=None)
def test_fence_parts_match_the_fence_regex(text: str) -> None:
    for line in [text, *re_split_lines(text)]:
        for candidate in (line, line.rstrip("\r\n")):
            assert fmt.fence_parts(candidate) == re_fence_parts(candidate)


@given(any_text, st.integers(min_value=0, max_value=90))
@settings(max_examples=500, deadline=None)
def test_special_at_matches_the_regex(text: str, i: int) -> None:
    assert fmt._special_at(text, i) == bool(_STRUCTURE_AT_0.match(text, i))


@given(any_text)
@settings(max_examples=800, deadline=None)
def test_structure_matches_the_regex_scan(text: str) -> None:
    """Catches: the parser's headings or fence state drifting from the old regex code (the
    oracle has its own fence rules: a relaxed ``fmt._step`` is seen, issue 37)."""
    assert fmt._structure(text) == re_structure(text)


@given(any_text)
@settings(max_examples=500, deadline=None)
def test_line_splits_match_the_regexes(text: str) -> None:
    assert fmt.split_lines(text) == re_split_lines(text)
    assert fmt.split_first_line(text) == re_split_first_line(text)


@given(any_text)
@settings(max_examples=500, deadline=None)
def test_escapes_match_the_regexes(text: str) -> None:
    for line in re_split_lines(text):
        assert fmt._escaped(line) == re_escaped(line)
    assert fmt.unescape_body(text) == re_unescape_body(text)


@given(values)
@settings(max_examples=500, deadline=None)
def test_metadata_values_match_the_regexes(value: str) -> None:
    assert fmt.meta_escape(value) == re_meta_escape(value)
    assert fmt._meta_unescape(value) == re_meta_unescape(value)
    assert fmt.is_date(value) == re_is_date(value)


@given(st.one_of(any_text, st.tuples(st.sampled_from(["<!-- lean-memory: ", "<!-- lean-memory:"]),
                                     any_text, st.sampled_from(["", " -->", "-->"]),
                                     st.sampled_from(["", *_ENDS, " -->\n", "\r\r\n"])).map(
    "".join)))
@settings(max_examples=800, deadline=None)
def test_metadata_lines_match_the_regex(line: str) -> None:
    assert fmt._meta_body(line) == re_meta_body(line)


@given(st.sampled_from(["0000-00-00", "2026-01-02", "\u0663\u0663\u0663\u0663-01-02",
                        "2026-1-02", "2026-01-02\n", "2026/01/02", "\u00b2026-01-02"]))
def test_dates_match_the_regex(value: str) -> None:
    assert fmt.is_date(value) == re_is_date(value)


def _parsed(text: str) -> tuple[object, ...]:
    shard = fmt.parse(text, "notes")
    return (shard, shard.preamble, [(e, e.raw, e.has_meta, e.line) for e in shard.entries],
            fmt.escape_body(text), fmt.open_fence_at_end(text), fmt.entry_offsets(text),
            [fmt.render_entry(e) for e in shard.entries])


@given(any_text)
@settings(max_examples=400, deadline=None)
def test_parse_and_render_match_the_regex_code(text: str) -> None:
    ours = _parsed(text)
    with pytest.MonkeyPatch.context() as m:
        for name, oracle in _ORACLE.items():
            m.setattr(fmt, name, oracle)
        theirs = _parsed(text)
    assert ours == theirs
    assert fmt.parse(text).render() == text
    assert fmt.unescape_body(fmt.escape_body(text)) == text


def test_format_compiles_no_regex() -> None:
    """What a query parses and renders needs no ``re``."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(fmt))
    imported = {a.name for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
                for a in node.names} | {node.module for node in ast.walk(tree)
                                        if isinstance(node, ast.ImportFrom) and node.module}
    assert not {"re", "lazy"}.intersection(imported), imported


# -- each fence rule by hand (issue 37): a relaxed rule makes a heading in code an entry ------

_FENCE_CASES = [
    # (what the case is, the text after an entry "## A", the entries' titles, open at the end)
    ("a closer with text after it does not close",
     "```\n``` x\n## in code\n```\n", ["A"], False),
    ("a closer with only spaces after it closes",
     "```\n## in code\n```   \n## B\n", ["A", "B"], False),
    ("a backtick in a backtick opener's info string: not an opener",
     "```a`b\n## B\n", ["A", "B"], False),
    ("a backtick in a tilde opener's info string: still an opener",
     "~~~ a`b\n## in code\n~~~\n## B\n", ["A", "B"], False),
    ("a shorter closer does not close",
     "````\n```\n## in code\n````\n## B\n", ["A", "B"], False),
    ("a longer closer closes",
     "```\n## in code\n`````\n## B\n", ["A", "B"], False),
    ("a tilde line does not close a backtick fence",
     "```\n~~~\n## in code\n```\n", ["A"], False),
    ("a backtick line does not close a tilde fence",
     "~~~\n```\n## in code\n~~~\n", ["A"], False),
    ("a closer indented by three spaces closes, by four it is code",
     "```\n    ```\n## in code\n   ```\n## B\n", ["A", "B"], False),
    ("a fence left open hides every heading after it",
     "~~~~\n~~~\n## in code\n", ["A"], True),
]


@pytest.mark.parametrize(("body", "titles", "open_at_end"),
                         [c[1:] for c in _FENCE_CASES], ids=[c[0] for c in _FENCE_CASES])
def test_each_fence_rule_by_hand(body: str, titles: list[str], open_at_end: bool) -> None:
    """Catches: any fence rule relaxed or tightened (a closer with text, a backtick in a
    backtick opener's info string, a shorter closer, the other fence character closing),
    which turns a `## ` line inside a code block into an entry, or a heading into code."""
    text = "## A\n\n" + body
    assert [e.title for e in fmt.parse(text, "notes").entries] == titles
    assert fmt.open_fence_at_end(text) is open_at_end
    # the oracle agrees (it is written from the old regexes alone)
    assert re_structure(text) == fmt._structure(text)
    assert len(re_structure(text)[0]) == len(titles)
