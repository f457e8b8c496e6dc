"""One definition of a code fence (issue 37, ADR 0028): the parser's rules, written out by
hand here, and ``compaction.gist`` and the page (``html.render``) agreeing with the parser.

Before, gist and the page had regexes of their own: ```` ``` x```` closed a fence for gist
but not for the parser, and ```` ```a`b```` opened one for both but not for the parser, so a
gist could quote code as prose and the page show prose as code. Each case below says by
hand which lines are code; none of it is computed with the code under test."""

from __future__ import annotations

import re

import pytest

from lean_memory import format as fmt
from lean_memory.compaction import gist
from lean_memory.html import render

CODE, PROSE = "Code sentence here.", "Prose sentence here."

# (name, lines): CODE stands on a line the parser reads as fenced code, PROSE on one it
# reads as prose.
CASES = [
    # a closing fence has nothing but blanks after its marker
    ("a closer with trailing text does not close", ["```", "``` x", CODE, "```", PROSE]),
    # CommonMark: a backtick fence's info string holds no backtick
    ("a backtick in a backtick opener's info string: not an opener",
     ["```a`b", PROSE, "```", CODE, "```"]),
    ("a backtick in a tilde opener's info string: still an opener",
     ["~~~a`b", CODE, "~~~", PROSE]),
    ("a shorter closer does not close", ["````", "```", CODE, "````", PROSE]),
    ("a tilde does not close a backtick fence", ["```", "~~~", CODE, "```", PROSE]),
    ("a backtick does not close a tilde fence", ["~~~", "```", CODE, "~~~", PROSE]),
    ("a closer with trailing blanks, indented three spaces, closes",
     ["```py", CODE, "   ```  ", PROSE]),
    ("four spaces of indent: not a fence", ["    ```", PROSE]),
]
IDS = [name for name, _ in CASES]


@pytest.mark.parametrize(("name", "lines"), CASES, ids=IDS)
def test_the_parser_reads_code_where_the_case_says(name: str, lines: list[str]) -> None:
    """A ``## `` heading on a CODE line stays inside its entry; on a PROSE line it starts
    one. Catches: any of the parser's fence rules relaxed or tightened."""
    for probe, entries in ((CODE, 1), (PROSE, 2)):
        if probe not in lines:
            continue
        body = "\n".join("## Probe" if line == probe else line for line in lines)
        shard = fmt.parse("## Top\n\n" + body + "\n", "notes")
        assert len(shard.entries) == entries, (name, probe)


def test_the_public_fence_rules_case_by_case() -> None:
    """The two functions compaction and the page call. Catches: a rule changed in them."""
    assert fmt.opens_fence("```") == "```" and fmt.opens_fence("~~~~ py") == "~~~~"
    assert fmt.opens_fence("```a`b") is None and fmt.opens_fence("~~~a`b") == "~~~"
    assert fmt.opens_fence("    ```") is None and fmt.opens_fence("``") is None
    assert fmt.closes_fence("```", "```") and fmt.closes_fence("```", "   `````  ")
    assert not fmt.closes_fence("```", "``` x")
    assert not fmt.closes_fence("````", "```")
    assert not fmt.closes_fence("```", "~~~") and not fmt.closes_fence("~~~", "```")
    assert fmt.closes_fence("```", "```\r\n")


@pytest.mark.parametrize(("name", "lines"), CASES, ids=IDS)
def test_gist_agrees_with_the_parser(name: str, lines: list[str]) -> None:
    """gist skips code: the CODE sentence never, the PROSE sentence always in it. Catches:
    gist's own fence rules back (``` x closing, ```a`b opening)."""
    entry = fmt.Entry("a1", "notes", "Fences", "\n".join(lines))
    said = gist(entry, 500)
    assert PROSE in said, (name, said)
    assert CODE not in said, (name, said)


@pytest.mark.parametrize(("name", "lines"), CASES, ids=IDS)
def test_the_page_agrees_with_the_parser(name: str, lines: list[str]) -> None:
    """The page shows the CODE line in a code block and the PROSE line outside one.
    Catches: the page's own fence rules back."""
    page = render("\n".join(lines))
    code = "".join(re.findall(r"<pre><code>(.*?)</code></pre>", page, re.S))
    outside = re.sub(r"<pre><code>.*?</code></pre>", "", page, flags=re.S)
    if CODE in lines:
        assert CODE in code and CODE not in outside, (name, page)
    assert PROSE in outside and PROSE not in code, (name, page)
