"""MCP can create the memory and propose a rule, and approves nothing (issues 34 and 35).

A client with no command line (Cursor, Claude Desktop) could not start: every tool answered
"run `lean-memory init` first". An agent could propose a rule through the memory tool but
not through MCP. A proposal waits for the person's yes: nothing reaches a memory, and no tool
says yes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import lean_memory
from lean_memory import learn
from lean_memory.layers import global_memory
from lean_memory.mcp_server import TOOLS, Server


def _call(server: Server, name: str, **args: Any) -> dict[str, Any]:
    reply = server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": name, "arguments": args}})
    assert reply is not None
    result: dict[str, Any] = reply["result"]
    return result


def test_a_client_creates_the_memory_it_then_uses(tmp_path: Path) -> None:
    server = Server(lambda: lean_memory.Memory(tmp_path))
    refused = _call(server, "memory_put", shard="quirks", text="tox rebuilds on setup.cfg")
    assert refused["isError"] and "memory_init" in refused["content"][0]["text"]
    made = _call(server, "memory_init")
    assert not made["isError"]
    assert ".agents/memory" in made["structuredContent"]["created"]
    assert (tmp_path / ".agents" / "memory" / "INDEX.md").is_file()
    assert not _call(server, "memory_put", shard="quirks", text="tox rebuilds on setup.cfg")[
        "isError"]
    again = _call(server, "memory_init")  # idempotent: nothing made twice
    assert again["structuredContent"]["created"] == [] and "already" in \
        again["content"][0]["text"]


def test_a_proposed_rule_waits_and_is_written_nowhere(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    g = global_memory(create=True)
    before = {p: p.read_bytes() for p in sorted((*mem.dir.glob("*.md"), *g.dir.glob("*.md")))}
    server = Server(lambda: lean_memory.Memory(tmp_path))
    reply = _call(server, "memory_propose_rule", text="Never push straight to main.",
                  **{"global": True})
    assert not reply["isError"]
    data = reply["structuredContent"]
    assert data["target"] == "global" and "via MCP" in data["origin"]
    assert [p.id for p in learn.waiting(mem)] == [data["id"]]
    assert {p: p.read_bytes() for p in before} == before  # no memory changed
    # the same rule proposed again is still one proposal
    _call(server, "memory_propose_rule", text="Never push straight to main.", **{"global": True})
    assert [p.id for p in learn.waiting(mem)] == [data["id"]]
    assert not any("approve" in t["name"] or "promote" in t["name"] for t in TOOLS)


def test_a_proposed_rule_with_a_credential_is_refused_unseen(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    token = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"  # built here: the file scans clean
    reply = _call(Server(lambda: lean_memory.Memory(tmp_path)), "memory_propose_rule",
                  text=f"Use the token {token} for the registry.")
    assert reply["isError"] and token not in reply["content"][0]["text"]
    assert learn.waiting(mem) == []
