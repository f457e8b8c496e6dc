"""One entry point over the layers (issue 35, ADR 0034): every client gives what the agent
gets, with a global store present.

The same prompts go through the Python API, the CLI (``get --query --json``,
``get --digest``, ``context --json``), the real prompt hook command, MCP (the server's own
call path, in process) and the page (HTTP to a server on loopback); the ranking, the
injected block and the context sheet must be identical everywhere. Real processes run with
HOME and XDG_DATA_HOME in temporary folders."""

from __future__ import annotations

import html
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import learn, recall, recall_sheet
from lean_memory.commands.serve import page_proposals
from lean_memory.layers import GLOBAL, OVERRIDES, PROJECT, SESSION, global_memory
from lean_memory.mcp_server import Server
from lean_memory.serve import App

from .conftest import ROOT
from .test_serve import _served_app, request

PROMPTS = ["how do I deploy the service", "install the dependencies with pip",
           "the proxy blocks the port", "why does the upload time out on big files",
           "jenkins deploy pipeline", "run the linter before a commit"]


def cli(root: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=root, input=stdin,
                       capture_output=True, env=env, timeout=120, check=False)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout.decode("utf-8")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A global rule, a global note, a global entry the project corrects, project entries
    and two asks of session ``s1``."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    g = global_memory(create=True)
    g.put_entry("conventions", "Use uv to install dependencies, never pip.",
                title="uv, never pip", date="2026-01-02")
    g.put_entry("quirks", "The corporate proxy blocks port 8443; use port 443 instead.",
                title="Proxy blocks 8443", date="2026-01-03")
    old = g.put_entry("insights", "We deploy the service through the Jenkins pipeline.",
                      title="Deploys go through Jenkins", date="2026-01-04")
    mem = lean_memory.Memory(tmp_path / "proj")
    mem.init()
    mem.put_entry("conventions", "Run the linter (ruff) before every commit.",
                  title="Lint before committing", date="2026-01-05")
    fix = mem.put_entry("corrections", "We deploy the service with GitHub Actions now, "
                        "not Jenkins.", title="Deploys go through GitHub Actions",
                        tags=[OVERRIDES + old.id], date="2026-02-01")
    mem.put_entry("failures", "The upload timed out on big files: raise the client timeout "
                  "to 60 s.", title="Upload timeout on big files", date="2026-02-02")
    mem.put_entry("insights", "The service reads its port from PORT; the proxy in front "
                  "forwards 443.", title="Service port", date="2026-02-03")
    learn.record(mem, "s1", "how do I deploy to staging", "2026-02-04T10:00:00Z")
    learn.record(mem, "s1", "the upload of big files times out", "2026-02-04T10:05:00Z")
    return {"mem": mem, "g": g, "hidden": old.id, "fix": fix.id, "root": tmp_path / "proj"}


@pytest.fixture
def page(world: dict[str, Any]) -> Iterator[App]:
    mem = world["mem"]
    app = App([("project", mem), ("global", world["g"])], proposals=page_proposals(mem))
    yield from _served_app(app)


class _Page(HTMLParser):
    """The page's search hits (layer, id) in order, its <pre> blocks and table rows."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hits: list[tuple[str, str]] = []
        self.pres: list[str] = []
        self.rows: list[list[str]] = []
        self.row_links: list[str] = []
        self._in: list[str] = []
        self._h3 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in.append(tag)
        href = dict(attrs).get("href") or ""
        if tag == "h3":
            self._h3 = True
        if tag == "a" and self._h3 and href.startswith("/entry/"):
            _, _, layer, entry_id = href.split("/")
            self.hits.append((layer, entry_id))
        if tag == "pre":
            self.pres.append("")
        if tag == "tr":
            self.rows.append([])
            self.row_links.append("")
        if tag == "td":
            self.rows[-1].append("")
        if tag == "a" and "td" in self._in and href.startswith("/entry/"):
            self.row_links[-1] = href.split("/")[-1]

    def handle_endtag(self, tag: str) -> None:
        if tag == "h3":
            self._h3 = False
        while self._in and self._in.pop() != tag:
            pass

    def handle_data(self, data: str) -> None:
        if self._in and self._in[-1] == "pre":
            self.pres[-1] += data
        elif "td" in self._in:
            self.rows[-1][-1] += data


def parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    p.close()
    return p


def _hook(root: Path, event: str, prompt: str, session: str) -> str:
    """The real hook command's additionalContext. A prompt is sent without a session id:
    in a session, pay once (ADR 0030) leaves out what that session was already shown; the
    block every client shows is the one before a prompt with no such record."""
    payload = {"cwd": str(root), "hook_event_name": event, "source": "startup",
               "prompt": prompt, **({"session_id": session} if event == "SessionStart" else {})}
    name = "user-prompt-submit" if event == "UserPromptSubmit" else "session-start"
    out = cli(root, "hook", name, stdin=json.dumps(payload).encode())
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def _mcp(mem: lean_memory.Memory, query: str, k: int) -> list[tuple[str, str]]:
    reply = Server(lambda: lean_memory.Memory(mem.root)).handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "memory_search", "arguments": {"query": query, "k": k}}})
    assert reply is not None and not reply["result"].get("isError"), reply
    return [(h["layer"], h["id"]) for h in reply["result"]["structuredContent"]["entries"]]


def test_every_client_gets_what_the_agent_gets(world: dict[str, Any], page: App) -> None:
    """Catches two ways into search and digest (issue 35): a client that searches the
    project alone, a page whose block or ranking differs from the hook's and
    ``get --query``'s, a context sheet that is not ``context --json``."""
    mem, root = world["mem"], world["root"]
    for n, prompt in enumerate(PROMPTS):
        # the ranking: Python API, CLI, MCP, page (-k 10, as the page ranks)
        api = [(h.layer, h.entry.id) for h in mem.search(prompt, k=10)]
        got = json.loads(cli(root, "get", "--query", prompt, "--json", "-k", "10"))
        assert api == [(h["layer"], h["id"]) for h in got], prompt
        assert api == _mcp(mem, prompt, 10), prompt
        shown = parse(request(page, f"/search?q={prompt.replace(' ', '+')}")[2])
        assert api == shown.hits, prompt
        assert api and {layer for layer, _ in api} <= {GLOBAL, PROJECT}
        # ... and with this session's asks, the API as `get --query --session`
        api = [(h.layer, h.entry.id) for h in mem.search(prompt, session="s1")]
        got = json.loads(cli(root, "get", "--query", prompt, "--json", "--session", "s1"))
        assert api == [(h["layer"], h["id"]) for h in got], prompt
        # the block: the real hook's additionalContext, the API, `get --digest`, the page
        block = _hook(root, "UserPromptSubmit", prompt, f"hook-{n}")
        assert block.strip(), prompt
        assert mem.digest(prompt) == block, prompt
        assert cli(root, "get", "--digest", prompt) == block, prompt
        assert shown.pres == [block], prompt
        # the context sheet: `context --json` and the page's table, row by row
        rows = json.loads(cli(root, "context", prompt, "--json"))
        assert rows == recall_sheet.sheet(mem, recall_sheet.context(mem, prompt, 1200), 1200)
        table = parse(request(page, f"/context?q={prompt.replace(' ', '+')}")[2])
        cells = [(int(r[0].replace(",", "")), r[1], r[2], r[3], link)
                 for r, link in zip(table.rows, table.row_links, strict=True) if len(r) == 5]
        assert cells == [(r["tokens"], r["when"], r["layer"], r["block"], r["id"])
                         for r in rows], prompt
        assert {r["budget"] for r in rows} == {1200}
        assert table.pres[1] == block, prompt
    # the session-start block: the hook's and the page's
    start = _hook(root, "SessionStart", "", "hook-start")
    assert parse(request(page, "/context")[2]).pres[0] == start


