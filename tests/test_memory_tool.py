"""Anthropic's memory tool on the store, driven through the official SDK's tool class (no API
call: the SDK turns the tool's input into its command objects, as in a real run)."""

from __future__ import annotations

import os
from typing import Any

import pytest

import lean_memory
from lean_memory.memory_tool import MemoryToolError, MemoryToolHandler, anthropic_memory_tool

try:  # the tests of the SDK's tool class need it; those of the handler alone do not
    from anthropic.lib.tools import ToolError
except ImportError:
    ToolError = None

needs_sdk = pytest.mark.skipif(ToolError is None, reason="the anthropic SDK is not installed "
                               "(pip install -e '.[test]' installs it)")

TOKEN = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dcXz"  # built here: this file scans clean


@pytest.fixture
def tool(mem: lean_memory.Memory) -> Any:
    return anthropic_memory_tool(mem)


def _files(mem: lean_memory.Memory) -> dict[str, bytes]:
    return {p.relative_to(mem.dir).as_posix(): p.read_bytes()
            for p in sorted(mem.dir.rglob("*")) if p.is_file() and ".cache" not in p.parts}


@needs_sdk
def test_view_lists_the_memory_and_numbers_lines(tool: Any, mem: lean_memory.Memory) -> None:
    listing = tool.call({"command": "view", "path": "/memories"})
    assert listing.startswith("Here're the files and directories up to 2 levels deep in "
                              "/memories, excluding hidden items:")
    assert "\t/memories/INDEX.md" in listing and "\t/memories/quirks.md" in listing
    assert ".cache" not in listing and ".gitignore" not in listing
    shown = tool.call({"command": "view", "path": "/memories/quirks.md", "view_range": [1, 2]})
    lines = shown.splitlines()
    assert lines[0] == "Here's the content of /memories/quirks.md with line numbers:"
    assert lines[1] == "     1\t# Quirks" and len(lines) == 3


@needs_sdk
def test_insert_and_str_replace_write_entries_that_search_finds(
        tool: Any, mem: lean_memory.Memory) -> None:
    n = len((mem.dir / "quirks.md").read_text(encoding="utf-8").splitlines())
    tool.call({"command": "insert", "path": "/memories/quirks.md", "insert_line": n,
               "insert_text": "## pip ignores the lock\nuv sync respects uv.lock; pip does not."})
    hits = mem.search("uv lock pip")
    assert hits and hits[0].entry.title == "pip ignores the lock"
    out = tool.call({"command": "str_replace", "path": "/memories/quirks.md",
                     "old_str": "pip does not.", "new_str": "pip install does not."})
    assert "has been edited" in out and "pip install does not." in out
    assert mem.entries("quirks")[0].text.strip().endswith("pip install does not.")
    assert "1 entries" in mem.get_memory() or "1 entry" in mem.get_memory()  # INDEX followed


@needs_sdk
def test_a_credential_refuses_the_whole_command_and_is_never_echoed(
        tool: Any, mem: lean_memory.Memory) -> None:
    before = _files(mem)
    for command in (
        {"command": "insert", "path": "/memories/quirks.md", "insert_line": 0,
         "insert_text": f"## Stripe\nthe key is {TOKEN}"},
        {"command": "str_replace", "path": "/memories/quirks.md", "old_str": "# Quirks",
         "new_str": f"# Quirks {TOKEN}"},
    ):
        with pytest.raises(ToolError) as info:
            tool.call(command)
        assert "refused" in str(info.value) and TOKEN not in str(info.value)
        assert TOKEN[10:] not in str(info.value)
    assert _files(mem) == before


