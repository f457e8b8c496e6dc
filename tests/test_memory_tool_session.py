"""Issue 25 item 2: the memory tool's natural moves succeed. A scripted session of the
commands as Claude issues them (view, create, str_replace, insert, delete, rename), through
the anthropic SDK's ``BetaAbstractMemoryTool``: each one succeeds, or is refused with a
message that names what to do instead. On main 09d408f, 0 of the session's creates succeeded
(a new file: "memory is kept in the shards"; over a shard: "already exists", also after
``delete``)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory.config import with_shards
from lean_memory.errors import ConfigError
from lean_memory.memory_tool import anthropic_memory_tool

anthropic_tools = pytest.importorskip("anthropic.lib.tools",
                                      reason="the test extra installs the anthropic SDK")
ToolError = anthropic_tools.ToolError

TOKEN = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dcXz"  # built here: this file scans clean
NOTES = ("# Project notes\n\nWhat I learnt about this repository.\n\n"
         "## Test runner\nUse `uv run pytest -x`; plain pytest misses the plugins.\n")
NOTES_V2 = ("# Project notes\n\nWhat I learnt about this repository.\n\n"
            "## Test runner\nUse `uv run pytest -x -q`; plain pytest misses the plugins.\n\n"
            "## Release\nTag with `git tag -s`; CI publishes on tags.\n")

# (command, "ok" or a substring the refusal must hold: what to do instead)
SESSION: list[tuple[dict[str, Any], str]] = [
    ({"command": "view", "path": "/memories"}, "ok"),
    ({"command": "create", "path": "/memories/project_notes.md", "file_text": NOTES}, "ok"),
    ({"command": "view", "path": "/memories/project_notes.md"}, "ok"),
    ({"command": "str_replace", "path": "/memories/project_notes.md",
      "old_str": "pytest -x`", "new_str": "pytest -x -q`"}, "ok"),
    ({"command": "insert", "path": "/memories/project_notes.md", "insert_line": 6,
      "insert_text": "\n## Lint\n`ruff check .` before every commit.\n"}, "ok"),
    ({"command": "create", "path": "/memories/project_notes.md", "file_text": NOTES_V2}, "ok"),
    ({"command": "create", "path": "/memories/progress.md",
      "file_text": "# Progress\n\n- [x] read the code\n- [ ] fix the flaky test\n"}, "ok"),
    ({"command": "rename", "old_path": "/memories/progress.md",
      "new_path": "/memories/progress_log.md"}, "ok"),
    ({"command": "delete", "path": "/memories/progress_log.md"}, "ok"),
    ({"command": "create", "path": "/memories/progress_log.md",
      "file_text": "# Progress\n\n## Flaky test\nFixed by pinning the seed.\n"}, "ok"),
    ({"command": "create", "path": "/memories/quirks.md",
      "file_text": "# Quirks\n\n## tox\ntox recreates envs when setup.cfg changes.\n"}, "ok"),
    ({"command": "delete", "path": "/memories/quirks.md"}, "ok"),
    ({"command": "create", "path": "/memories/quirks.md",
      "file_text": "# Quirks\n\n## make\nmake -j breaks the docs build.\n"}, "ok"),
    ({"command": "view", "path": "/memories/archive"}, "ok"),
    # refused, each with the move that works
    ({"command": "create", "path": "/memories/notes/auth.md", "file_text": "## a\nb\n"},
     "/memories/notes-auth.md"),
    ({"command": "create", "path": "/memories/Auth Notes.txt", "file_text": "## a\nb\n"},
     "/memories/auth-notes.md"),
    ({"command": "create", "path": "/memories/index.md", "file_text": "## a\nb\n"},
     "/memories/index-notes.md"),
    ({"command": "str_replace", "path": "/memories/todo.md", "old_str": "a", "new_str": "b"},
     "create /memories/todo.md"),
    ({"command": "create", "path": "/memories/INDEX.md", "file_text": "x"}, "write a shard"),
    ({"command": "create", "path": "/memories/stripe.md",
      "file_text": f"## Stripe\nthe key is {TOKEN}\n"}, "refused"),
]


def _run(tool: Any) -> list[tuple[dict[str, Any], str, str]]:
    out = []
    for command, want in SESSION:
        try:
            out.append((command, want, "ok:" + str(tool.call(command))))
        except ToolError as exc:
            out.append((command, want, "refused:" + str(exc)))
    return out


def test_a_scripted_session_succeeds_or_says_what_to_do(mem: lean_memory.Memory) -> None:
    results = _run(anthropic_memory_tool(mem))
    creates = [r for c, _, r in results if c["command"] == "create" and _ == "ok"]
    assert sum(r.startswith("ok:") for r in creates) == len(creates) == 6
    for command, want, result in results:
        assert TOKEN not in result and TOKEN[8:] not in result
        if want == "ok":
            assert result.startswith("ok:"), (command, result)
        else:
            assert result.startswith("refused:") and want in result, (command, result)
    # what the session left: real shards, in the config and INDEX.md, found by search
    assert mem.shards[-2:] == ("project_notes", "progress_log")
    assert "progress" not in mem.shards  # renamed, then deleted: a made shard goes
    assert not (mem.dir / "progress.md").exists()
    index = (mem.dir / "INDEX.md").read_text(encoding="utf-8")
    assert "project_notes" in index and "progress_log" in index
    assert [h.entry.title for h in mem.search("release tag signed", k=1)] == ["Release"]
    assert [e.title for e in mem.entries("quirks")] == ["make"]
    assert (mem.dir / "quirks.md").read_text(encoding="utf-8").startswith("# Quirks")
    # nothing the model wrote is lost: what a create replaced or delete removed is archived
    archived = {e.title for s in mem.shards for e in mem.entries(s, archive=True)}
    assert {"Lint", "tox"} <= archived
    progress = mem.read_text(mem.archive_dir / "progress_log.md")
    # free text of a deleted file, kept too (its one-line items made entries, issue 35)
    assert "## [ ] fix the flaky test" in progress
    note = next(r for c, _, r in results if c.get("path") == "/memories/progress.md")
    # free text is made into entries (issue 35), and the model told to view before editing
    assert "stored as 2 entries" in note and "view the file" in note


def test_a_refused_create_writes_nothing(mem: lean_memory.Memory) -> None:
    """A credential, or a bad name, leaves the config and every file as they were."""
    def files() -> dict[str, bytes]:
        return {str(p.relative_to(mem.root)): p.read_bytes()
                for p in sorted(mem.agents_dir.rglob("*"))
                if p.is_file() and ".cache" not in p.parts}

    before = files()
    tool = anthropic_memory_tool(mem)
    for path in ("/memories/stripe.md", "/memories/quirks.md", "/memories/A B.md"):
        with pytest.raises(ToolError):
            tool.call({"command": "create", "path": path,
                       "file_text": f"## Stripe\nthe key is {TOKEN}\n"})
    assert files() == before and "stripe" not in lean_memory.Memory(mem.root).shards


def test_create_keeps_a_hand_written_config(mem: lean_memory.Memory) -> None:
    """config.toml is edited in place (comments and other keys kept), never rewritten."""
    config = mem.agents_dir / "config.toml"
    config.write_text("# tuned by hand\n[memory]\ntoken_budget = 9000  # big repo\n\n"
                      "[secrets]\nallow_rules = []\n", encoding="utf-8")
    fresh = lean_memory.Memory(mem.root)
    anthropic_memory_tool(fresh).call({"command": "create", "path": "/memories/db.md",
                                       "file_text": "## Migrations\nalembic, never by hand\n"})
    text = config.read_text(encoding="utf-8")
    assert "# tuned by hand" in text and "token_budget = 9000  # big repo" in text
    assert lean_memory.Memory(mem.root).shards[-1] == "db"
    assert lean_memory.Memory(mem.root).config.token_budget == 9000


@pytest.mark.parametrize("text", ["memory.shards = ['seed']\n", "[memory]\r\nkeep_recent = 3\r\n",
                                  "[memory]\nshards = [\"seed\", # ]\n]\n"])
def test_a_config_it_cannot_edit_safely_is_left_alone(text: str) -> None:
    with pytest.raises(ConfigError, match=re.escape("by hand")):
        with_shards(text, ("seed", "db"))


def test_with_shards_keeps_everything_else(tmp_path: Path) -> None:
    text = "[memory]  # m\nshards = [\n  \"seed\",\n  \"quirks\",\n] # tail\nkeep_recent = 3\n"
    assert with_shards(text, ("seed", "quirks", "db")) == (
        "[memory]  # m\nshards = [\"seed\", \"quirks\", \"db\"] # tail\nkeep_recent = 3\n")
    assert with_shards("", ("seed",)) == "[memory]\nshards = [\"seed\"]\n"


def test_two_sessions_making_shards_keep_both(mem: lean_memory.Memory) -> None:
    """Each session's Memory caches the config: a shard list read before the lock would
    drop the shard the other session made in between."""
    first = anthropic_memory_tool(lean_memory.Memory(mem.root))
    second_mem = lean_memory.Memory(mem.root)
    assert second_mem.shards  # cached now, before the first session writes
    second = anthropic_memory_tool(second_mem)
    first.call({"command": "create", "path": "/memories/db.md", "file_text": "## a\nb\n"})
    second.call({"command": "create", "path": "/memories/ui.md", "file_text": "## c\nd\n"})
    second.call({"command": "rename", "old_path": "/memories/db.md",
                 "new_path": "/memories/database.md"})
    assert lean_memory.Memory(mem.root).shards[-2:] == ("database", "ui")  # renamed in place


NAMES = ["/memories/notes.md", "/memories/quirks.md", "/memories/todo.md"]
FACTS = [f"## Fact {i}\nthe value of knob {i} is {i * 7}\n" for i in range(6)]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(
    st.tuples(st.just("create"), st.sampled_from(NAMES),
              st.lists(st.sampled_from(FACTS), max_size=3, unique=True)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just([])),
    st.tuples(st.just("rename"), st.sampled_from(NAMES), st.sampled_from(NAMES))),
    min_size=1, max_size=8))
def test_whatever_the_session_does_no_fact_is_lost(
        tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, str, Any]]) -> None:
    """Every fact a create wrote is afterwards live or in the archive, whatever creates,
    deletes and renames follow (each command succeeds or is refused: none crashes)."""
    root = tmp_path_factory.mktemp("session")
    lean_memory.Memory(root).init()
    tool = anthropic_memory_tool(lean_memory.Memory(root))
    written: set[str] = set()
    for verb, path, arg in steps:
        command: dict[str, Any] = {"command": verb, "path": path}
        if verb == "create":
            command["file_text"] = "# Notes\n\n" + "\n".join(arg)
        elif verb == "rename":
            command = {"command": "rename", "old_path": path, "new_path": arg}
        try:
            tool.call(command)
        except ToolError as exc:  # a create of a valid name and clean text always works
            assert verb != "create" and "/memories" in str(exc), str(exc)
        else:
            if verb == "create":
                written |= {fact.split("\n")[1] for fact in arg}
    mem = lean_memory.Memory(root)
    kept = set()
    for path in [*mem.dir.glob("*.md"), *mem.archive_dir.glob("*.md")]:
        kept |= {line for line in path.read_text("utf-8").splitlines()
                 if line.startswith("the value of knob")}
    assert written <= kept
