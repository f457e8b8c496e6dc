"""Said again: the near-duplicate threshold (where it merges, where it stops) and the
"Said again" part of a body (ADR 0005, lean_memory.dedup)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import format as fmt
from lean_memory.dedup import (
    MARKER,
    THRESHOLD,
    add_said_again,
    find_near_duplicate,
    main_text,
    said_again_part,
    similarity,
)


def entry(text: str, id_: str = "e1", **meta: str) -> fmt.Entry:
    return fmt.Entry(id=id_, shard="quirks", title=" ".join(text.split()[:3]) or "t", text=text,
                     meta=tuple(meta.items()))


MERGES = [
    # the same words in another order of clauses, different punctuation and case
    ("The Windows runner fails on CRLF fixtures; set core.autocrlf=false in .gitattributes.",
     "On the Windows runner the CRLF fixtures fail; set core.autocrlf=false in .gitattributes."),
    ("Run the test suite with `pytest -x -q` before pushing, because CI is slow.",
     "Before pushing, run the test suite with `pytest -x -q`: CI is slow."),
    # a word dropped and an inflection changed
    ("Always rebase feature branches on main before opening a pull request.",
     "Rebase feature branches on main before you open a pull request."),
    ("The docs build needs Sphinx 7.2 and fails silently with older versions.",
     "Docs build needs Sphinx 7.2; it fails silently with older versions!"),
]

STOPS = [
    # a number, version, path or identifier differs: a different fact
    ("The staging database listens on port 5432 and needs the VPN.",
     "The staging database listens on port 5433 and needs the VPN."),
    ("The docs build needs Sphinx 7.2 and fails silently with older versions.",
     "The docs build needs Sphinx 7.3 and fails silently with older versions."),
    # one says the opposite
    ("Use poetry for installing the dev dependencies of this project.",
     "Do not use poetry for installing the dev dependencies of this project."),
    ("The cache is safe to delete between runs of the nightly job.",
     "The cache isn't safe to delete between runs of the nightly job."),
    # the same words, roles swapped
    ("The login service calls the billing service on every request.",
     "The billing service calls the login service on every request."),
    # new information added
    ("Flaky test test_upload times out on CI runners",
     "Flaky test test_upload times out on CI runners because the S3 mock is slow"),
    ("Integration tests need the local docker daemon running before pytest starts.",
     "Integration tests need the local docker daemon running before pytest starts, and "
     "about four gigabytes of free memory for the database containers."),
    # too short to judge: only exact duplicates merge
    ("Use uv always", "always use uv"),
    # a real rephrasing, but moved too far: conservative, kept apart
    ("Always rebase feature branches on main before opening a pull request.",
     "Before opening a pull request, always rebase your feature branch onto main."),
]


@pytest.mark.parametrize(("old", "new"), MERGES)
def test_near_duplicates_merge(old: str, new: str) -> None:
    assert similarity(old, new) >= THRESHOLD
    assert find_near_duplicate(new, [entry("Something else entirely, about git hooks.", "x"),
                                     entry(old)]) is not None


@pytest.mark.parametrize(("old", "new"), STOPS)
def test_where_merging_stops(old: str, new: str) -> None:
    assert similarity(old, new) < THRESHOLD
    assert find_near_duplicate(new, [entry(old)]) is None


def test_best_candidate_wins_and_compacted_entries_are_never_matched() -> None:
    old, new = MERGES[2]  # similarity 0.875
    near = entry(old, "near")
    exactish = entry(new.lower(), "twin")
    assert find_near_duplicate(new, [near, exactish]) is exactish
    assert find_near_duplicate(new, [exactish, near]) is exactish
    assert find_near_duplicate(new, [entry(new, "sum", compacted="4")]) is None


def test_said_again_part_is_kept_apart_from_the_main_text() -> None:
    old, new = MERGES[0]
    e = add_said_again(entry(old), new, "2026-03-04")
    assert main_text(e.text) == old
    assert e.text.startswith(old) and MARKER in e.text and "Said again" in e.text
    assert "> 2026-03-04: On the Windows runner" in said_again_part(e.text)
    # said again a second time in other words: both phrasings are kept, in order
    third = "Windows runner: CRLF fixtures fail; set core.autocrlf=false in .gitattributes."
    e2 = add_said_again(e, third, "2026-03-05")
    assert main_text(e2.text) == old
    part = said_again_part(e2.text)
    assert part.index("2026-03-04") < part.index("2026-03-05")
    # a phrasing already kept (case and white space aside) is not quoted twice
    assert add_said_again(e2, "  " + new.upper() + "\n", "2026-04-01") is e2
    assert add_said_again(e2, old, "2026-04-01") is e2
    # the main text still decides similarity: the quotes add nothing to it
    assert similarity(new, e2.text) == similarity(new, old)


def test_quoting_neutralises_structure() -> None:
    nasty = "## looks like a heading\n```\nan unclosed fence\n" + MARKER + "\n"
    e = add_said_again(entry("Body.\r\nSecond line\r\n"), nasty, "2026-01-01")
    assert main_text(e.text) == "Body.\r\nSecond line\r\n"
    assert "> 2026-01-01: ## looks like a heading\r\n> ```\r\n> an unclosed" in e.text
    back = fmt.parse("# P\n\n" + fmt.render_entry(e), "quirks").entries
    assert len(back) == 1 and back[0].text == e.text


@settings(max_examples=300)
@given(body=st.text(min_size=1), phrasing=st.text(min_size=1),
       date=st.sampled_from(["2026-01-01", ""]))
def test_main_text_gives_back_the_body(body: str, phrasing: str, date: str) -> None:
    if MARKER in body:
        return  # a body that quotes the marker itself is the one documented exception
    e = add_said_again(entry(body), phrasing, date)
    assert main_text(e.text) == body
    assert main_text(body) == body
    twice = add_said_again(e, phrasing + " and more", date)
    assert main_text(twice.text) == body


# -- through the store ------------------------------------------------------------------------


def test_put_near_duplicate_records_said_again(mem: Memory) -> None:
    old, new = MERGES[1]
    first = mem.put_entry("conventions", old, date="2026-01-01")
    again = mem.put_entry("conventions", new, date="2026-02-01")
    assert again.id == first.id
    (stored,) = mem.entries("conventions")
    assert main_text(stored.text) == old
    assert "> 2026-02-01: Before pushing" in stored.text
    assert stored.get("said_again") == "1" and stored.get("last_said") == "2026-02-01"
    # said once more, exactly as the first time: counted, not quoted
    mem.put_entry("conventions", old.upper(), date="2026-03-01")
    (stored,) = mem.entries("conventions")
    assert stored.get("said_again") == "2" and stored.text.count("> 20") == 1


def test_put_where_merging_stops_adds_an_entry(mem: Memory) -> None:
    old, new = STOPS[0]
    a = mem.put_entry("quirks", old, date="2026-01-01")
    b = mem.put_entry("quirks", new, date="2026-01-02")
    assert a.id != b.id and len(mem.entries("quirks")) == 2


def test_put_new_forces_a_separate_entry(mem: Memory) -> None:
    old, new = MERGES[0]
    a = mem.put_entry("quirks", old, date="2026-01-01")
    b = mem.put_entry("quirks", new, date="2026-01-02", new=True)
    assert a.id != b.id and len(mem.entries("quirks")) == 2


def test_search_ignores_the_said_again_part(tmp_path: Path, mem: Memory) -> None:
    old, new = MERGES[0]
    mem.put_entry("quirks", old, date="2026-01-01")
    mem.put_entry("quirks", new, date="2026-01-02")
    hits = mem.search("Windows runner CRLF", k=3)
    assert len(hits) == 1
    assert "Said again" not in mem.get_memory(query="Windows runner CRLF")