def test_a_project_correction_hides_the_global_entry_everywhere(world: dict[str, Any],
                                                                page: App) -> None:
    """Catches a project entry correcting a global one (``supersedes-global:``) that the
    global entry still shows through in one client (a one-line change broke it silently)."""
    mem, root, hidden, fix = world["mem"], world["root"], world["hidden"], world["fix"]
    prompt = "jenkins deploy pipeline"
    everything = [
        json.dumps([h.entry.id for h in mem.search(prompt, k=10)]),
        mem.get_memory(query=prompt, k=10),
        cli(root, "get", "--query", prompt, "--json", "-k", "10"),
        cli(root, "get", "--query", prompt, "-k", "10"),
        mem.digest(prompt),
        _hook(root, "UserPromptSubmit", prompt, "hide"),
        cli(root, "context", prompt, "--json"),
        json.dumps(_mcp(mem, prompt, 10)),
        request(page, "/search?q=jenkins+deploy+pipeline")[2],
        request(page, "/context?q=jenkins+deploy+pipeline")[2],
    ]
    assert fix in everything[0] and fix in everything[2]
    for said in everything:  # its id is named only by the correction's tag
        text = html.unescape(said)
        assert "Deploys go through Jenkins" not in text and "the Jenkins pipeline" not in text
    for ids in ([h.entry.id for h in mem.search(prompt, k=10)], _mcp(mem, prompt, 10),
                [h["id"] for h in json.loads(everything[2])]):
        assert hidden not in str(ids)
    # the global store itself still holds it (a project never edits the global store)
    assert any(e.id == hidden for e in world["g"].entries("insights"))
    assert hidden in cli(root, "get", "--global", "--query", prompt, "--json")


def test_ties_go_global_then_project_then_session(world: dict[str, Any]) -> None:
    """Catches a merge that orders equal ranks by anything but the layer: each layer's
    best hit for a query, global first, then project, then the session's ask."""
    mem = world["mem"]
    word = "zeppelin"
    world["g"].put_entry("quirks", f"The {word} mirror is slow on Mondays.")
    mem.put_entry("quirks", f"Our {word} cache lives in /var/cache.")
    learn.record(mem, "s2", f"where is the {word} config", "2026-02-05T10:00:00Z")
    hits = mem.search(word, session="s2")
    assert [h.layer for h in hits] == [GLOBAL, PROJECT, SESSION]
    assert [h.layer for h in mem.search(word)] == [GLOBAL, PROJECT]
    alone = mem.search(word, layers=("project",))
    assert [h.layer for h in alone] == [PROJECT] and word in alone[0].entry.text


def test_the_same_text_in_two_layers_is_shown_once_from_the_higher(
        world: dict[str, Any]) -> None:
    """Catches a said-twice shown twice, or from the lower layer."""
    mem = world["mem"]
    mem.put_entry("quirks", "The corporate proxy blocks port 8443; use port 443 instead.")
    hits = mem.search("corporate proxy 8443")
    assert [h.layer for h in hits if "8443" in h.entry.text] == [GLOBAL]


def test_layers_argument_refuses_what_it_cannot_do(world: dict[str, Any]) -> None:
    """Catches a layers= value silently searching something else than asked."""
    with pytest.raises(ValueError):
        recall.search(world["mem"], "deploy", layers=("global",))
