"""The shard merge driver: three-way per entry and per field, with real git merges."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.dedup import add_said_again, main_text, said_again_part
from lean_memory.merge import Merged, Unmergeable, merge_driver, merge_shards, setup_merge_driver

from .conftest import ROOT, git

PRE = "# Failures\n\nWhat broke, why, and the fix that worked.\n\n"
MARKERS = ("<<<<<<<", ">>>>>>>", "=======\n")
# Built at run time so that the repository itself scans clean.
TOKEN = "gh" + "p_" + "Zx8Qw3Lm9Tr2Vb7Nc4Kd1Hs6Fg5Jp0Ya2WeUq"
SECRET_LINE = "GITHUB" + "_TOKEN=" + TOKEN


def mk(i: int | str, text: str | None = None, *, date: str = "2026-01-01",
       title: str | None = None, tags: tuple[str, ...] = (),
       meta: tuple[tuple[str, str], ...] = (),
       said: tuple[tuple[str, str], ...] = ()) -> fmt.Entry:
    e = fmt.Entry(id=f"e{i}", shard="failures", title=title or f"Entry {i}",
                  text=text or f"Body of entry {i}.", date=date, tags=tags, meta=meta)
    for day, phrasing in said:
        e = add_said_again(e, phrasing, day)
    return e


def entry(i: int | str, text: str | None = None, **kw: object) -> str:
    return fmt.render_entry(mk(i, text, **kw))  # type: ignore[arg-type]


def ids(text: str) -> list[str]:
    return [e.id for e in fmt.parse(text, "failures").entries]


def clean(base: str, ours: str, theirs: str) -> str:
    m = merge_shards(base, ours, theirs, "failures")
    assert m.clean, m.conflicts
    assert not any(mk_ in m.text for mk_ in MARKERS)
    return m.text


def only(text: str) -> fmt.Entry:
    entries = fmt.parse(text, "failures").entries
    assert len(entries) == 1, [e.id for e in entries]
    return entries[0]


def outside_markers(text: str) -> str:
    """The text with every conflict block cut out."""
    out, inside, after = [], False, False
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<< "):
            inside = True
        elif line.startswith(">>>>>>> "):
            inside, after = False, True
            continue
        elif not inside and not (after and line == "\n"):  # the blank line after a block
            out.append(line)
        after = False
    return "".join(out)


# -- merge_shards: entries ----------------------------------------------------------------


def test_both_sides_add_keeps_everything_in_order() -> None:
    base = PRE + entry(1) + entry(2)
    ours = base + entry(3) + entry(4)
    theirs = base + entry(5)
    merged = clean(base, ours, theirs)
    assert ids(merged) == ["e1", "e2", "e3", "e4", "e5"]
    assert merged.startswith(PRE)
    assert merged == merge_shards(base, ours, theirs, "failures").text  # deterministic


def test_untouched_entries_keep_their_bytes() -> None:
    hand = "## Hand written\nno metadata here\r\n\r\n"
    base = PRE + entry(1) + hand
    merged = clean(base, base + entry(2), base + entry(3))
    assert merged.startswith(PRE + entry(1) + hand)


def test_one_side_edits_the_other_adds() -> None:
    base = PRE + entry(1) + entry(2)
    ours = PRE + entry(1, "Edited on our side.") + entry(2)
    theirs = base + entry(3)
    merged = fmt.parse(clean(base, ours, theirs), "failures")
    assert [e.text for e in merged.entries] == ["Edited on our side.", "Body of entry 2.",
                                                "Body of entry 3."]


def test_title_on_one_side_body_on_the_other_keeps_both() -> None:
    base = PRE + entry(1)
    ours = PRE + entry(1, title="Retitled by us")
    theirs = PRE + entry(1, "Body corrected by them.")
    e = only(clean(base, ours, theirs))
    assert (e.title, e.text) == ("Retitled by us", "Body corrected by them.")


def test_title_edited_on_both_sides() -> None:
    base = PRE + entry(1) + entry(2)
    same = PRE + entry(1, title="The same new title") + entry(2)
    assert clean(base, same, same) == same
    ours = PRE + entry(1, title="Our title") + entry(2)
    theirs = PRE + entry(1, title="Their title") + entry(2, "Their body of 2.")
    m = merge_shards(base, ours, theirs, "failures")
    assert m.conflicts == ("e1",)
    assert "## Our title" in m.text and "## Their title" in m.text
    # only e1 is between markers; e2 merged (their body edit)
    rest = fmt.parse(outside_markers(m.text), "failures").entries
    assert [(e.id, e.text) for e in rest] == [("e2", "Their body of 2.")]


def test_tags_edited_on_both_sides_merge_as_a_set() -> None:
    base = PRE + entry(1, tags=("old", "keep"))
    ours = PRE + entry(1, tags=("keep", "ci"))  # removed old, added ci
    theirs = PRE + entry(1, tags=("old", "keep", "windows"))  # added windows
    assert only(clean(base, ours, theirs)).tags == ("keep", "ci", "windows")
    assert set(only(clean(base, theirs, ours)).tags) == {"keep", "ci", "windows"}


def test_tag_on_one_side_body_edit_on_the_other() -> None:
    base = PRE + entry(1)
    ours = PRE + entry(1, tags=("ci",))
    theirs = PRE + entry(1, "The body, corrected.")
    e = only(clean(base, ours, theirs))
    assert (e.tags, e.text) == (("ci",), "The body, corrected.")


SAID = (("said_again", "1"), ("last_said", "2026-02-01"))


def test_retitle_against_said_again() -> None:
    base = PRE + entry(1)
    ours = PRE + entry(1, title="Retitled")
    theirs = PRE + entry(1, meta=SAID, said=(("2026-02-01", "Entry one, said again."),))
    e = only(clean(base, ours, theirs))
    assert e.title == "Retitled"
    assert e.meta == SAID
    assert "Entry one, said again." in said_again_part(e.text)
    assert main_text(e.text) == "Body of entry 1."


def test_body_correction_against_said_again_stays_in_the_main_text() -> None:
    base = PRE + entry(1, "Clear the cache with rm -rf .cache.")
    ours = PRE + entry(1, "Clear the cache with make clean, never rm -rf.")
    theirs = PRE + entry(1, "Clear the cache with rm -rf .cache.", meta=SAID,
                         said=(("2026-02-01", "Clear the cache: rm -rf .cache works."),))
    for merged in (clean(base, ours, theirs), clean(base, theirs, ours)):
        e = only(merged)
        assert main_text(e.text) == "Clear the cache with make clean, never rm -rf."
        assert "rm -rf .cache works" in said_again_part(e.text)
        assert "make clean" not in said_again_part(e.text)
        assert e.meta == SAID


def test_said_again_counts_add_up_and_quotes_are_united() -> None:
    q1, q2, q3, q4 = ("Entry one, first repeat.", "Entry one, our repeat.",
                      "Entry one, their repeat.", "Entry one, their second repeat.")
    base = PRE + entry(1, meta=(("said_again", "1"), ("last_said", "2026-02-01")),
                       said=(("2026-02-01", q1),))
    ours = PRE + entry(1, meta=(("said_again", "2"), ("last_said", "2026-03-01")),
                       said=(("2026-02-01", q1), ("2026-03-01", q2)))
    theirs = PRE + entry(1, meta=(("said_again", "3"), ("last_said", "2026-02-15")),
                         said=(("2026-02-01", q1), ("2026-02-10", q3), ("2026-02-15", q4)))
    for merged in (clean(base, ours, theirs), clean(base, theirs, ours)):
        e = only(merged)
        assert dict(e.meta) == {"said_again": "4", "last_said": "2026-03-01"}
        part = said_again_part(e.text)
        assert all(part.count(q) == 1 for q in (q1, q2, q3, q4)), part
        assert main_text(e.text) == "Body of entry 1."
    # one phrasing said again on both sides, on other days: quoted once, the earlier day
    ours = PRE + entry(1, meta=SAID, said=(("2026-02-03", q2),))
    theirs = PRE + entry(1, meta=SAID, said=(("2026-02-01", q2), ("2026-02-02", q3)))
    for merged in (clean(PRE + entry(1), ours, theirs), clean(PRE + entry(1), theirs, ours)):
        part = said_again_part(only(merged).text)
        assert part.count(q2) == 1 and "2026-02-01: " + q2 in part and q3 in part


def test_same_field_changed_on_both_sides_is_a_conflict_for_that_entry_only() -> None:
    base = PRE + entry(1) + entry(2)
    ours = PRE + entry(1, "Our fix: pin the toolchain.") + entry(2) + entry(3)
    theirs = PRE + entry(1, "Their fix: pin it in CI.") + entry(2, tags=("ci",)) + entry(4)
    m = merge_shards(base, ours, theirs, "failures")
    assert not m.clean and m.conflicts == ("e1",)
    assert m.text.count("<<<<<<< ours\n") == 1 and m.text.count(">>>>>>> theirs\n") == 1
    inside = m.text[m.text.index("<<<<<<<"):m.text.index(">>>>>>>")]
    assert "Our fix: pin the toolchain." in inside and "Their fix: pin it in CI." in inside
    rest = fmt.parse(outside_markers(m.text), "failures").entries
    assert [e.id for e in rest] == ["e2", "e3", "e4"] and rest[0].tags == ("ci",)
    # symmetric: the same conflict the other way round
    assert merge_shards(base, theirs, ours, "failures").conflicts == ("e1",)


@pytest.mark.parametrize("field", ["date", "supersedes", "said_again_word"])
def test_metadata_changed_on_both_sides_differently_conflicts(field: str) -> None:
    def version(v: str) -> str:
        if field == "date":
            return PRE + entry(1, date=v)
        if field == "supersedes":
            return PRE + fmt.render_entry(fmt.Entry("e1", "failures", "Entry 1", "Body.",
                                                    "2026-01-01", supersedes=v))
        return PRE + entry(1, meta=(("reviewed", v),))

    base, ours, theirs = (version("2026-01-0" + d) for d in "123")
    m = merge_shards(base, ours, theirs, "failures")
    assert m.conflicts == ("e1",)


def test_hand_written_entry_stamped_on_both_sides_keeps_the_earlier_date() -> None:
    hand = "## Flaky test\nthe network, again\n\n"
    base = PRE + hand
    ours_mem = fmt.parse(base, "failures").entries[0]

    def stamped(date: str, extra: str = "") -> str:
        meta = fmt.format_meta([("id", ours_mem.id), ("date", date)])
        return PRE + hand.replace("\n", "\n" + meta + "\n\n", 1) + extra

    merged = clean(base, stamped("2026-03-01", entry(1)), stamped("2026-02-01", entry(2)))
    assert [(e.id, e.date) for e in fmt.parse(merged).entries] == [
        (ours_mem.id, "2026-02-01"), ("e1", "2026-01-01"), ("e2", "2026-01-01")]


def test_deletion_stands_unless_the_other_side_changed_it() -> None:
    base = PRE + entry(1) + entry(2)
    ours = PRE + entry(2)  # deleted e1 (e.g. compacted away)
    assert ids(clean(base, ours, base)) == ["e2"]
    assert ids(clean(base, base, ours)) == ["e2"]
    theirs = PRE + entry(1, "Changed, with more detail.") + entry(2)
    for m in (merge_shards(base, ours, theirs, "failures"),
              merge_shards(base, theirs, ours, "failures")):
        assert m.conflicts == ("e1",)
        assert "Changed, with more detail." in m.text
        assert ids(outside_markers(m.text)) == ["e2"]


def test_same_id_added_on_both_sides() -> None:
    assert ids(clean(PRE, PRE + entry(7), PRE + entry(7))) == ["e7"]
    m = merge_shards(PRE, PRE + entry(7, "Ours."), PRE + entry(7, "Theirs."), "failures")
    assert m.conflicts == ("e7",) and "Ours." in m.text and "Theirs." in m.text


def test_hand_written_entries_added_on_both_sides_are_both_kept() -> None:
    ours = PRE + "## Flaky test\nours says the network\n"
    theirs = PRE + "## Flaky test\ntheirs says the clock\n"
    merged = fmt.parse(clean(PRE, ours, theirs), "failures").entries
    assert [e.text for e in merged] == ["ours says the network", "theirs says the clock"]


def test_entry_without_final_newline_stays_an_entry() -> None:
    base = PRE + entry(1)
    merged = clean(base, base + "## Last\nno newline at the end", base + entry(2))
    assert [e.title for e in fmt.parse(merged).entries] == ["Entry 1", "Last", "Entry 2"]


def test_preamble_is_three_way() -> None:
    base = PRE + entry(1)
    assert clean(base, "# Ours\n\n" + entry(1), base).startswith("# Ours\n\n")
    assert clean(base, base, "# Theirs\n\n" + entry(1)).startswith("# Theirs\n\n")
    m = merge_shards(base, "# Ours\n\n" + entry(1), "# Theirs\n\n" + entry(1) + entry(2))
    assert m.conflicts == ("preamble",)
    assert "# Ours" in m.text and "# Theirs" in m.text
    assert ids(outside_markers(m.text)) == ["e1", "e2"]


def test_unclosed_fence_that_would_swallow_entries_is_unmergeable() -> None:
    ours = PRE + "## Open fence\n```\nnever closed\n"
    with pytest.raises(Unmergeable):
        merge_shards(PRE, ours, PRE + entry(2), "failures")
    assert isinstance(Unmergeable("x"), lean_memory.LeanMemoryError)


def test_byte_identical_duplicates_count_once() -> None:
    # a crash during compaction left e1 twice in the archive, on every side
    base = PRE + entry(1) + entry(1) + entry(2)
    ours = base + entry(3)
    theirs = PRE + entry(1) + entry(1) + entry(2, tags=("ci",)) + entry(4)
    merged = clean(base, ours, theirs)
    assert ids(merged) == ["e1", "e2", "e3", "e4"]
    # one side repaired the duplicate, the other edited both copies: the edit lands once
    edited = entry(1, "Edited.")
    merged = clean(base, PRE + entry(1) + entry(2), PRE + edited + edited + entry(2))
    assert [(e.id, e.text) for e in fmt.parse(merged).entries] == [("e1", "Edited."),
                                                                   ("e2", "Body of entry 2.")]


def test_different_duplicates_are_matched_by_occurrence() -> None:
    base = PRE + entry(1) + entry(1, "A different copy.") + entry(2)
    merged = clean(base, base + entry(3), base + entry(4))
    assert merged == base + entry(3) + entry(4)
    theirs = PRE + entry(1) + entry(1, "The copy, edited.") + entry(2)
    assert clean(base, base + entry(3), theirs) == theirs + entry(3)


def test_credential_from_theirs_is_withheld() -> None:
    base = PRE + entry(1)
    theirs = base + entry(2, "Deploy with " + SECRET_LINE + " set.")
    m = merge_shards(base, base + entry(3), theirs, "failures")
    assert not m.clean and m.withheld and m.conflicts == ("e2",)
    assert TOKEN not in m.text
    assert ids(outside_markers(m.text)) == ["e1", "e3"]
    # an edit that brings one in: ours' version stays, theirs is withheld
    theirs = PRE + entry(1, "Body of entry 1. " + SECRET_LINE)
    m = merge_shards(base, PRE + entry(1, tags=("ci",)), theirs, "failures")
    assert m.conflicts == ("e1",) and TOKEN not in m.text and "tags=ci" in m.text
    # in a preamble
    m = merge_shards(base, base, PRE + SECRET_LINE + "\n\n" + entry(1), "failures")
    assert m.conflicts == ("preamble",) and TOKEN not in m.text
    # a credential ours already holds is not new
    ours = base + entry(5, "Known: " + SECRET_LINE)
    assert TOKEN in clean(base, ours, base + entry(2, "Also: " + SECRET_LINE))


# -- properties ---------------------------------------------------------------------------

TITLES = ["Entry", "Retitled", "Other title"]
BODIES = ["Clear the cache.", "Use make clean.", "Pin the toolchain.\n\nSecond paragraph."]
TAGS = ["ci", "windows", "cache"]
QUOTES = [("2026-02-01", "Said once more."), ("2026-03-01", "Said yet again, later."),
          ("2026-04-01", "A third phrasing.")]


@st.composite
def versions(draw: st.DrawFn, i: int) -> fmt.Entry:
    said = draw(st.lists(st.sampled_from(QUOTES), unique=True, max_size=2))
    meta: tuple[tuple[str, str], ...] = ()
    if said:
        meta = (("said_again", str(len(said) + draw(st.integers(0, 2)))),
                ("last_said", max(d for d, _ in said)))
    return mk(i, draw(st.sampled_from(BODIES)), title=draw(st.sampled_from(TITLES)),
              tags=tuple(draw(st.lists(st.sampled_from(TAGS), unique=True, max_size=2))),
              date=draw(st.sampled_from(["2026-01-01", "2026-01-02"])), meta=meta,
              said=tuple(sorted(said)))


@st.composite
def shards(draw: st.DrawFn) -> tuple[str, str, str]:
    """Three versions of a shard over a small pool of ids, often sharing versions."""
    out: list[list[str]] = [[], [], []]
    for i in range(5):
        pool = [fmt.render_entry(draw(versions(i))) for _ in range(2)]
        for side in out:
            choice = draw(st.integers(0, 2))
            if choice < 2:
                side.append(pool[choice])
    return PRE + "".join(out[0]), PRE + "".join(out[1]), PRE + "".join(out[2])


def content(m: Merged) -> dict[str, tuple[object, ...]]:
    """Entry content up to order: tags and said-again quotes as sets."""
    from lean_memory.merge import _blocks

    out: dict[str, tuple[object, ...]] = {}
    for e in fmt.parse(outside_markers(m.text), "failures").entries:
        out[e.id] = (e.title, frozenset(e.tags), main_text(e.text),
                     frozenset(_blocks(said_again_part(e.text))), e.date, e.supersedes,
                     frozenset(e.meta))
    return out


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shards())
def test_property_merge_laws(three: tuple[str, str, str]) -> None:
    base, ours, theirs = three
    for x in three:
        same = merge_shards(base, x, x, "failures")
        assert same.clean and same.text == x  # X merged with itself is X
    one_sided = merge_shards(base, ours, base, "failures")
    assert one_sided.clean and one_sided.text == ours  # nothing changed on their side
    ab = merge_shards(base, ours, theirs, "failures")
    ba = merge_shards(base, theirs, ours, "failures")
    assert sorted(ab.conflicts) == sorted(ba.conflicts)
    assert content(ab) == content(ba)  # symmetric in entry content
    assert fmt.parse(ab.text).render() == ab.text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_property_union_loses_nothing(data: st.DataObject) -> None:
    pool = list(range(12))
    base_ids = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=5))
    rest = [i for i in pool if i not in base_ids]
    ours_new = data.draw(st.lists(st.sampled_from(rest), unique=True, max_size=4))
    theirs_new = data.draw(st.lists(st.sampled_from([i for i in rest if i not in ours_new]),
                                    unique=True, max_size=4))
    crlf = data.draw(st.booleans())
    body = data.draw(st.text(st.characters(codec="utf-8"), min_size=1,
                             max_size=40).filter(lambda t: t.strip()))

    def render(i: int) -> str:
        text = entry(i, f"{body} {i}")
        return text.replace("\n", "\r\n") if crlf and i % 2 else text

    base = PRE + "".join(render(i) for i in base_ids)
    ours = base + "".join(render(i) for i in ours_new)
    theirs = base + "".join(render(i) for i in theirs_new)
    merged = merge_shards(base, ours, theirs, "failures")
    assert merged.clean
    assert ids(merged.text) == [f"e{i}" for i in [*base_ids, *ours_new, *theirs_new]]
    assert fmt.parse(merged.text).render() == merged.text


# -- the driver on files ----------------------------------------------------------------


def write3(tmp: Path, base: str | bytes, ours: str | bytes,
           theirs: str | bytes) -> tuple[str, str, str]:
    paths = []
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        p = tmp / name
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        paths.append(str(p))
    return paths[0], paths[1], paths[2]


def test_driver_writes_the_merge_into_ours(tmp_path: Path) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, base + entry(2), base + entry(3))
    assert merge_driver(*o, ".agents/memory/failures.md") == 0
    assert ids(Path(o[1]).read_text()) == ["e1", "e2", "e3"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["base", "ours", "theirs"]


def test_driver_conflict_exits_1_with_markers_and_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, PRE + entry(1, title="Ours") + entry(2),
               PRE + entry(1, title="Theirs"))
    assert merge_driver(*o, ".agents/memory/failures.md") == 1
    text = Path(o[1]).read_text()
    assert "<<<<<<< ours\n" in text and "e2" in ids(outside_markers(text))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "e1" in err


def test_driver_never_writes_or_prints_a_credential_from_theirs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, base + entry(2), base + entry(3, "Use " + SECRET_LINE))
    assert merge_driver(*o, ".agents/memory/failures.md") == 1
    assert TOKEN not in Path(o[1]).read_text()
    err = capsys.readouterr().err
    assert TOKEN not in err and "credential" in err and err.count("\n") == 1
    # the line-level fallback (theirs is not UTF-8) is scanned too
    o = write3(tmp_path, base, base + entry(2),
               (base + entry(3, "Use " + SECRET_LINE)).encode() + b"\xff\n")
    assert merge_driver(*o, ".agents/memory/failures.md") == 1
    assert TOKEN.encode() not in Path(o[1]).read_bytes()
    assert TOKEN not in capsys.readouterr().err


def test_driver_not_utf8_leaves_an_ordinary_conflict(tmp_path: Path) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, (base + entry(2)).encode() + b"\xff\n", base + entry(3))
    assert merge_driver(*o, ".agents/memory/failures.md") == 1
    assert b"<<<<<<<" in Path(o[1]).read_bytes()


def test_driver_keeps_index_clean(tmp_path: Path) -> None:
    o = write3(tmp_path, "# Memory index\nA\n", "# Memory index\nB\n", "# Memory index\nC\n")
    assert merge_driver(*o, ".agents/memory/INDEX.md") == 0
    assert Path(o[1]).read_text() == "# Memory index\nB\n"


KILLED_DRIVER = """
import os, resource, signal, sys
how = sys.argv[1]
if how == "fsize":  # the write itself is killed once the file passes this size
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
elif how == "rename":  # killed just before the rename
    os.replace = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
