"""Issue 25 item 3: MCP on par with its peers. The official MCP SDK drives the tools an agent
needs to keep memory correct (show, list with filters, edit, forget, correct), every reply
carries ``structuredContent`` (checked by the SDK against each ``outputSchema``), the hints
say what each tool does (``memory_put`` is not idempotent), no reply carries a credential,
and the whole tool list stays within 1,200 tokens. On main 09d408f there were five tools,
no structured output, and ``memory_put`` claimed to be idempotent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import estimate_tokens

from .conftest import ROOT

mcp = pytest.importorskip("mcp", reason="the test extra installs the official MCP SDK")
anyio = pytest.importorskip("anyio")

TOKEN = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"  # built here: this file scans clean
NEW_TOOLS = {"memory_show", "memory_list", "memory_edit", "memory_forget", "memory_correct"}
MAX_TOOL_TOKENS = 1200


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    return env


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def _memory(root: Path) -> dict[str, str]:
    mem = lean_memory.Memory(root)
    mem.init()
    ids = {
        "old": mem.put_entry("quirks", "tox recreates envs when setup.cfg changes",
                             tags=["ci"], date="2026-01-05").id,
        "ci": mem.put_entry("failures", "CI red: the cache key missed poetry.lock",
                            tags=["CI", "cache"], date="2026-03-10").id,
        "late": mem.put_entry("insights", "Bisect flaky tests with pytest-randomly seeds",
                              date="2026-06-01").id,
    }
    quirks = mem.dir / "quirks.md"  # typed by hand: no write-time scan saw it
    quirks.write_text(quirks.read_text("utf-8") + f"\n## Deploy\nthe token is {TOKEN}\n",
                      "utf-8")
    ids["leak"] = next(e.id for e in mem.entries("quirks") if e.title == "Deploy")
    return ids


def test_the_sdk_drives_show_list_edit_correct_forget(tmp_path: Path) -> None:
    ids = _memory(tmp_path)
    params = mcp.StdioServerParameters(command=sys.executable, env=_env(), cwd=str(tmp_path),
                                       args=["-m", "lean_memory", "--root", str(tmp_path),
                                             "mcp"])

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp.Client(params) as client:
            seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}

            async def call(name: str, **args: Any) -> Any:
                result = await client.call_tool(name, args)  # the SDK checks outputSchema
                seen.setdefault("all", []).append(
                    json.dumps([_text(result), result.structured_content]))
                return result

            seen["list"] = await call("memory_list")
            seen["by_tag"] = await call("memory_list", tag="ci")
            seen["by_date"] = await call("memory_list", since="2026-02-01", until="2026-05-31")
            seen["by_shard"] = await call("memory_list", shard="insights")
            seen["bad_date"] = await call("memory_list", since="last week")
            seen["show"] = await call("memory_show", id=ids["ci"])
            seen["show_leak"] = await call("memory_show", id=ids["leak"])
            seen["edit"] = await call("memory_edit", id=ids["ci"],
                                      text="CI red: the cache key missed poetry.lock and "
                                           "the Python version")
            seen["edit_secret"] = await call("memory_edit", id=ids["ci"],
                                             text=f"use {TOKEN}")
            seen["correct"] = await call("memory_correct", id=ids["old"],
                                         text="tox recreates envs when tox.ini changes, "
                                              "not setup.cfg")
            seen["forget"] = await call("memory_forget", id=ids["late"],
                                        reason="pytest-randomly was dropped")
            seen["forget_leak"] = await call("memory_forget", id=ids["leak"],
                                             reason="a credential typed by hand")
            seen["forget_again"] = await call("memory_forget", id=ids["late"], reason="again")
            seen["search"] = await call("memory_search", query="tox envs")
            seen["status"] = await call("memory_status")
            seen["after"] = await call("memory_list")
        return seen

    seen = anyio.run(session)
    assert set(seen["tools"]) >= NEW_TOOLS
    rows = seen["list"].structured_content["entries"]
    assert {r["id"] for r in rows} == set(ids.values())
    assert [r["id"] for r in seen["by_tag"].structured_content["entries"]] == \
        [ids["ci"], ids["old"]]  # tags match whatever their case (shards in config order)
    assert [r["id"] for r in seen["by_date"].structured_content["entries"]] == [ids["ci"]]
    assert [r["id"] for r in seen["by_shard"].structured_content["entries"]] == [ids["late"]]
    assert seen["bad_date"].is_error and "YYYY-MM-DD" in _text(seen["bad_date"])
    show = seen["show"].structured_content
    assert show["id"] == ids["ci"] and show["tags"] == ["CI", "cache"]
    assert "poetry.lock" in show["text"] and "poetry.lock" in _text(seen["show"])
    assert "withheld" in _text(seen["show_leak"])
    assert not seen["edit"].is_error and seen["edit"].structured_content["id"] == ids["ci"]
    assert seen["edit_secret"].is_error and "refused" in _text(seen["edit_secret"])
    fixed = seen["correct"].structured_content
    assert fixed["shard"] == "corrections" and fixed["supersedes"] == ids["old"]
    assert not seen["forget"].is_error and seen["forget_again"].is_error
    assert "archive" in _text(seen["forget_again"])  # says where the entry went
    assert not seen["forget_leak"].is_error
    hits = seen["search"].structured_content["entries"]
    assert hits[0]["id"] == fixed["id"] and "tox.ini" in hits[0]["text"]
    assert seen["status"].structured_content["token_budget"] == 8000
    after = {r["id"]: r for r in seen["after"].structured_content["entries"]}
    assert ids["late"] not in after and ids["leak"] not in after
    assert after[ids["old"]].get("superseded") is True
    assert "and the Python version" in lean_memory.Memory(tmp_path).entries("failures")[0].text
    everything = "\n".join(seen["all"])
    assert TOKEN not in everything and TOKEN[8:] not in everything
    archived = lean_memory.Memory(tmp_path).entries("insights", archive=True)
    assert archived[0].get("reason") == "pytest-randomly was dropped"


def test_hints_say_what_each_tool_does(tmp_path: Path) -> None:
    """``memory_put`` repeated counts a repeat in the file: not idempotent (main said it was)."""
    tools = {t["name"]: t for t in _tools_list(tmp_path)["tools"]}
    hints = {name: {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False,
                    "openWorldHint": True, **t.get("annotations", {})}  # the MCP defaults
             for name, t in tools.items()}
    for name in ("memory_index", "memory_get_shard", "memory_search", "memory_list",
                 "memory_show", "memory_status"):
        assert hints[name]["readOnlyHint"] is True, name
    assert hints["memory_put"]["idempotentHint"] is False
    assert hints["memory_put"]["destructiveHint"] is False
    assert hints["memory_correct"]["destructiveHint"] is False
    for name in ("memory_put", "memory_correct", "memory_edit", "memory_forget"):
        assert hints[name]["readOnlyHint"] is False, name
    for name in ("memory_edit", "memory_forget"):
        assert hints[name]["destructiveHint"] is True and hints[name]["idempotentHint"], name
    assert not any(h["openWorldHint"] for h in hints.values())  # a local folder only
    assert set(tools) >= NEW_TOOLS


def _tools_list(root: Path) -> dict[str, Any]:
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "t", "version": "0"}}}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})]
    proc = subprocess.run([sys.executable, "-m", "lean_memory", "--root", str(root), "mcp"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          env=_env(), timeout=120, check=True)
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    result: dict[str, Any] = replies[1]["result"]
    result["instructions"] = replies[0]["result"]["instructions"]
    return result


MODEL_SIDE = ("name", "description", "inputSchema")  # what a client gives the model per tool
MAX_WIRE_TOKENS = 2600  # twelve tools (init and propose added); growth past it is a decision


def test_the_tool_list_costs_at_most_1200_tokens(tmp_path: Path) -> None:
    """Every client sends the model the definitions with every turn: each tool's name,
    description and input schema (a model's tool definition has no output schema), plus the
    server instructions, stay within 1,200 tokens (main: ~750 for 5 tools). The whole
    tools/list on the wire, output schemas included, is bounded too, so it cannot grow
    unnoticed."""
    listed = _tools_list(tmp_path)
    instructions = listed.pop("instructions")
    model = [{k: t[k] for k in MODEL_SIDE if k in t} for t in listed["tools"]]
    cost = estimate_tokens(json.dumps(model, ensure_ascii=False)) + estimate_tokens(instructions)
    assert {t["name"] for t in listed["tools"]} >= NEW_TOOLS
    assert cost <= MAX_TOOL_TOKENS, cost
    wire = estimate_tokens(json.dumps(listed, ensure_ascii=False)) + estimate_tokens(instructions)
    assert wire <= MAX_WIRE_TOKENS, wire
