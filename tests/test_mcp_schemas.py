"""Issue 35 item 5: every MCP tool declares the shape of its reply, and every reply has it.

Each tool's ``outputSchema`` names all the fields its ``structuredContent`` carries (arrays
with their ``items``, ``required`` where a field is always there), and a real JSON Schema
validator (``jsonschema``, Draft 2020-12) checks every reply of a session that calls all ten
tools, on a memory that holds a superseded entry, an archived one, a tagged one and a
global-layer note. On main ea4449c three tools had no schema and the others named one or two
fields, so a client could rely on nothing past ``id`` and ``shard``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory.layers import global_memory
from lean_memory.mcp_server import TOOLS, Server
from lean_memory.memory_tool import MemoryToolHandler

jsonschema = pytest.importorskip("jsonschema", reason="the test extra's MCP SDK brings it")


def _schema_fields(schema: dict[str, Any]) -> set[str]:
    return set(schema.get("properties", {}))


def _every_object_declares_its_fields(schema: dict[str, Any], where: str) -> None:
    if schema.get("type") == "object":
        assert schema.get("properties"), f"{where}: an object with no fields"
        assert set(schema.get("required", ())) <= _schema_fields(schema), where
        for name, sub in schema["properties"].items():
            _every_object_declares_its_fields(sub, f"{where}.{name}")
    if schema.get("type") == "array":
        assert "items" in schema, f"{where}: an array with no items"
        _every_object_declares_its_fields(schema["items"], f"{where}[]")


def test_every_tool_declares_an_output_schema_with_its_fields() -> None:
    assert len(TOOLS) == 12
    for tool in TOOLS:
        out = tool.get("outputSchema")
        assert out is not None, tool["name"]
        assert out["required"], tool["name"]  # something a client can rely on
        _every_object_declares_its_fields(out, tool["name"])


def _call(server: Server, name: str, **args: Any) -> dict[str, Any]:
    reply = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": name, "arguments": args}})
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    assert result["isError"] is False, result
    return result


def _walk_keys(value: Any, path: str = "") -> set[str]:
    """Every key path in a JSON value (list items under ``[]``)."""
    out: set[str] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(f"{path}.{k}")
            out |= _walk_keys(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            out |= _walk_keys(v, f"{path}[]")
    return out


def _schema_keys(schema: dict[str, Any], path: str = "") -> set[str]:
    out: set[str] = set()
    for k, sub in schema.get("properties", {}).items():
        out.add(f"{path}.{k}")
        out |= _schema_keys(sub, f"{path}.{k}")
    if "items" in schema:
        out |= _schema_keys(schema["items"], f"{path}[]")
    return out


def test_every_reply_validates_and_declares_every_field_it_carries(tmp_path: Path) -> None:
    """Guards: a reply with a field its schema does not name, or one that breaks the schema
    (a client's validator would reject the call)."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    old = mem.put_entry("quirks", "tox recreates envs when setup.cfg changes", tags=["ci"],
                        date="2026-01-05")
    ci = mem.put_entry("failures", "CI red: the cache key missed poetry.lock", tags=["CI"],
                       date="2026-03-10")
    global_memory(create=True).put_entry("conventions", "Prefer pnpm over npm for tox runs")
    # compaction folds older insights into the archive, where an archive search finds them
    (tmp_path / ".agents" / "config.toml").write_text(
        "[memory]\ntoken_budget = 200\nkeep_recent = 1\n", "utf-8")
    for n, what in enumerate(["flaky sockets", "slow fixtures", "gevent patching"]):
        mem.put_entry("insights", f"Quarantine tests with {what} behind a marker, note {n}",
                      date=f"2026-02-0{n + 1}")
    assert lean_memory.Memory(tmp_path).compact().folded
    # an agent's rule for every project waits as a proposal, which memory_status lists
    MemoryToolHandler(mem).execute({
        "command": "create", "path": "/memories/global/conventions.md",
        "file_text": "# Conventions\n\n## Lint first\nAlways run the linter before a commit.\n"})
    server = Server(lambda: lean_memory.Memory(tmp_path))
    schemas = {t["name"]: t["outputSchema"] for t in TOOLS}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("memory_index", {}), ("memory_get_shard", {"shard": "quirks"}),
        ("memory_search", {"query": "tox envs pnpm"}), ("memory_list", {}),
        ("memory_show", {"id": old.id}),
        ("memory_put", {"shard": "insights", "text": "Bisect flaky tests with seeds",
                        "tags": ["tests"]}),
        ("memory_correct", {"id": old.id, "text": "tox recreates envs on tox.ini changes"}),
        ("memory_edit", {"id": ci.id, "text": "CI red: the cache key missed uv.lock"}),
        ("memory_list", {}),  # now with a superseded entry
        ("memory_forget", {"id": ci.id, "reason": "moved to uv"}),
        ("memory_search", {"query": "quarantine flaky sockets marker", "archive": True}),
        ("memory_status", {}),
        ("memory_init", {}),
        ("memory_propose_rule", {"text": "Run the linter before every commit.",
                                 "title": "Lint first", "global": True}),
    ]
    seen: set[str] = set()
    carried: set[tuple[str, str]] = set()
    for name, args in calls:
        data = _call(server, name, **args)["structuredContent"]
        carried |= {(name, key) for key in _walk_keys(data)}
        jsonschema.validate(data, schemas[name], cls=jsonschema.Draft202012Validator)
        extra = _walk_keys(data) - _schema_keys(schemas[name])
        assert not extra, f"{name} carries undeclared fields {sorted(extra)}"
        seen.add(name)
    assert seen == set(schemas)
    # the session reaches the optional fields it is meant to check
    assert {("memory_search", ".entries[].archived"), ("memory_list", ".entries[].superseded"),
            ("memory_list", ".entries[].tags"), ("memory_correct", ".supersedes"),
            ("memory_show", ".text"), ("memory_status", ".proposals[].origin")} <= carried
