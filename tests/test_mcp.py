"""`lean-memory mcp` end to end: the official MCP Python SDK as the client over stdio, and raw
malformed input on the same pipe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory.manage import forget

from .conftest import ROOT

try:  # only the first test needs the SDK; the others speak JSON-RPC on the pipe themselves
    import anyio
    import mcp
except ImportError:
    mcp = anyio = None

needs_sdk = pytest.mark.skipif(mcp is None, reason="the official MCP SDK is not installed "
                               "(pip install -e '.[test]' installs it)")

# Built at run time so that this file holds no token for the scanner to find.
TOKEN = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"


def _env() -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    return env


def _params(root: Path) -> Any:
    return mcp.StdioServerParameters(command=sys.executable,
                                     args=["-m", "lean_memory", "--root", str(root), "mcp"],
                                     env=_env(), cwd=str(root))


def _text(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


@needs_sdk
def test_the_official_sdk_drives_every_tool_and_resource(tmp_path: Path) -> None:
    lean_memory.Memory(tmp_path).init()

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with mcp.Client(_params(tmp_path)) as client:
            seen["version"] = client.protocol_version
            seen["instructions"] = client.instructions
            seen["tools"] = {t.name: t for t in (await client.list_tools()).tools}
            put = await client.call_tool("memory_put", {
                "shard": "quirks", "text": "pytest-xdist hides print output; run with -s -p "
                "no:xdist", "tags": ["pytest"]})
            seen["put"] = (put.is_error, _text(put))
            again = await client.call_tool("memory_put", {
                "shard": "quirks", "text": "pytest-xdist hides print output; run with -s -p "
                "no:xdist"})
            seen["again"] = _text(again)
            search = await client.call_tool("memory_search", {"query": "xdist print", "k": 3})
            seen["search"] = (search.is_error, _text(search))
            seen["index"] = _text(await client.call_tool("memory_index", {}))
            seen["shard"] = _text(await client.call_tool("memory_get_shard",
                                                         {"shard": "quirks"}))
            seen["status"] = _text(await client.call_tool("memory_status", {}))
            secret = await client.call_tool("memory_put", {
                "shard": "quirks", "text": f"the deploy token is {TOKEN}"})
            seen["secret"] = (secret.is_error, _text(secret))
            bad_shard = await client.call_tool("memory_put", {"shard": "../etc", "text": "x"})
            seen["bad_shard"] = (bad_shard.is_error, _text(bad_shard))
            wrong_type = await client.call_tool("memory_search", {"query": 42})
            seen["wrong_type"] = (wrong_type.is_error, _text(wrong_type))
            resources = (await client.list_resources()).resources
            seen["resources"] = [str(r.uri) for r in resources]
            read = await client.read_resource("lean-memory://shard/quirks")
            seen["resource_text"] = read.contents[0].text
            seen["resource_mime"] = read.contents[0].mime_type
        return seen

    seen = anyio.run(session)
    assert seen["version"] == "2025-11-25"
    assert "memory_put" in seen["instructions"]
    assert {"memory_index", "memory_get_shard", "memory_search", "memory_put",
            "memory_status"} <= set(seen["tools"])
    for tool in seen["tools"].values():
        assert tool.description and tool.input_schema["type"] == "object"
    assert seen["put"][0] is False and seen["put"][1].startswith("stored: quirks ")
    assert seen["again"].startswith("said again")
    assert seen["search"][0] is False and "pytest-xdist hides print output" in seen["search"][1]
    assert "quirks" in seen["index"] and "pytest-xdist" in seen["shard"]
    assert "total" in seen["status"]
    # a refused secret is a tool error with the redacted reason, never the value
    assert seen["secret"][0] is True and "refused" in seen["secret"][1]
    assert TOKEN not in seen["secret"][1] and TOKEN[8:] not in seen["secret"][1]
    assert seen["bad_shard"][0] is True and "shard" in seen["bad_shard"][1]
    assert seen["wrong_type"][0] is True and "'query'" in seen["wrong_type"][1]
    assert "lean-memory://index" in seen["resources"]
    assert "lean-memory://shard/quirks" in seen["resources"]
    assert "pytest-xdist" in seen["resource_text"] and seen["resource_mime"] == "text/markdown"
    # nothing refused was written
    assert TOKEN not in (tmp_path / ".agents" / "memory" / "quirks.md").read_text("utf-8")


def _raw(root: Path, lines: list[bytes]) -> tuple[list[dict[str, Any]], bytes, int]:
    proc = subprocess.run([sys.executable, "-m", "lean_memory", "--root", str(root), "mcp"],
                          input=b"".join(line + b"\n" for line in lines), capture_output=True,
                          env=_env(), timeout=120, check=False)
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    return replies, proc.stderr, proc.returncode


def _request(msg_id: int, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def test_malformed_input_gets_json_rpc_errors_and_the_server_keeps_serving(
        tmp_path: Path) -> None:
    lean_memory.Memory(tmp_path).init()
    init = _request(1, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                      "clientInfo": {"name": "t", "version": "0"}})
    huge = b'{"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"x": "' + \
        b"a" * (10 * 1024 * 1024) + b'"}}'
    replies, _stderr, code = _raw(tmp_path, [
        init,
        b"{not json",
        b"[]",
        _request(2, "no/such/method"),
        _request(3, "tools/call", {"name": "memory_nope", "arguments": {}}),
        _request(4, "tools/call", {"name": "memory_put", "arguments": {"shard": 5}}),
        _request(5, "resources/read", {"uri": "lean-memory://shard/../../etc/passwd"}),
        huge,
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode(),
        _request(6, "tools/call", {"name": "memory_put", "arguments": "nope"}),
        _request(7, "ping"),
        _request(8, "tools/call", {"name": "memory_" + TOKEN, "arguments": {}}),
    ])
    assert code == 0
    by_id = {r.get("id"): r for r in replies if r.get("id") is not None}
    assert by_id[1]["result"]["protocolVersion"] == "2024-11-05"  # an older version accepted
    anonymous = [r["error"]["code"] for r in replies if r.get("id") is None]
    assert anonymous == [-32700, -32600, -32600]  # bad JSON, a batch, the 10 MB line
    assert by_id[2]["error"]["code"] == -32601
    assert by_id[3]["error"]["code"] == -32602
    assert by_id[4]["result"]["isError"] is True
    assert by_id[5]["error"]["code"] == -32002
    assert by_id[6]["result"]["isError"] is True
    assert by_id[7]["result"] == {}
    assert by_id[8]["error"]["code"] == -32602
    assert TOKEN not in json.dumps(replies)  # a tool name holding a token is not echoed
    assert len(replies) == 11  # the notification got no answer


def test_unknown_protocol_version_gets_our_newest_and_stdout_holds_only_protocol(
        tmp_path: Path) -> None:
    replies, _stderr, code = _raw(tmp_path, [
        _request(1, "initialize", {"protocolVersion": "1999-01-01", "capabilities": {},
                                   "clientInfo": {"name": "t", "version": "0"}}),
        _request(2, "tools/call", {"name": "memory_index", "arguments": {}}),
    ])
    assert code == 0
    assert replies[0]["result"]["protocolVersion"] == "2025-11-25"
    # no memory here: a tool error that says what to do, not a crash
    assert replies[1]["result"]["isError"] is True
    assert "init" in replies[1]["result"]["content"][0]["text"]


def test_search_follows_the_config_and_says_what_it_searched_without(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    old = mem.put_entry("quirks", "Docker builds hang on the corporate VPN", date="2026-01-02")
    forget(mem, old.id, reason="fixed upstream")
    mem.put_entry("quirks", "Docker compose needs the v2 plugin", date="2026-01-03")
    (tmp_path / ".agents" / "config.toml").write_text(
        '[memory]\nretrievers = ["bm25", "nosuchplugin"]\nsearch_archive = false\n', "utf-8")

    def search(arguments: dict[str, Any]) -> str:
        replies, _stderr, code = _raw(tmp_path, [
            _request(1, "initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                                       "clientInfo": {"name": "t", "version": "0"}}),
            _request(2, "tools/call", {"name": "memory_search", "arguments": arguments})])
        assert code == 0
        return str(replies[1]["result"]["content"][0]["text"])

    default = search({"query": "docker builds"})
    assert "Docker compose needs" in default and "corporate VPN" not in default
    assert "note: retriever 'nosuchplugin' is not installed" in default
    assert "corporate VPN" in search({"query": "docker builds", "archive": True})
