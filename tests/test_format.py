"""The shard format: lossless round trips, escaping, hand-written entries."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from lean_memory import format as fmt

from .conftest import cpu_seconds

# Text biased towards the characters that matter to the format: headings, fences,
# backslashes, comment markers, CR and LF, plus arbitrary unicode.
_PIECES = ["## ", "\n", "\r\n", "\r", "```", "~~~", "\\", "   ", "#", "<!-- lean-memory: ",
           " -->", "id=x; date=2026-01-01", "`", "~", "title", ";", "=", "%", "\ufeff"]
markdownish = st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=5)),
                       max_size=40).map("".join)


@settings(max_examples=400)
@given(st.one_of(markdownish, st.text()))
@example("## a\n```\n## b\n")
@example("pre\r\n## x\r\n<!-- lean-memory: id=1 -->\r\n\r\nbody")
@example("\ufeff## a\n<!-- lean-memory: id=1 -->\n\nbody\n\n## b\n")
def test_render_parse_is_lossless(text: str) -> None:
    assert fmt.parse(text, "s").render() == text


@settings(max_examples=400)
@given(st.one_of(markdownish, st.text()))
@example("## x\n```\nfoo")
@example("\\## y\n")
@example("```\n## in fence\n```\n## out")
@example("~~~\n```\n## x")
@example("a\r\nb\r\n\r\n")
@example("\n\nlead and trail\n\n\n")
def test_escape_is_inverted_by_unescape(body: str) -> None:
    assert fmt.unescape_body(fmt.escape_body(body)) == body


@settings(max_examples=400)
@given(body=st.one_of(markdownish, st.text()).filter(lambda s: s.strip() != ""),
       title=st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=30)
       .filter(lambda s: s.strip() != ""),
       tags=st.lists(st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1,
                             max_size=8).filter(lambda s: s.strip() == s and s != ""),
                     max_size=3, unique=True))
def test_rendered_entry_parses_back_exactly(body: str, title: str, tags: list[str]) -> None:
    title = " ".join(title.split())
    entry = fmt.Entry(id="abc12345", shard="s", title=title, text=body, date="2026-01-02",
                      tags=tuple(tags), supersedes="x;y", meta=(("said_again", "2"),))
    before = "# Shard\n\nWhat goes here.\n\n## Hand written\nsome text\n"
    text = fmt.ensure_separated(before) + fmt.render_entry(entry) + "## After\nmore\n"
    parsed = fmt.parse(text, "s")
    assert parsed.render() == text
    assert [e.title for e in parsed.entries] == ["Hand written", title, "After"]
    got = parsed.entries[1]
    assert (got.id, got.text, got.date, got.tags, got.supersedes, got.meta) == (
        entry.id, body, entry.date, entry.tags, entry.supersedes, entry.meta)
    assert parsed.entries[0].text == "some text"


def test_hand_written_entries_have_deterministic_ids() -> None:
    text = "# Notes\n\nPreamble line.\n\n## First\n\nA paragraph.\n\n## First\nAgain.\n"
    a = fmt.parse(text, "insights")
    b = fmt.parse(text, "insights")
    assert [e.id for e in a.entries] == [e.id for e in b.entries]
    assert len({e.id for e in a.entries}) == 2
    assert a.preamble == "# Notes\n\nPreamble line.\n\n"
    assert [e.text for e in a.entries] == ["A paragraph.", "Again."]
    assert a.description == "Preamble line."
    # until a write stamps it, a hand-written entry's id follows its text
    edited = fmt.parse(text.replace("A paragraph.", "Another."), "insights")
    assert edited.entries[0].id != a.entries[0].id
    assert edited.entries[1].id == a.entries[1].id


def test_headings_inside_fences_are_not_entries() -> None:
    text = "## Real\n```md\n## not an entry\n```\n~~~~\n## nor this\n~~~~\n## Second\n"
    assert [e.title for e in fmt.parse(text).entries] == ["Real", "Second"]


def test_unknown_metadata_is_kept_and_bad_date_is_not_trusted() -> None:
    text = "## T\n<!-- lean-memory: id=a1; date=yesterday; owner=ci%3Bbot; tags=x%2Cy, z -->\n\nb\n"
    e = fmt.parse(text).entries[0]
    assert e.date is None
    assert e.tags == ("x,y", "z")
    assert e.get("owner") == "ci;bot"
    assert e.get("date") == "yesterday"


def test_metadata_cannot_break_out_of_its_comment() -> None:
    entry = fmt.Entry(id="i", shard="s", title="T", text="b", tags=("a -->", "b;c=d"),
                      meta=(("k", "v\n## x"),))
    raw = fmt.render_entry(entry)
    assert raw.count("\n") == 5 and "-->" in raw.splitlines()[1]
    back = fmt.parse(raw).entries[0]
    assert back.tags == entry.tags and back.meta == entry.meta


def test_new_id_is_deterministic_and_avoids_taken_ids() -> None:
    first = fmt.new_id("s", "t", "x", "2026-01-01", set())
    assert first == fmt.new_id("s", "t", "x", "2026-01-01", set())
    second = fmt.new_id("s", "t", "x", "2026-01-01", {first})
    assert second != first and len(second) == 8


def test_an_explicit_id_is_kept_even_when_it_looks_derived() -> None:
    clash = fmt.derived_id("s", "Note", "c", 2)
    text = ("## Note\n<!-- lean-memory: id=other1 -->\n\na\n\n"
            f"## Note\n<!-- lean-memory: id={clash} -->\n\nb\n\n## Note\nc\n")
    ids = [e.id for e in fmt.parse(text, "s").entries]
    assert ids[:2] == ["other1", clash]  # explicit ids are kept as they are
    assert ids[2] == fmt.derived_id("s", "Note", "c", 2, salt=1)  # and never taken twice


def test_many_unclosed_fences_do_not_recurse() -> None:
    body = "```\n" + "~~~\n" * 5001
    escaped = fmt.escape_body(body)
    assert fmt.unescape_body(escaped) == body
    assert [e.title for e in fmt.parse("## T\n" + escaped + "## N\n").entries] == ["T", "N"]


def test_a_lone_cr_ends_a_line() -> None:
    """Old Mac files: entries are found, and rendering stays byte for byte."""
    text = ("# Quirks\r\rAbout.\r\r## First\r\rbody one\r\r"
            "## Second\r<!-- lean-memory: id=abc12345; date=2026-01-01 -->\r\rbody two\r\r")
    shard = fmt.parse(text, "quirks")
    assert [(e.title, e.text, e.line) for e in shard.entries] == [
        ("First", "body one", 5), ("Second", "body two", 9)]
    assert shard.entries[1].id == "abc12345" and shard.entries[1].date == "2026-01-01"
    assert shard.render() == text
    body = "a\r## not a heading\r~~~never closed\rc"
    assert fmt.parse(fmt.render_entry(fmt.Entry("x1", "q", "T", body)), "q").entries[0].text \
        == body


def test_a_put_into_a_shard_with_cr_line_ends(tmp_path: Path) -> None:
    from lean_memory import Memory

    mem = Memory(tmp_path)
    mem.init()
    path = mem.shard_path("quirks")
    path.write_bytes(b"# Quirks\r\rAbout.\r\r## By hand\r\rwritten on an old mac\r")
    assert [e.title for e in mem.entries("quirks")] == ["By hand"]
    e = mem.put_entry("quirks", "a new fact about the build cache", date="2026-01-01")
    entries = Memory(tmp_path).entries("quirks")
    assert [x.title for x in entries] == ["By hand", e.title]
    assert entries[0].has_meta and entries[0].text == "written on an old mac"
    assert mem.status().entries == 2


def test_escaping_many_fence_lines_is_linear() -> None:
    # Each line opens a fence that never closes; rescanning after each was quadratic
    # (minutes for this size), a single pass takes milliseconds.
    # (the CPU time of this thread, not the wall clock, which load moves)
    for body in ("~~~a\n" * 40_000, "".join("`" * k + "x\n" for k in range(3, 3000))):
        escaped = ""

        def escape(body: str = body) -> None:
            nonlocal escaped
            escaped = fmt.escape_body(body)

        assert cpu_seconds(escape) < 2
        assert fmt.unescape_body(escaped) == body
        assert fmt.entry_offsets(escaped) == [] and not fmt.open_fence_at_end(escaped)


@given(st.text(alphabet="ab\r\n", max_size=40), st.integers(0, 45))
def test_line_end_and_count_lines_agree_with_the_line_end_regex(text: str, start: int) -> None:
    """The str.find versions (ADR 0016, round 2) give what the ``\\r\\n?|\\n`` regex gives."""
    m = re.compile(r"\r\n?|\n").search(text, start)
    assert fmt.line_end(text, start) == (len(text) if m is None else m.end())
    assert fmt.count_lines(text, start) == len(re.findall(r"\r\n?|\n", text[start:]))



@settings(max_examples=400)
@given(st.one_of(markdownish, st.text()))
@example("\ufeff## a\n<!-- lean-memory: id=1 -->\n\nbody\n\n## b\n")
@example("## a\n```\n## b\n```\n## a\n")
def test_one_entry_parses_alone_as_in_its_shard(text: str) -> None:
    """What search reads back by span: each entry's raw text alone gives the entry the
    whole shard gave, but for a derived id (it depends on the whole shard: left ""); the
    preamble, or a text of two entries, gives None."""
    from lean_memory._record import replace

    shard = fmt.parse(text, "s")
    for e in shard.entries:
        alone = fmt.parse_entry(e.raw, "s", e.line)
        assert alone is not None and alone.id in ("", e.id)
        assert replace(alone, id=e.id) == e
    assert fmt.parse_entry(shard.preamble, "s", 1) is None
    if len(shard.entries) >= 2:
        assert fmt.parse_entry(text, "s", 1) is None
