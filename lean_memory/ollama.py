"""The built-in ``ollama`` retriever: embeddings from a local Ollama server.

``POST {host}/api/embed`` with ``{"model": ..., "input": [...]}`` answers
``{"model": ..., "embeddings": [[...], ...]}``. Memory is private, so a host that is not
this machine is refused unless ``[ollama] allow_remote = true``: the host must resolve to
loopback addresses only (127/8, ``::1``), and a name is replaced by the address it resolved
to, so that the connection goes where the check looked. No proxy from the environment is
used and no redirect is followed (a 3xx is a refusal). The request is one plain HTTP/1.1
POST over a socket (``urllib`` would load ``http.client``, ``email`` and ``ssl`` on every
query: ADR 0036); the answer is bounded in size, read with Content-Length, chunked
transfer-encoding or to the end of the connection, every step within the timeout, and every
failure is one :class:`OllamaError` line. An ``https://`` host works too (``ssl`` is loaded
only then, the certificate checked as usual). Queries embed only the prompt; entries get
their vectors from :func:`lean_memory.embedcmd.embed_missing` (``lean-memory embed``), never
from ``put`` (ADR 0019).
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Sequence

from ._hash import blake2b
from ._jsonc import loads, string
from .embedding import EmbeddingError, EmbeddingRetriever
from .vectors import Vectors

TYPE_CHECKING = False  # typing's own import costs more than this module
if TYPE_CHECKING:
    from pathlib import Path

    from ._protocols import MemoryLike
    from .config import Config

DEFAULT_HOST = "http://127.0.0.1:11434"
# Task prefixes the model was trained with (document, query); other models get none.
PREFIXES = {"nomic-embed-text": ("search_document: ", "search_query: ")}
MAX_ANSWER_BYTES = 256 << 20
BATCH = 32


class OllamaError(EmbeddingError):
    """Ollama is absent, refused, or answered something unusable."""


def base_url(setting: str, env: str | None, allow_remote: bool) -> str:
    """The server's base URL from config, else ``$OLLAMA_HOST``, else the default;
    a host that is not this machine is refused unless allowed."""
    raw = (setting or env or DEFAULT_HOST).strip()
    if "://" not in raw:
        raw = "http://" + raw  # OLLAMA_HOST is often "host:port"
    try:
        scheme, host, port, path = _split(raw)
    except ValueError:
        raise OllamaError("[ollama] host is not a valid address") from None
    if scheme not in ("http", "https") or not host:
        raise OllamaError("[ollama] host must be an http:// or https:// address")
    if host in ("0.0.0.0", "::"):  # a server's "every interface": this machine
        host = "127.0.0.1"
    if not allow_remote:
        local = _loopback(host)
        if local is None:
            raise OllamaError(f"Ollama host {host!r} is not this machine: memory is "
                              "private; set [ollama] allow_remote = true to send it there")
        host = local
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}{path.rstrip('/')}"


def _split(url: str) -> tuple[str, str, int, str]:
    """(scheme, host, port, path) of ``scheme://[user@]host[:port][/path]``, as
    ``urllib.parse.urlsplit`` reads them (host lower case, port 11434 when absent);
    ValueError if the port is not a number or a bracket is unclosed. Not ``urllib``: the
    query path imports none of it."""
    scheme, _, rest = url.partition("://")
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, path = rest[:cut], rest[cut:]
    for c in "?#":
        path = path.partition(c)[0]
    hostinfo = netloc.rpartition("@")[2]
    if hostinfo.startswith("["):
        host, bracket, after = hostinfo[1:].partition("]")
        if not bracket:
            raise ValueError("unclosed bracket")
        try:  # as urlsplit: only an IPv6 address (and its zone) goes in brackets
            socket.inet_pton(socket.AF_INET6, host.partition("%")[0])
        except OSError:
            raise ValueError("not an IPv6 address") from None
        port = after.partition(":")[2]
    else:
        host, _, port = hostinfo.partition(":")
    if port and not (port.isascii() and port.isdigit() and int(port) <= 65535):
        raise ValueError("not a port")
    return scheme.lower(), host.lower(), int(port or 0) or 11434, path


_LOOPBACK6 = bytes(15) + b"\1"


def _is_loopback(address: str) -> bool:
    """Whether an IP address is a loopback one (127/8, ``::1``); ValueError if ``address``
    is not an address (``ipaddress`` would cost the query path an import)."""
    try:
        return socket.inet_pton(socket.AF_INET, address)[0] == 127
    except OSError:
        pass
    try:
        return socket.inet_pton(socket.AF_INET6, address) == _LOOPBACK6
    except OSError:
        raise ValueError(address) from None


def _loopback(host: str) -> str | None:
    """The host to connect to when ``host`` is this machine, else None.

    An address is taken as written if it is a loopback one. ``localhost`` and any other
    name (``2130706433``, ``0x7f.1`` and ``0177.0.0.1`` are names to the resolver too)
    must resolve to loopback addresses only; a name other than ``localhost`` is then
    replaced by its first address, so that a second lookup (DNS rebinding) cannot send
    the texts elsewhere.
    """
    try:
        return host if _is_loopback(host) else None
    except ValueError:
        pass  # not an address as written: a name
    try:
        found = [info[4][0] for info in socket.getaddrinfo(_name(host), None,
                                                           type=socket.SOCK_STREAM)]
        loopback = bool(found) and all(_is_loopback(str(a)) for a in found)
    except (OSError, UnicodeError, ValueError):  # unknown name, or an address with a zone
        return None
    if not loopback:
        return None
    return host if host.lower() == "localhost" else str(found[0])


def prefixes(model: str) -> tuple[str, str]:
    """(document prefix, query prefix) for a model name such as ``nomic-embed-text:v1.5``."""
    return PREFIXES.get(model.split(":", 1)[0].rsplit("/", 1)[-1], ("", ""))


class Ollama:
    """A client of ``/api/embed``; every failure is one :class:`OllamaError` line."""

    def __init__(self, url: str, model: str, timeout: float) -> None:
        self.url = url
        self.model = model
        self.timeout = timeout
        scheme, host, self._port, path = _split(url)
        self._tls = scheme == "https"
        self._host = host or "127.0.0.1"
        self._path = path.rstrip("/") + "/api/embed"
        shown = f"[{self._host}]" if ":" in self._host else self._host
        self._host_header = f"{shown}:{self._port}"

    def __call__(self, texts: list[str]) -> list[Sequence[float]]:
        return self.embed(texts)

    def embed(self, texts: list[str]) -> list[Sequence[float]]:
        body = request_body(self.model, texts)
        where = f"Ollama at {self.url}"
        status, raw = self._post(body, where)
        if status != 200:
            raise OllamaError(self._refusal(status, raw))
        return _vectors(raw, len(texts), where)

    def _post(self, body: bytes, where: str) -> tuple[int, bytes]:
        """(status, body) of one POST; no proxy (none is ever asked), no redirect."""
        head = (f"POST {self._path} HTTP/1.1\r\nHost: {self._host_header}\r\n"
                "User-Agent: lean-memory\r\nAccept: application/json\r\n"
                "Content-Type: application/json\r\nConnection: close\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode("ascii")
        deadline = time.monotonic() + self.timeout
        try:
            sock = _connect(self._host, self._port, self.timeout)
        except TimeoutError:
            raise OllamaError(f"{where} did not answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise OllamaError(_unreachable(where, exc)) from None
        try:
            if self._tls:
                sock = _tls(sock, self._host)
            sock.sendall(head + body)
            return _Answer(sock, deadline).read(where)
        except TimeoutError:
            raise OllamaError(f"{where} did not answer within {self.timeout:g} s") from None
        except OSError as exc:
            raise OllamaError(_unreachable(where, exc)) from None
        finally:
            sock.close()

    def _refusal(self, status: int, raw: bytes) -> str:
        try:
            answer = _loads(raw[:4096] or b"{}")
            message = answer.get("error", "") if isinstance(answer, dict) else ""
        except ValueError:  # UnicodeDecodeError too
            message = ""
        if 300 <= status < 400:
            return (f"Ollama at {self.url} answered with a redirect (HTTP {status}); not "
                    "followed: memory stays on this machine")
        if status == 404 and "not found" in str(message):
            return (f"Ollama at {self.url} has no model {self.model!r} "
                    f"(run `ollama pull {self.model}`)")
        return f"Ollama at {self.url} refused the request (HTTP {status})"


def _name(host: str) -> str | bytes:
    """``host`` as ``getaddrinfo`` takes it cheaply: a str is always run through the idna
    codec (``unicodedata``, ``stringprep``: ~20 ms), ASCII bytes are not."""
    return host.encode("ascii") if host.isascii() else host


def _connect(host: str, port: int, timeout: float) -> socket.socket:
    """A connected socket, each address of ``host`` tried in turn (as
    ``socket.create_connection``, without its idna lookup)."""
    error: OSError | None = None
    for family, kind, proto, _, address in socket.getaddrinfo(_name(host), port,
                                                              type=socket.SOCK_STREAM):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
        except OSError as exc:
            sock.close()
            error = exc
            continue
        return sock
    raise error or OSError("no address")


def _unreachable(where: str, exc: OSError) -> str:
    what = exc.strerror or type(exc).__name__
    return f"cannot reach {where} ({what}); is `ollama serve` running?"


def _tls(sock: socket.socket, host: str) -> socket.socket:
    """The connection wrapped in TLS, the certificate checked for ``host``. ``ssl`` is
    imported here, only for an https:// host: a plain loopback query never loads it."""
    import ssl

    return ssl.create_default_context().wrap_socket(sock, server_hostname=host)


