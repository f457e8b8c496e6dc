"""Issue 20, items 4, 5 and parts of 6 and 8: no credential comes back out, and local means
local. A token is fed to each input a cloned repository controls (an entry's body, title,
tags and id, the config's retrievers, the memory tool's paths and arguments); every output,
reply, error and log is then searched for any piece of it. The ollama retriever is checked
against hostile spellings of "this machine" and a redirect from a local server.

Tokens are built at run time, so this file scans clean; assertions never print them.
"""

from __future__ import annotations

import json
import random
import socket
import string
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory.errors import LeanMemoryError
from lean_memory.memory_tool import MemoryToolError, MemoryToolHandler
from lean_memory.ollama import Ollama, OllamaError, base_url

from .conftest import run_cli

AN = string.ascii_letters + string.digits


def token() -> str:
    """A fresh GitHub-token-shaped credential (random: no literal in the repository)."""
    return "ghp" + "_" + "".join(random.choice(AN) for _ in range(36))


def pieces(tok: str) -> list[str]:
    """Every 8-character piece of the token's random part: none may come out."""
    body = tok[4:]
    return [body[i:i + 8] for i in range(0, len(body) - 7)]


def assert_clean(tok: str, *outputs: str | bytes, what: str = "the output") -> None:
    """Fail, without showing the token or the outputs, if any piece of ``tok`` is in one."""
    texts = [o.decode("utf-8", "replace") if isinstance(o, bytes) else o for o in outputs]
    leaked = [n for n, text in enumerate(texts) if any(p in text for p in pieces(tok))]
    if leaked:
        pytest.fail(f"a piece of the token came out in {what} (output {leaked})", pytrace=False)


def hand_entry(mem: lean_memory.Memory, tok: str, *, entry_id: str | None = None) -> str:
    """Append, by hand (no put, no scan), an entry that holds ``tok`` in its title, tags,
    id and body; returns its id."""
    entry_id = entry_id or tok
    shard = mem.shard_path("quirks")
    shard.write_text(shard.read_text(encoding="utf-8")
                     + f"\n## deploy notes {tok}\n"
                     f"<!-- lean-memory: id={entry_id}; date=2026-01-01; tags=deploy,{tok} -->"
                     f"\n\nthe deploy key is {tok} for the staging lock\n", encoding="utf-8")
    return entry_id


# -- item 4: the memory tool ---------------------------------------------------------------


def test_str_replace_never_shows_a_withheld_entry(mem: lean_memory.Memory) -> None:
    """Bug: str_replace's reply printed the lines around the edit verbatim, so a no-op
    replace of ``id=<id>;`` printed an entry the read side withholds, credential and all."""
    tok = token()
    hand_entry(mem, tok, entry_id="leak1")
    mem.put_entry("quirks", "pip ignores uv.lock; use uv sync", title="pip and the lock")
    tool = MemoryToolHandler(mem)
    out = tool.execute({"command": "str_replace", "path": "/memories/quirks.md",
                        "old_str": "id=leak1;", "new_str": "id=leak1;"})
    assert "has been edited" in out
    assert_clean(tok, out, what="str_replace's reply")
    assert "deploy notes" not in out and "staging lock" not in out
    assert "[withheld] entry `leak1`" in out
    # an edit next to it still shows its own lines, with the file's line numbers
    out = tool.execute({"command": "str_replace", "path": "/memories/quirks.md",
                        "old_str": "use uv sync", "new_str": "run uv sync"})
    lines = mem.shard_path("quirks").read_text(encoding="utf-8").split("\n")
    n = next(i for i, line in enumerate(lines) if "run uv sync" in line)
    assert f"{n + 1:>6}\tpip ignores uv.lock; run uv sync" in out.splitlines()
    assert_clean(tok, out, what="str_replace's reply")
    assert "staging lock" not in out


def test_memory_tool_messages_keep_no_piece_of_a_token(mem: lean_memory.Memory) -> None:
    """Bug: messages cut a quoted path or title at 200 or 60 characters and only then
    redacted it, so a token cut short (too short to be recognised) kept 9-19 characters."""
    tok = token()
    tool = MemoryToolHandler(mem)
    commands: list[dict[str, Any]] = []
    for cut in (190, 195, 200):  # the token straddles the old cut by 10, 5 and 0 characters
        pad = "a" * (cut - len("/memories/") - 1 - 12)
        path = f"/memories/{pad}/{tok}"
        commands += [{"command": "create", "path": path, "file_text": "x"},
                     {"command": "view", "path": path},
                     {"command": "view", "path": path.replace("/memories", "/elsewhere")},
                     {"command": "view", "path": f"/memories/../{pad}/{tok}"},
                     {"command": "view", "path": f"/memories/.{pad}/{tok}"},
                     {"command": "view", "path": f"/memories/{pad}\\{tok}"}]
    for pad in (40, 45, 50):  # a title cut at 60 characters
        commands.append({"command": "create", "path": "/memories/quirks.md",
                         "file_text": f"## {'t' * pad} {tok}\n\nbody\n"})
    commands.append({"command": tok})
    for n, command in enumerate(commands):
        with pytest.raises(LeanMemoryError) as err:
            tool.execute(command)
        assert_clean(tok, str(err.value), what=f"the error of command {n}")


