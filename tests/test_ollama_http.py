"""The Ollama client's own HTTP/1.1 over a socket (ADR 0036), against a loopback server.

Each test guards one guarantee the ``urllib`` client gave and the plain one must keep: a
redirect is a refusal, Ollama's error JSON names a missing model, a truncated or
oversized answer is one clear error, an answer that never comes is a timeout, chunked
transfer-encoding and Content-Length both decode, and the URL is read as ``urlsplit``
read it. No test measures time: the timeout test's server never answers.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_memory import ollama
from lean_memory.ollama import Ollama, OllamaError, _split

from .conftest import loopback

VECTORS = [[0.5, 0.25, 1.0], [1.0, 0.0, 0.0]]
ANSWER = json.dumps({"model": "m", "embeddings": VECTORS}).encode()


class Server:
    """What the server does for the next POST (``mode``), and what it received."""

    def __init__(self) -> None:
        self.mode = "length"
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self.release = threading.Event()  # the silent mode's answer, never sent


def _handler(server: Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            server.received.append((self.path, dict(self.headers.items()), body))
            w = self.wfile.write
            mode = server.mode
            if mode == "silent":
                server.release.wait(30)
                return
            if mode == "redirect":
                w(b"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://203.0.113.9/api/embed"
                  b"\r\nContent-Length: 0\r\n\r\n")
            elif mode == "not-pulled":
                err = json.dumps({"error": 'model "m" not found, try pulling it first'})
                w(b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(err)}\r\n\r\n{err}".encode())
            elif mode == "500":
                w(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2\r\n\r\n{}")
            elif mode == "truncated":
                w(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(ANSWER)
                  + ANSWER[:len(ANSWER) // 2])
                self.close_connection = True
            elif mode == "chunked":
                w(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for i in range(0, len(ANSWER), 7):
                    piece = ANSWER[i:i + 7]
                    w(b"%x;ext=1\r\n%s\r\n" % (len(piece), piece))
                w(b"0\r\nX-Trailer: yes\r\n\r\n")
            elif mode == "chunked-truncated":
                w(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + ANSWER[:10])
                self.close_connection = True
            elif mode == "chunked-bad":
                w(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0x10\r\n")
                self.close_connection = True
            elif mode == "until-close":
                w(b"HTTP/1.0 200 OK\r\n\r\n" + ANSWER)
                self.close_connection = True
            elif mode == "huge":
                w(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % (1 << 40))
                self.close_connection = True
            elif mode == "not-http":
                w(b"SSH-2.0-OpenSSH\r\n\r\n")
                self.close_connection = True
            else:
                w(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  b"Content-Length: %d\r\n\r\n%s" % (len(ANSWER), ANSWER))

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[Server, str]]:
    state = Server()
    with loopback(_handler(state)) as url:
        yield state, url
        state.release.set()


def _client(url: str, timeout: float = 10.0) -> Ollama:
    return Ollama(url, "m", timeout)


@pytest.mark.parametrize("mode", ["length", "chunked", "until-close"])
def test_every_framing_decodes(server: tuple[Server, str], mode: str) -> None:
    """Guards a client that only knew Content-Length (Ollama streams some answers chunked)."""
    state, url = server
    state.mode = mode
    assert _client(url)(["a", "b"]) == VECTORS
    [(path, headers, body)] = state.received
    assert path == "/api/embed" and json.loads(body) == {"model": "m", "input": ["a", "b"]}
    assert headers["Host"] == url.removeprefix("http://")
    assert headers["Content-Type"] == "application/json"


def test_a_path_prefix_is_kept(server: tuple[Server, str]) -> None:
    """Guards a host written with a path (a reverse proxy on this machine) losing it."""
    state, url = server
    _client(url + "/ollama")(["a", "b"])
    assert state.received[0][0] == "/ollama/api/embed"


@pytest.mark.parametrize(("mode", "message"), [
    ("redirect", "answered with a redirect (HTTP 307); not followed"),
    ("not-pulled", "has no model 'm' (run `ollama pull m`)"),
    ("500", "refused the request (HTTP 500)"),
    ("truncated", "closed the connection before its answer was complete"),
    ("chunked-truncated", "closed the connection before its answer was complete"),
    ("chunked-bad", "malformed or truncated answer"),
    ("huge", "sent an answer over 256 MiB"),
    ("not-http", "did not answer in HTTP"),
])
def test_failures_are_one_clear_line(server: tuple[Server, str], mode: str,
                                     message: str) -> None:
    """Guards a refusal, a partial answer or a redirect being followed or half-parsed."""
    state, url = server
    state.mode = mode
    with pytest.raises(OllamaError) as got:
        _client(url)(["a", "b"])
    text = str(got.value)
    assert message in text and "\n" not in text
    assert len(state.received) == 1  # a redirect is not followed: one request only


def test_a_server_that_never_answers_times_out(server: tuple[Server, str]) -> None:
    """Guards a hung server holding a query past its limit (no timing asserted: the
    server never answers, so only the client's own timeout can end the call)."""
    state, url = server
    state.mode = "silent"
    with pytest.raises(OllamaError, match=r"did not answer within 0\.2 s"):
        _client(url, timeout=0.2)(["a"])


def test_a_closed_port_is_unreachable() -> None:
    """Guards a refused connection surfacing as an internal error."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(OllamaError, match=r"cannot reach Ollama .*ollama serve"):
        _client(f"http://127.0.0.1:{port}")(["a"])


def test_no_proxy_from_the_environment(server: tuple[Server, str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the memory's texts going through a proxy the environment names."""
    state, url = server
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://203.0.113.1:9")
    assert _client(url)(["a", "b"]) == VECTORS and len(state.received) == 1


@given(st.from_regex(r"\A(https?|ftp)://([a-z]+@)?(\[[0-9a-f:]{2,12}\]|[A-Za-z0-9.\-]{0,12})"
                     r"(:[0-9]{0,6})?(/[a-z/]{0,8})?([?#][a-z=]{0,4})?\Z"))
def test_split_reads_urls_as_urlsplit(url: str) -> None:
    """Guards the hand-written URL reader (urllib stays off the query path) drifting from
    the standard one: same scheme, host, port (11434 when absent or 0) and path."""
    try:
        parts = urlsplit(url)
        expected: Any = (parts.scheme, parts.hostname or "", parts.port or 11434, parts.path)
    except ValueError:
        expected = ValueError
    try:
        got: Any = _split(url)
    except ValueError:
        got = ValueError
    assert got == expected


def test_https_loads_ssl_only_for_https(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guards the https path being lost with urllib (it must still wrap the socket in TLS)."""
    wrapped: list[str] = []

    def fake_tls(sock: Any, host: str) -> Any:
        wrapped.append(host)
        raise OSError("handshake refused")

    monkeypatch.setattr(ollama, "_tls", fake_tls)
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(OllamaError, match="cannot reach"):
            Ollama(f"https://127.0.0.1:{port}", "m", 5.0)(["a"])
    assert wrapped == ["127.0.0.1"]



@given(st.text(max_size=10), st.lists(st.text(max_size=30), max_size=5))
def test_the_request_body_is_json(model: str, texts: list[str]) -> None:
    """Guards the hand-written request: any text (quotes, backslashes, control characters,
    lone surrogates) arrives as the same string."""
    from lean_memory.ollama import request_body

    assert json.loads(request_body(model, texts)) == {"model": model, "input": texts}