MAX_HEAD_BYTES = 64 << 10


class _Answer:
    """An HTTP/1.x answer read from a socket: every read within the deadline, the body
    bounded, by Content-Length, chunked transfer-encoding, or to the end of the stream."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buf = bytearray()
        self.eof = False

    def _more(self) -> bool:
        """Read what arrived into the buffer; False at the end of the stream."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        self.sock.settimeout(left)
        data = self.sock.recv(1 << 16)
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _line(self, limit: int, where: str) -> bytes:
        while (end := self.buf.find(b"\r\n")) < 0:
            if len(self.buf) > limit or not self._more():
                raise OllamaError(f"{where} sent a malformed or truncated answer")
        line = bytes(self.buf[:end])
        del self.buf[:end + 2]
        return line

    def _exactly(self, n: int, where: str) -> bytes:
        while len(self.buf) < n:
            if not self._more():
                raise OllamaError(f"{where} closed the connection before its answer was "
                                  "complete")
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def read(self, where: str) -> tuple[int, bytes]:
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            if len(self.buf) > MAX_HEAD_BYTES or not self._more():
                raise OllamaError(f"{where} sent a malformed or truncated answer")
        lines = bytes(self.buf[:end]).decode("latin-1").split("\r\n")
        del self.buf[:end + 4]
        status_line = lines[0].split(None, 2)
        if (len(status_line) < 2 or not status_line[0].startswith("HTTP/1.")
                or not (status_line[1].isascii() and status_line[1].isdigit())
                or len(status_line[1]) != 3):
            raise OllamaError(f"{where} did not answer in HTTP")
        status = int(status_line[1])
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        too_big = f"{where} sent an answer over {MAX_ANSWER_BYTES >> 20} MiB"
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return status, self._chunked(where, too_big)
        length = headers.get("content-length")
        if length is not None:
            if not (length.isascii() and length.isdigit()):
                raise OllamaError(f"{where} sent a malformed or truncated answer")
            if int(length) > MAX_ANSWER_BYTES:
                raise OllamaError(too_big)
            return status, self._exactly(int(length), where)
        while self._more():  # no length: the body ends with the connection
            if len(self.buf) > MAX_ANSWER_BYTES:
                raise OllamaError(too_big)
        return status, bytes(self.buf)

    def _chunked(self, where: str, too_big: str) -> bytes:
        out = bytearray()
        while True:
            size = self._line(1024, where).split(b";", 1)[0].strip()
            if not size or size.strip(b"0123456789abcdefABCDEF"):
                raise OllamaError(f"{where} sent a malformed or truncated answer")
            n = int(size, 16)
            if len(out) + n > MAX_ANSWER_BYTES:
                raise OllamaError(too_big)
            if n == 0:
                while self._line(MAX_HEAD_BYTES, where):  # trailers, up to the empty line
                    pass
                return bytes(out)
            out += self._exactly(n, where)
            if self._exactly(2, where) != b"\r\n":
                raise OllamaError(f"{where} sent a malformed or truncated answer")