def test_a_file_named_by_a_token_is_listed_redacted(mem: lean_memory.Memory) -> None:
    """Bug: ``view /memories`` listed every file name verbatim, and a cloned repository
    may commit a file named by a credential."""
    tok = token()
    (mem.dir / f"{tok}.md").write_text("notes\n", encoding="utf-8")
    (mem.archive_dir / tok).mkdir(parents=True)
    listing = MemoryToolHandler(mem).execute({"command": "view", "path": "/memories"})
    assert "\t/memories/ghp_" in listing and "\t/memories/archive/ghp_" in listing
    assert_clean(tok, listing, what="the listing")


def test_a_very_long_memory_tool_path_is_one_clear_refusal(mem: lean_memory.Memory) -> None:
    """Bug: a 5,000-character path reached the file system and raised a bare OSError
    (File name too long), quoting the whole path."""
    tool = MemoryToolHandler(mem)
    for command in ("view", "create", "delete", "str_replace", "insert"):
        for length in (5000, 300):  # the whole path, or one name over the system's limit
            with pytest.raises(MemoryToolError) as err:
                tool.execute({"command": command, "path": "/memories/" + "x" * length,
                              "file_text": "x", "old_str": "a", "new_str": "b",
                              "insert_line": 0, "insert_text": "x"})
            message = str(err.value)
            assert "too long" in message and len(message) < 300 and "\n" not in message


def test_str_replace_names_a_bounded_number_of_occurrences(mem: lean_memory.Memory) -> None:
    """Bug: an old_str found on every line listed every line number, counting the file once
    per occurrence (quadratic, under the writers' lock): 0.45 MB gave a 319 KB message."""
    shard = mem.shard_path("quirks")
    head = shard.read_text(encoding="utf-8")
    shard.write_text(head + "".join(f"\n## entry {i}\n\nsame words {i}\n" for i in range(3000)),
                     encoding="utf-8")
    lines = shard.read_text(encoding="utf-8").split("\n")
    where = [i + 1 for i, line in enumerate(lines) if "same words" in line]
    before = shard.read_bytes()
    with pytest.raises(MemoryToolError) as err:
        MemoryToolHandler(mem).execute({"command": "str_replace", "path": "/memories/quirks.md",
                                        "old_str": "same words", "new_str": "other words"})
    message = str(err.value)
    assert len(message) < 400
    listed = ", ".join(str(n) for n in where[:10])
    assert f"in lines: {listed} and {len(where) - 10:,} more." in message
    assert shard.read_bytes() == before


# -- item 4: the CLI and the hook ------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    assert run_cli("init", "--no-git", cwd=tmp_path).returncode == 0
    return tmp_path


def test_a_withheld_entry_leaks_nothing_through_the_cli(project: Path) -> None:
    """Bug: a withheld entry's notice, and ``list``/``show``, printed its id, and the id
    can itself be the credential."""
    tok = token()
    hand_entry(lean_memory.Memory(project), tok)
    runs = [("get",), ("get", "quirks"), ("get", "quirks", "--json"), ("list",),
            ("list", "--json"), ("show", "TOKEN"), ("show", "TOKEN", "--json"),
            ("get", "--query", "deploy staging lock"),
            ("get", "--query", "deploy staging lock", "--json"),
            ("get", "--digest", "deploy staging lock"), ("status",), ("status", "--json")]
    for args in runs:
        r = run_cli(*(tok if a == "TOKEN" else a for a in args), cwd=project)
        assert r.returncode == 0, args
        assert_clean(tok, r.stdout, r.stderr, what=" ".join(args))
    shown = run_cli("get", "quirks", cwd=project).stdout.decode()
    assert "[withheld] entry `ghp_" in shown


