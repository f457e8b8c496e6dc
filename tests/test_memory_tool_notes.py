"""Issue 35 item 4: whatever Markdown a model writes through the memory tool becomes entries.

A model rarely writes ``## `` entries: it writes a ``#`` title, bullets, ``###`` sections,
several facts in one file. On main ea4449c such a ``notes.md`` was accepted and held 0
entries, so ``get --query`` and the digest never found it. These tests drive the anthropic
SDK's memory-tool class with a model's natural moves and check that every fact is found, and
check :func:`lean_memory.notes.as_entries` on hand-written cases and properties.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.memory_tool import anthropic_memory_tool
from lean_memory.notes import as_entries

anthropic_tools = pytest.importorskip("anthropic.lib.tools",
                                      reason="the test extra installs the anthropic SDK")

NOTES = """# Notes on this repository

- The package manager is pnpm, never npm: run `pnpm install` at the root.
- Run only the core package's tests with `pnpm test -w core`.

### Deploys
- Staging first with `./deploy.sh staging`; production needs an approval in #ops.

### Database
Migrations live in `db/migrations`; create one with `pnpm db:new <name>`.

```sh
## this line is code, not a heading
pnpm db:migrate
```
"""

# (query a person would type, a phrase of the fact that must come back)
FACTS = [
    ("which package manager, pnpm or npm?", "pnpm install"),
    ("run the core package tests only", "pnpm test -w core"),
    ("how do I deploy to staging", "./deploy.sh staging"),
    ("create a database migration", "pnpm db:new"),
    ("the flaky websocket test on macOS", "websocket"),
]


def _tool(mem: lean_memory.Memory) -> Any:
    return anthropic_memory_tool(mem)


def test_a_models_notes_file_becomes_entries_that_search_and_digest_find(
        mem: lean_memory.Memory) -> None:
    tool = _tool(mem)
    reply = tool.call({"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    assert "stored as 4 entries" in reply
    # a later fact appended at the end is an entry of its own, not the tail of the last one
    shown = tool.call({"command": "view", "path": "/memories/notes.md"})
    # the last line a view numbers is the empty one after the final line end (as in the
    # SDK's own file-system tool): "the end" is the number before it
    last = int(shown.rsplit("\n", 1)[-1].split("\t", 1)[0]) - 1
    tool.call({"command": "insert", "path": "/memories/notes.md", "insert_line": last,
               "insert_text": "- The websocket test is flaky on macOS: rerun it once.\n"})
    titles = [e.title for e in mem.entries("notes")]
    assert titles[-1].startswith("The websocket test is flaky")
    assert "Deploys" in titles and "Database" in titles
    # the fenced `## ` line stays code inside the Database entry
    [db] = [e for e in mem.entries("notes") if e.title == "Database"]
    assert "## this line is code" in db.text
    for query, phrase in FACTS:
        hits = mem.search(query, k=3)
        assert any(phrase in h.entry.title + h.entry.text for h in hits), \
            (query, [h.entry.title for h in hits])
        assert phrase in mem.get_memory(query=query, k=3), query


def test_a_str_replace_after_viewing_edits_the_entry(mem: lean_memory.Memory) -> None:
    tool = _tool(mem)
    tool.call({"command": "create", "path": "/memories/notes.md", "file_text": NOTES})
    tool.call({"command": "str_replace", "path": "/memories/notes.md",
               "old_str": "pnpm test -w core", "new_str": "pnpm test --filter core"})
    [hit] = mem.search("run the core package tests", k=1)
    assert "pnpm test --filter core" in hit.entry.title


def test_a_default_shards_title_and_description_stay_its_preamble(
        mem: lean_memory.Memory) -> None:
    """Guards: a shard's own description turned into an entry when a model edits it."""
    tool = _tool(mem)
    before = mem.read_text(mem.dir / "conventions.md")
    tool.call({"command": "create", "path": "/memories/conventions.md",
               "file_text": before + "\n- Never push straight to main.\n"})
    after = mem.read_text(mem.dir / "conventions.md")
    assert after.startswith(before)
    assert [e.title for e in mem.entries("conventions")] == ["Never push straight to main."]


# -- as_entries, by hand --------------------------------------------------------------

def test_text_already_in_entries_is_left_byte_for_byte() -> None:
    text = "# T\n\n## One\nbody\r\n\n## Two\n- a\n- b\n"
    assert as_entries(text) == text


def test_a_lone_paragraph_before_entries_is_the_description() -> None:
    text = "# Notes\n\nWhat I learnt here.\n\n## Tests\nuse tox\n"
    assert as_entries(text) == text


def test_sections_and_items_each_become_one_entry() -> None:
    out = as_entries("# N\n\n- one fact\n  more of it\n2. second\n\nA paragraph\nwrapped.\n"
                     "#### Section\n- x\n- y\n")
    assert [e.title for e in fmt.parse(out, "n").entries] == [
        "one fact", "second", "A paragraph", "Section"]
    section = fmt.parse(out, "n").entries[-1]
    assert section.text.strip() == "- x\n- y"
    assert fmt.parse(out, "n").entries[0].text.strip() == "- one fact\n  more of it"
    assert fmt.parse(out, "n").entries[1].text == ""  # a one-line fact is its heading


def test_a_fence_is_never_split_whatever_it_holds() -> None:
    text = "- run it:\n\n  ```\n### not a section\n\n- not an item\n  ```\n- next\n"
    entries = fmt.parse(as_entries(text), "n").entries
    assert [e.title for e in entries] == ["run it:", "next"]
    assert "### not a section" in entries[0].text and "- not an item" in entries[0].text


# -- as_entries, properties ------------------------------------------------------------

_line = st.sampled_from(["# Title", "## Entry", "### Sec", "- item", "1. item", "text",
                         "  indented", "", "```", "~~~", "```py", "---", "* star"])
_text = st.lists(_line, max_size=25).map(lambda lines: "\n".join(lines) + "\n")


@given(_text)
def test_nothing_is_lost_and_a_second_pass_changes_nothing(text: str) -> None:
    out = as_entries(text)
    assert as_entries(out) == out
    assert fmt.parse(out, "n").render() == out
    markers = {"-", "*", "+", "1."}  # a one-line item's marker is not part of its fact
    for w in set(text.split()) - markers:  # every other word of the notes survives
        assert out.count(w) >= text.count(w) or w.startswith("#"), w


def test_a_file_of_headed_entries_is_not_reported_as_zero_entries(
        mem: lean_memory.Memory) -> None:
    """A model that writes ``## `` headings itself got "its notes were stored as 0 entries"
    (the count was new headings, and stamping adds none), which reads as nothing saved."""
    tool = _tool(mem)
    reply = tool.call({"command": "create", "path": "/memories/progress.md",
                       "file_text": "# Progress\n\n## Task: migrate auth\n"
                                    "Replaced session cookies with JWT.\n"})
    assert "0 entries" not in reply
    assert "view the file before editing it" in reply
    assert [e.title for e in mem.entries("progress")] == ["Task: migrate auth"]