def request_body(model: str, texts: list[str]) -> bytes:
    """``json.dumps({"model": model, "input": texts})`` in UTF-8, through ``_jsonc`` (``json``
    imports ``re``: ~8 ms of a query's CPU, ADR 0036)."""
    return ('{"model": ' + string(model) + ', "input": ['
            + ", ".join(map(string, texts)) + "]}").encode("utf-8")


def _loads(raw: bytes) -> object:
    """``json.loads(raw)``; ValueError (UnicodeDecodeError too) if it is not JSON."""
    return loads(raw.decode("utf-8"))


def _vectors(raw: bytes, n: int, where: str) -> list[Sequence[float]]:
    try:
        answer = _loads(raw)
        vectors = answer["embeddings"]  # type: ignore[index]
        ok = (isinstance(vectors, list) and len(vectors) == n
              and all(isinstance(v, list) and v and len(v) == len(vectors[0])
                      and all(type(x) in (int, float) and math.isfinite(x) for x in v)
                      for v in vectors))
    except (ValueError, TypeError, KeyError):
        ok = False
    if not ok:
        raise OllamaError(f"{where} sent a malformed answer (expected {n} embeddings "
                          "of one dimension)")
    return list(vectors)


def canonical(model: str) -> str:
    """The model's name as Ollama resolves it: ``all-minilm:latest`` is ``all-minilm``
    (one vector cache, one set of keys, whichever way the config spells it)."""
    return model.removesuffix(":latest")


