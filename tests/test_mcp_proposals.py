"""Issue 23: MCP lists the rule proposals that wait for the person, and can approve none.
Driven by the official MCP SDK, with HOME and XDG_DATA_HOME in temporary folders. On the
old code no tool listed proposals (``memory_status`` knew shards and tokens only)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import estimate_tokens, learn
from lean_memory.mcp_server import Server

from .conftest import ROOT

MAX_TOOL_TOKENS = 1200
RULE_ASKS = ("always use tabs, not spaces, in the Makefile",
             "please remember: tabs not spaces in the Makefile",
             "in the Makefile use tabs instead of spaces")


def _env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path / "home"),
           "XDG_DATA_HOME": str(tmp_path / "data")}
    env.pop("LEAN_MEMORY_ROOT", None)
    env.pop("LEAN_MEMORY_GLOBAL", None)
    return env


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


def test_memory_status_lists_proposals_and_no_tool_approves(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: proposals invisible over MCP, or a tool call that writes the rule."""
    mcp = pytest.importorskip("mcp", reason="the test extra installs the official MCP SDK")
    anyio = pytest.importorskip("anyio", reason="the MCP SDK (test extra) brings anyio")
    env = _env(tmp_path)
    (tmp_path / "home").mkdir()
    for k in ("HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(k, env[k])
    root = tmp_path / "proj"
    root.mkdir()
    mem = lean_memory.Memory(root)
    mem.init()
    for n, prompt in enumerate(RULE_ASKS):
        learn.record(mem, f"s{n}", prompt, f"2026-01-0{n + 1}T09:00:00Z")
    [wanted] = learn.proposals(mem)
    conventions = mem.dir / "conventions.md"
    before = conventions.read_bytes()
    params = mcp.StdioServerParameters(command=sys.executable, env=env, cwd=str(root),
                                       args=["-m", "lean_memory", "--root", str(root), "mcp"])

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp.Client(params) as client:
            seen["tools"] = (await client.list_tools()).tools
            seen["status"] = await client.call_tool("memory_status", {})
            seen["approve"] = await client.call_tool("memory_status", {"approve": "1"})
            try:
                await client.call_tool("memory_promote", {"n": 1})
                seen["promote"] = "called"
            except Exception as exc:  # an unknown tool is a protocol error
                seen["promote"] = str(exc)
        return seen

    seen = anyio.run(session)
    status = seen["status"]
    assert not status.is_error
    [shown] = status.structured_content["proposals"]
    assert shown["key"] == wanted.key and shown["rule"] == wanted.rule
    assert shown["sessions"] == 3
    assert wanted.rule in _text(status) and "promote" in _text(status)
    assert seen["approve"].is_error and "unknown tool" in seen["promote"]
    names = {t.name for t in seen["tools"]}
    assert not any("promote" in n or "approve" in n for n in names)
    assert conventions.read_bytes() == before
    assert learn.proposals(mem) == [wanted]  # still waiting: nothing said yes or no
    # what a client gives the model of each tool (tests/test_mcp_tools.py: MODEL_SIDE)
    cost = estimate_tokens(json.dumps([t.model_dump(exclude_none=True,
                                                    include={"name", "description",
                                                             "input_schema"})
                                       for t in seen["tools"]]))
    assert cost <= MAX_TOOL_TOKENS, cost


def test_memory_status_without_proposals_says_nothing_of_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: an empty proposals line (noise every status call) or a status that fails
    when the session layer is missing. Needs no SDK: the server is called in process."""
    (tmp_path / "home").mkdir()
    env = _env(tmp_path)
    mem = lean_memory.Memory(tmp_path / "proj")
    (tmp_path / "proj").mkdir()
    mem.init()
    for k in ("HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(k, env[k])
    reply = Server(lambda: lean_memory.Memory(tmp_path / "proj")).handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "memory_status", "arguments": {}}})
    assert reply is not None
    result = reply["result"]
    assert not result["isError"] and result["structuredContent"]["proposals"] == []
    assert "proposal" not in result["content"][0]["text"]


def test_memory_status_text_says_one_entry_not_one_entries(tmp_path: Path) -> None:
    """memory_status's text read "failures: 1 entries" for a shard of one entry."""
    from lean_memory.mcp_server import Server

    (tmp_path / "home").mkdir()
    env = _env(tmp_path)
    (tmp_path / "proj").mkdir()
    mem = lean_memory.Memory(tmp_path / "proj")
    mem.init()
    mem.put_entry("failures", "pytest hangs on Windows: pass -p no:faulthandler")
    old = {k: os.environ.get(k) for k in ("HOME", "XDG_DATA_HOME")}
    os.environ.update({k: env[k] for k in old})
    try:
        reply = Server(lambda: lean_memory.Memory(tmp_path / "proj")).handle(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "memory_status", "arguments": {}}})
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert reply is not None
    text = reply["result"]["content"][0]["text"]
    assert "failures: 1 entry," in text and "seed: 0 entries," in text
