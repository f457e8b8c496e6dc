"""The built-in ``ollama`` retriever: embeddings from a local Ollama server (``urllib``).

``POST {host}/api/embed`` with ``{"model": ..., "input": [...]}`` answers
``{"model": ..., "embeddings": [[...], ...]}``. Memory is private, so a host that is not
this machine is refused unless ``[ollama] allow_remote = true``: the host must resolve to
loopback addresses only (127/8, ``::1``), and a name is replaced by the address it resolved
to, so that the connection goes where the check looked. No proxy from the environment is
used and no redirect is followed. Queries embed only the prompt; entries get their vectors
from :func:`lean_memory.embedcmd.embed_missing` (``lean-memory embed``), never from ``put``
(ADR 0019).
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import socket
import urllib.error
import urllib.request
from collections.abc import Sequence
from hashlib import blake2b
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .embedding import EmbeddingError, EmbeddingRetriever
from .vectors import Vectors

if TYPE_CHECKING:
    from .config import Config
    from .store import Memory

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
        parts = urlsplit(raw)
        port = parts.port or 11434
    except ValueError:
        raise OllamaError("[ollama] host is not a valid address") from None
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
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
    return f"{parts.scheme}://{shown}:{port}{parts.path.rstrip('/')}"


def _loopback(host: str) -> str | None:
    """The host to connect to when ``host`` is this machine, else None.

    An address is taken as written if it is a loopback one. ``localhost`` and any other
    name (``2130706433``, ``0x7f.1`` and ``0177.0.0.1`` are names to the resolver too)
    must resolve to loopback addresses only; a name other than ``localhost`` is then
    replaced by its first address, so that a second lookup (DNS rebinding) cannot send
    the texts elsewhere.
    """
    try:
        return host if ipaddress.ip_address(host).is_loopback else None
    except ValueError:
        pass  # not an address as written: a name
    try:
        found = [info[4][0] for info in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)]
        loopback = bool(found) and all(ipaddress.ip_address(a).is_loopback for a in found)
    except (OSError, UnicodeError, ValueError):  # unknown name, or an address with a zone
        return None
    if not loopback:
        return None
    return host if host.lower() == "localhost" else str(found[0])


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: a local server must not send the texts elsewhere."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                         headers: Any, newurl: str) -> None:
        return None  # urllib then raises HTTPError with the 3xx code


def prefixes(model: str) -> tuple[str, str]:
    """(document prefix, query prefix) for a model name such as ``nomic-embed-text:v1.5``."""
    return PREFIXES.get(model.split(":", 1)[0].rsplit("/", 1)[-1], ("", ""))


class Ollama:
    """A client of ``/api/embed``; every failure is one :class:`OllamaError` line."""

    def __init__(self, url: str, model: str, timeout: float) -> None:
        self.url = url
        self.model = model
        self.timeout = timeout
        # No proxy, whatever the environment says: the texts are the memory itself.
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                   _NoRedirect())

    def __call__(self, texts: list[str]) -> list[Sequence[float]]:
        return self.embed(texts)

    def embed(self, texts: list[str]) -> list[Sequence[float]]:
        body = json.dumps({"model": self.model, "input": texts}).encode("utf-8")
        request = urllib.request.Request(f"{self.url}/api/embed", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        where = f"Ollama at {self.url}"
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise OllamaError(self._refusal(exc)) from None
        except TimeoutError:
            raise OllamaError(f"{where} did not answer within {self.timeout:g} s") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):
                raise OllamaError(f"{where} did not answer within {self.timeout:g} s") from None
            what = getattr(reason, "strerror", None) or type(reason).__name__
            raise OllamaError(f"cannot reach {where} ({what}); is `ollama serve` "
                              "running?") from None
        if len(raw) > MAX_ANSWER_BYTES:
            raise OllamaError(f"{where} sent an answer over {MAX_ANSWER_BYTES >> 20} MiB")
        return _vectors(raw, len(texts), where)

    def _refusal(self, exc: urllib.error.HTTPError) -> str:
        try:
            message = json.loads(exc.read(4096) or b"{}").get("error", "")
        except (ValueError, AttributeError, OSError):
            message = ""
        if 300 <= exc.code < 400:
            return (f"Ollama at {self.url} answered with a redirect (HTTP {exc.code}); not "
                    "followed: memory stays on this machine")
        if exc.code == 404 and "not found" in str(message):
            return (f"Ollama at {self.url} has no model {self.model!r} "
                    f"(run `ollama pull {self.model}`)")
        return f"Ollama at {self.url} refused the request (HTTP {exc.code})"


def _vectors(raw: bytes, n: int, where: str) -> list[Sequence[float]]:
    try:
        answer = json.loads(raw)
        vectors = answer["embeddings"]
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


def vectors_path(mem: Memory, model: str) -> Path:
    """One file per model: vectors of different models never mix."""
    tag = blake2b(canonical(model).encode("utf-8"), digest_size=4).hexdigest()
    return mem.cache_dir / f"vectors-{tag}.bin"


def legacy_path(mem: Memory, model: str) -> Path | None:
    """The file an older version kept for ``model`` spelt with ``:latest``, if it differs."""
    if canonical(model) == model:
        return None
    tag = blake2b(model.encode("utf-8"), digest_size=4).hexdigest()
    return mem.cache_dir / f"vectors-{tag}.bin"


def client(config: Config, timeout: float) -> Ollama:
    url = base_url(config.ollama_host, os.environ.get("OLLAMA_HOST"), config.ollama_allow_remote)
    return Ollama(url, config.ollama_model, timeout)


def retriever(mem: Memory) -> EmbeddingRetriever:
    """The ``ollama`` retriever of this memory: its cached vectors, the prompt embedded
    live within the retrievers' time limit."""
    c = mem.config
    ollama = client(c, c.retriever_timeout_ms / 1000)
    doc, query = prefixes(c.ollama_model)
    return EmbeddingRetriever("ollama", ollama, Vectors.load(vectors_path(mem, c.ollama_model),
                                                             mem.agents_dir),
                              model=canonical(c.ollama_model), document_prefix=doc,
                              query_prefix=query,
                              floor=c.ollama_min_cosine)