def vectors_path(mem: MemoryLike, model: str) -> Path:
    """One file per model: vectors of different models never mix."""
    from pathlib import Path  # not on the query path: that one reads vectors_file

    return Path(vectors_file(mem, model))


def vectors_file(mem: MemoryLike, model: str) -> str:
    """:func:`vectors_path` as a string (``Memory``'s Path attributes import ``pathlib``)."""
    tag = blake2b(canonical(model).encode("utf-8"), digest_size=4).hexdigest()
    return os.path.join(mem._cache, f"vectors-{tag}.bin")


def legacy_path(mem: MemoryLike, model: str) -> Path | None:
    """The file an older version kept for ``model`` spelt with ``:latest``, if it differs."""
    if canonical(model) == model:
        return None
    tag = blake2b(model.encode("utf-8"), digest_size=4).hexdigest()
    return mem.cache_dir / f"vectors-{tag}.bin"


def client(config: Config, timeout: float) -> Ollama:
    url = base_url(config.ollama_host, os.environ.get("OLLAMA_HOST"), config.ollama_allow_remote)
    return Ollama(url, config.ollama_model, timeout)


def retriever(mem: MemoryLike) -> EmbeddingRetriever:
    """The ``ollama`` retriever of this memory: its cached vectors, the prompt embedded
    live within the retrievers' time limit."""
    c = mem.config
    ollama = client(c, c.retriever_timeout_ms / 1000)
    doc, query = prefixes(c.ollama_model)
    return EmbeddingRetriever("ollama", ollama, Vectors.load(vectors_file(mem, c.ollama_model),
                                                             mem._agents),
                              model=canonical(c.ollama_model), document_prefix=doc,
                              query_prefix=query,
                              floor=c.ollama_min_cosine)