@needs_sdk
def test_only_shards_are_written_and_nothing_is_destroyed(
        tool: Any, mem: lean_memory.Memory) -> None:
    for command, needle in (
        ({"command": "create", "path": "/memories/notes/x.md", "file_text": "x"},
         "/memories/notes-x.md"),
        ({"command": "str_replace", "path": "/memories/INDEX.md", "old_str": "a",
          "new_str": "b"}, "generated"),
        ({"command": "create", "path": "/memories/archive/quirks.md", "file_text": "x"},
         "read-only"),
        ({"command": "rename", "old_path": "/memories/quirks.md",
          "new_path": "/memories/failures.md"}, "already exists"),
        ({"command": "delete", "path": "/memories"}, "itself"),
    ):
        with pytest.raises(ToolError) as info:
            tool.call(command)
        assert needle in str(info.value), command
    mem.put_entry("quirks", "tox recreates envs when setup.cfg changes", date="2026-11-01")
    out = tool.call({"command": "delete", "path": "/memories/quirks.md"})
    assert "moved to /memories/archive/quirks.md" in out
    assert mem.entries("quirks") == []
    assert (mem.dir / "quirks.md").read_text(encoding="utf-8").startswith("# Quirks")
    archived = mem.entries("quirks", archive=True)
    assert [e.text for e in archived] == ["tox recreates envs when setup.cfg changes"]
    # a shard whose file is gone can be created (validated like any write)
    os.unlink(mem.dir / "failures.md")
    tool.call({"command": "create", "path": "/memories/failures.md",
               "file_text": "# Failures\n\n## CI red\nflaky network test\n"})
    assert [e.title for e in mem.entries("failures")] == ["CI red"]


HOSTILE = [
    "/memories/../etc/passwd", "/memories/..\\..\\etc\\passwd", "/memories/%2e%2e%2fetc",
    "/memories/%2e%2e/%2e%2e/etc/passwd", "/memories/%252e%252e%252fetc", "/etc/passwd",
    "memories/quirks.md", "/memoriesX/quirks.md", "/memories//etc/passwd",
    "/memories/./quirks.md", "/memories/quirks.md\x00", "/memories/.cache/lock",
    "/memories/.gitignore", "", "/memories/a/../../x",
]


@needs_sdk
@pytest.mark.parametrize("path", HOSTILE)
def test_hostile_paths_are_refused_before_anything_is_touched(
        tool: Any, mem: lean_memory.Memory, path: str) -> None:
    before = _files(mem)
    for command in ({"command": "view", "path": path},
                    {"command": "create", "path": path, "file_text": "## x\ny\n"},
                    {"command": "delete", "path": path}):
        with pytest.raises(ToolError):
            tool.call(command)
    assert _files(mem) == before


def test_symlinks_are_refused(mem: lean_memory.Memory, tmp_path_factory: Any) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.md"
    outside.write_text("# private\n", encoding="utf-8")
    link = mem.dir / "evil.md"
    link.symlink_to(outside)
    handler = MemoryToolHandler(mem)
    with pytest.raises(MemoryToolError, match="symlink"):
        handler.execute({"command": "view", "path": "/memories/evil.md"})
    os.unlink(mem.dir / "quirks.md")
    (mem.dir / "quirks.md").symlink_to(outside)
    with pytest.raises(MemoryToolError, match="symlink"):
        handler.execute({"command": "str_replace", "path": "/memories/quirks.md",
                         "old_str": "private", "new_str": "public"})
    assert outside.read_text(encoding="utf-8") == "# private\n"
    listing = handler.execute({"command": "view", "path": "/memories"})
    assert "evil.md" not in listing  # links are not listed either


def test_bad_input_is_a_clear_error(mem: lean_memory.Memory) -> None:
    handler = MemoryToolHandler(mem)
    for command in ({"command": "fly"}, {"command": "view"},
                    {"command": "view", "path": "/memories/quirks.md", "view_range": [5, 2]},
                    {"command": "insert", "path": "/memories/quirks.md", "insert_line": 999,
                     "insert_text": "x"},
                    {"command": "str_replace", "path": "/memories/quirks.md", "old_str": "",
                     "new_str": "x"}):
        with pytest.raises(MemoryToolError):
            handler.execute(command)