from lean_memory.cli import main
sys.exit(main(["merge-driver", *sys.argv[3:]]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and RLIMIT_FSIZE are POSIX")
@pytest.mark.parametrize("how", ["fsize", "rename", "none"])
def test_driver_killed_during_its_write_leaves_old_or_new_bytes(tmp_path: Path,
                                                                how: str) -> None:
    base = PRE + "".join(entry(i, f"Fact {i}: " + "words " * 40) for i in range(200))
    ours = base + entry("ours")
    o = write3(tmp_path, base, ours, base + entry("theirs"))
    new = merge_shards(base, ours, base + entry("theirs"), "failures").text.encode()
    old = ours.encode()
    limit = str((len(old) + len(new)) // 2)  # past the old size, short of the new one
    r = subprocess.run([sys.executable, "-c", KILLED_DRIVER, how, limit, *o,
                        ".agents/memory/failures.md"], capture_output=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=tmp_path, check=False)
    got = Path(o[1]).read_bytes()
    if how == "none":
        assert r.returncode == 0 and got == new
    else:
        assert r.returncode < 0, r.stderr  # it was killed
        assert got == old


# -- real git -------------------------------------------------------------------------

pytestmark_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")

FIRST = "The build broke when the cache was stale; clear it."
AGAIN = "The build broke when the cache was stale: clear it!"  # folds (ADR 0014)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "commit.gpgsign", "false")
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("failures", FIRST, date="2026-01-01")
    lines = setup_merge_driver(tmp_path)
    assert any("registered" in ln for ln in lines), lines
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "memory")
    return tmp_path


def add(repo: Path, shard: str, texts: list[str], date: str) -> None:
    mem = lean_memory.Memory(repo)
    for t in texts:
        mem.put_entry(shard, t, date=date)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add to {shard}")


A = ["Alpha: the staging deploy needs VPN access first.",
     "Alpha: pytest must run with -p no:cacheprovider in CI.",
     "Alpha: the docs build uses mkdocs 1.5 exactly."]
B = ["Beta: the database migrations run in a single transaction.",
     "Beta: Windows runners need core.autocrlf false.",
     "Beta: the Redis container listens on port 6380 locally."]


def all_texts(repo: Path) -> list[str]:
    return [e.text for e in lean_memory.Memory(repo).entries()]


def no_markers(repo: Path) -> None:
    for p in (repo / ".agents" / "memory").rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        assert not any(m in text for m in MARKERS), p


def shard_file(repo: Path, name: str = "failures") -> Path:
    return repo / ".agents" / "memory" / f"{name}.md"


def edit(old: str, new: str, name: str = "failures") -> Callable[[Path], None]:
    def run(repo: Path) -> None:
        p = shard_file(repo, name)
        text = p.read_text(encoding="utf-8")
        assert old in text
        p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return run


def say_again(text: str, date: str) -> Callable[[Path], None]:
    def run(repo: Path) -> None:
        lean_memory.Memory(repo).put_entry("failures", text, date=date)
    return run


def diverge(repo: Path, on_a: list[Callable[[Path], None]],
            on_main: list[Callable[[Path], None]]) -> subprocess.CompletedProcess[str]:
    """Apply ``on_a`` on a new branch ``a``, ``on_main`` on main, then merge a into main."""
    git(repo, "checkout", "-q", "-b", "a")
    for step in on_a:
        step(repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "a")
    git(repo, "checkout", "-q", "main")
    for step in on_main:
        step(repo)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "main")
    return git(repo, "merge", "-q", "--no-edit", "a", check=False)


def merged_clean(r: subprocess.CompletedProcess[str], repo: Path) -> fmt.Entry:
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    no_markers(repo)
    entries = lean_memory.Memory(repo).entries("failures")
    assert len(entries) == 1
    return entries[0]


TITLE = "## The build broke when the cache was stale\n"
META = "date=2026-01-01"


@pytestmark_git
def test_real_merge_of_diverging_branches(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "a")
    add(repo, "failures", A, "2026-02-01")
    add(repo, "insights", A[:1], "2026-02-02")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    add(repo, "failures", B, "2026-02-03")
    add(repo, "insights", B[:1], "2026-02-04")
    r = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    no_markers(repo)
    texts = all_texts(repo)
    for t in [*A, *B, *A[:1], *B[:1]]:
        assert t in texts
    assert len(texts) == 1 + len(A) + len(B) + 2
    # no hook was installed unasked, and nothing rewrote the merge commit
    assert not (repo / ".git" / "hooks" / "post-merge").exists()
    assert "lean-memory" not in git(repo, "reflog", "-1").stdout


@pytestmark_git
def test_index_hooks_on_request_leave_index_as_a_change_and_rewrite_no_commit(
        repo: Path) -> None:
    lines = setup_merge_driver(repo, index_hooks=True)
    assert any("post-merge" in ln for ln in lines), lines
    git(repo, "checkout", "-q", "-b", "a")
    add(repo, "failures", A, "2026-02-01")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    add(repo, "insights", B[:1], "2026-02-04")
    r = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Merge made" in git(repo, "reflog", "-1").stdout  # the merge is HEAD, untouched
    assert git(repo, "status", "--porcelain").stdout == " M .agents/memory/INDEX.md\n"
    regenerated = (repo / ".agents" / "memory" / "INDEX.md").read_text(encoding="utf-8")
    assert regenerated == lean_memory.Memory(repo).index()


@pytestmark_git
def test_real_rebase_of_diverging_branches(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "a")
    add(repo, "failures", A[:2], "2026-02-01")
    add(repo, "failures", A[2:], "2026-02-02")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    add(repo, "failures", B[:1], "2026-02-03")
    add(repo, "failures", B[1:], "2026-02-04")
    r = git(repo, "rebase", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    no_markers(repo)
    texts = all_texts(repo)
    assert all(t in texts for t in [*A, *B]) and len(texts) == 1 + len(A) + len(B)
    # ours (a) first, then the rebased commits' entries
    assert texts[-len(B):] == B
    # nothing rewrote the rebased commits
    assert git(repo, "status", "--porcelain").stdout == ""
    assert "lean-memory" not in git(repo, "reflog", "-1").stdout


@pytestmark_git
def test_real_merge_title_on_both_sides(repo: Path) -> None:
    retitle = edit(TITLE, "## Stale cache breaks the build\n")
    r = diverge(repo, [retitle], [retitle, edit("clear it.", "clear it now.")])
    e = merged_clean(r, repo)
    assert (e.title, e.text) == ("Stale cache breaks the build", FIRST.replace("it.", "it now."))


@pytestmark_git
def test_real_merge_two_different_titles_conflict_on_that_entry(repo: Path) -> None:
    r = diverge(repo, [edit(TITLE, "## Title from branch a\n"), say_again(A[0], "2026-02-01")],
                [edit(TITLE, "## Title from main\n")])
    assert r.returncode != 0
    text = shard_file(repo).read_text(encoding="utf-8")
    assert "## Title from branch a" in text and "## Title from main" in text
    assert [e.text for e in fmt.parse(outside_markers(text)).entries] == [A[0]]


@pytestmark_git
def test_real_merge_tags_on_both_sides(repo: Path) -> None:
    r = diverge(repo, [edit(META, META + "; tags=ci")], [edit(META, META + "; tags=cache")])
    assert set(merged_clean(r, repo).tags) == {"ci", "cache"}


@pytestmark_git
def test_real_merge_retitle_against_said_again(repo: Path) -> None:
    r = diverge(repo, [say_again(AGAIN, "2026-02-01")],
                [edit(TITLE, "## Stale cache breaks the build\n")])
    e = merged_clean(r, repo)
    assert e.title == "Stale cache breaks the build"
    assert e.get("said_again") == "1" and AGAIN in said_again_part(e.text)


@pytestmark_git
def test_real_merge_tag_against_body_edit(repo: Path) -> None:
    r = diverge(repo, [edit(META, META + "; tags=ci")], [edit("clear it.", "run make clean.")])
    e = merged_clean(r, repo)
    assert e.tags == ("ci",) and e.text == FIRST.replace("clear it.", "run make clean.")


@pytestmark_git
def test_real_merge_body_correction_against_said_again_stays_searchable(repo: Path) -> None:
    r = diverge(repo, [say_again(AGAIN, "2026-02-01")],
                [edit("clear it.", "run make distclean, never rm.")])
    e = merged_clean(r, repo)
    assert main_text(e.text) == FIRST.replace("clear it.", "run make distclean, never rm.")
    assert AGAIN in said_again_part(e.text)
    hits = lean_memory.Memory(repo).search("distclean")
    assert [h.entry.id for h in hits] == [e.id]


@pytestmark_git
def test_real_merge_said_again_counts_add_up(repo: Path) -> None:
    r = diverge(repo, [say_again(AGAIN, "2026-02-01"), say_again(FIRST, "2026-02-05")],
                [say_again(FIRST, "2026-03-01")])
    e = merged_clean(r, repo)
    assert (e.get("said_again"), e.get("last_said")) == ("3", "2026-03-01")
    assert AGAIN in said_again_part(e.text)


@pytestmark_git
def test_real_merge_same_field_conflict_leaves_markers_for_that_entry(repo: Path) -> None:
    r = diverge(repo, [edit("clear it.", "clear it with make clean."),
                       say_again(A[0], "2026-02-01")],
                [edit("clear it.", "delete .cache by hand."), say_again(B[0], "2026-02-02")])
    assert r.returncode != 0
    text = shard_file(repo).read_text(encoding="utf-8")
    assert "make clean" in text and "delete .cache by hand" in text
    assert text.count("<<<<<<< ") == 1
    rest = [e.text for e in fmt.parse(outside_markers(text)).entries]
    assert rest == [B[0], A[0]]
    assert "UU .agents/memory/failures.md" in git(repo, "status", "--porcelain").stdout


@pytestmark_git
def test_real_merge_credential_from_theirs_is_a_conflict_and_not_written(repo: Path) -> None:
    r = diverge(repo, [edit("clear it.", "clear it. " + SECRET_LINE)],
                [say_again(B[0], "2026-02-02")])
    assert r.returncode != 0
    assert TOKEN not in r.stdout + r.stderr
    assert TOKEN not in shard_file(repo).read_text(encoding="utf-8")
    assert "credential" in r.stdout + r.stderr


@pytestmark_git
def test_real_merge_archive_with_a_duplicate_id(repo: Path) -> None:
    archive = repo / ".agents" / "memory" / "archive" / "failures.md"
    archive.parent.mkdir(exist_ok=True)
    dup = entry(1, "Archived once, written twice by a crash.")
    archive.write_text(PRE + dup + dup, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "archive with a duplicate")

    def append(i: int) -> Callable[[Path], None]:
        def run(repo: Path) -> None:
            archive.write_text(archive.read_text(encoding="utf-8") + entry(i), encoding="utf-8")
        return run

    r = diverge(repo, [append(2)], [append(3)])
    assert r.returncode == 0, r.stdout + r.stderr
    assert ids(archive.read_text(encoding="utf-8")) == ["e1", "e3", "e2"]


def test_setup_is_idempotent_and_keeps_other_attributes(repo: Path) -> None:
    attrs = repo / ".gitattributes"
    attrs.write_text("*.png binary\n" + attrs.read_text(encoding="utf-8"), encoding="utf-8")
    before = attrs.read_text(encoding="utf-8")
    lines = setup_merge_driver(repo)
    assert attrs.read_text(encoding="utf-8") == before
    assert any("already" in ln for ln in lines)
    assert before.count("merge=lean-memory") == 3 and before.startswith("*.png binary\n")
    r = git(repo, "check-attr", "merge", "--", ".agents/memory/failures.md",
            ".agents/memory/archive/failures.md", ".agents/memory/INDEX.md")
    assert r.stdout.count("merge: lean-memory") == 3


def test_setup_outside_git(tmp_path: Path) -> None:
    assert "not a git repository" in setup_merge_driver(tmp_path)[0]


def test_driver_redacts_a_credential_in_the_path_it_reports(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """git's %P comes from the repository: a hostile clone may name a shard after a token."""
    pat = "gh" + "p_" + "".join(chr(ord("a") + (i * 7) % 26) for i in range(36))
    base = PRE + entry(1)
    o = write3(tmp_path, base, PRE + entry(1, title="Ours"), PRE + entry(1, title="Theirs"))
    assert merge_driver(*o, f".agents/memory/{pat}\n.md") == 1
    err = capsys.readouterr().err
    assert pat not in err and "ghp_" in err and err.count("\n") == 1
    o = write3(tmp_path, base, b"\xff" + base.encode(), PRE + entry(2))  # line fallback path
    merge_driver(*o, f"notes/deploy-{pat}.md")
    err = capsys.readouterr().err
    assert pat not in err and err.startswith("lean-memory: notes/deploy-ghp_")