def test_a_token_in_the_config_retrievers_is_never_printed_or_logged(project: Path) -> None:
    """Bug: ``status`` printed the retrievers of config.toml verbatim and the hook wrote
    the 'not installed' note to hook.log verbatim: a cloned config can name a token."""
    tok = token()
    (project / ".agents" / "config.toml").write_text(
        f'[memory]\nretrievers = ["bm25", "{tok}"]\n', encoding="utf-8")
    mem = lean_memory.Memory(project)
    mem.put_entry("quirks", "the staging deploy needs the vpn", title="staging vpn")
    outputs: list[bytes] = []
    for args in (("status",), ("status", "--json"), ("get", "--query", "staging deploy")):
        r = run_cli(*args, cwd=project)
        assert r.returncode == 0, args
        outputs += [r.stdout, r.stderr]
    status = run_cli("status", cwd=project).stdout.decode()
    assert "retrievers: bm25, ghp_" in status  # named, redacted
    prompt = {"session_id": "s", "cwd": str(project), "hook_event_name": "UserPromptSubmit",
              "prompt": "how do I deploy to staging"}
    r = run_cli("hook", "user-prompt-submit", cwd=project, stdin=json.dumps(prompt).encode())
    assert r.returncode == 0
    outputs += [r.stdout, r.stderr]
    log = mem.cache_dir / "hook.log"
    assert log.is_file() and "not installed" in log.read_text(encoding="utf-8")
    outputs.append(log.read_bytes())
    assert_clean(tok, *outputs, what="status, search, the hook or hook.log")


# -- item 5: local means local ----------------------------------------------------------------


HOSTILE = [
    "http://127.0.0.1.attacker.example:11434",  # passed startswith("127.")
    "http://127.attacker.example",
    "http://rebound.example:11434",  # resolves to loopback and elsewhere
    "http://10.0.0.1:11434",
    "http://167772161",  # 10.0.0.1 as one decimal number
    "http://0x0a000001",  # and in hex
    "http://012.0.0.1",  # and in octal
    "http://0",  # every interface, spelt short: not an address the client may use
    "http://[::ffff:a00:1]:11434",  # 10.0.0.1 inside IPv6
    "http://[fe80::1%25lo]:11434",
    "http://[2001:db8::1]",
    "http://127.0.0.1@attacker.example",
]


@pytest.fixture
def resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolver for names under .example, offline; others resolve as usual."""
    real = socket.getaddrinfo

    def fake(host: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(host, bytes):  # the client passes ASCII names as bytes (no idna codec)
            host = host.decode("ascii")
        if isinstance(host, str) and host.endswith(".example"):
            addresses = {"rebound.example": ["127.0.0.1", "203.0.113.7"],
                         "loop.example": ["127.0.0.1"]}.get(host, ["203.0.113.7"])
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in addresses]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", fake)


@pytest.mark.usefixtures("resolver")
def test_only_loopback_hosts_are_this_machine() -> None:
    """Bug: 'this machine' was ``host.startswith("127.")``, so 127.0.0.1.attacker.example
    (and any name under it) received the entries and prompts."""
    for host in HOSTILE:
        with pytest.raises(OllamaError, match="not this machine"):
            base_url(host, None, False)
        assert base_url(host, None, True)  # allowed when the config says so
    for host, url in [("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
                      ("http://127.9.8.7", "http://127.9.8.7:11434"),
                      ("http://[::1]:8080", "http://[::1]:8080"),
                      ("http://localhost:8080", "http://localhost:8080"),
                      ("http://0.0.0.0:8080", "http://127.0.0.1:8080"),
                      # a name is pinned to the loopback address it resolved to
                      ("http://2130706433:8080", "http://127.0.0.1:8080"),
                      ("http://loop.example:8080", "http://127.0.0.1:8080")]:
        assert base_url(host, None, False) == url


class _Server:
    """A local HTTP server that answers every POST with ``status`` and ``location``."""

    def __init__(self, status: int = 200, location: str = "") -> None:
        self.paths: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                outer.paths.append(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                body = json.dumps({"embeddings": [[1.0, 0.0]]}).encode()
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def servers() -> Iterator[list[_Server]]:
    made: list[_Server] = []
    yield made
    for s in made:
        s.close()


@pytest.mark.parametrize("status", [301, 302, 303])  # a POST is redirected as a GET
def test_a_redirect_from_the_local_server_is_not_followed(servers: list[_Server],
                                                          status: int) -> None:
    """Bug: urllib follows redirects by default, so a local server (or anything that
    answers on its port) could send the request to another host."""
    elsewhere = _Server()
    local = _Server(status, f"{elsewhere.url}/api/embed")
    servers += [elsewhere, local]
    client = Ollama(base_url(local.url, None, False), "m", timeout=10)
    with pytest.raises(OllamaError, match="redirect"):
        client.embed(["the deploy key"])
    assert local.paths == ["/api/embed"] and elsewhere.paths == []
    assert Ollama(elsewhere.url, "m", timeout=10).embed(["x"]) == [[1.0, 0.0]]  # it works
