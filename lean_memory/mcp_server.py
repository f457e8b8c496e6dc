"""``lean-memory mcp``: the memory over the Model Context Protocol (stdio), stdlib only.

JSON-RPC 2.0, one message a line (the stdio transport of the MCP specification). The server
speaks the handshake revisions (``initialize``); a client that probes ``server/discover``
first gets "method not found" and falls back to ``initialize``, as the specification asks.

Why it looks like this:

* Every tool call opens the memory anew, so each call sees the files as they are now (other
  sessions and hand edits write them too) and takes the same lock, scan and atomic writes as
  the CLI.
* A refused call (a secret, a bad shard, an oversized entry) is a *tool result* with
  ``isError: true`` and the library's message, which never holds the secret: the model can
  read it and correct itself. Protocol errors (bad JSON, unknown method or tool) are JSON-RPC
  errors, and the server keeps serving.
* Nothing but protocol messages reaches stdout: ``sys.stdout`` is pointed at stderr while
  serving, so a stray print (a plugin's, say) cannot corrupt the stream.
* A line is read with a bound, so a 10 MB message costs a bounded buffer and an error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import IO, Any

from .errors import LeanMemoryError, redact_message

SUPPORTED_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
MAX_LINE = 4 * 1024 * 1024  # bytes; an entry is at most 1 MB, so a real message fits
MAX_K = 50

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002

INDEX_URI = "lean-memory://index"
SHARD_URI = "lean-memory://shard/"

INSTRUCTIONS = (
    "Durable project memory for coding agents (lean_memory). Read memory_index first: one line "
    "per shard. Use memory_search with the user's words before answering questions about this "
    "project; memory_get_shard for a whole shard. Record what a future session must know with "
    "memory_put, one fact per entry, in the shard it belongs to; correct a wrong entry with "
    "memory_put(shard='corrections', supersedes=<id>). Never store secrets: a write holding a "
    "credential is refused."
)

_TEXT = {"type": "string"}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "memory_index",
        "title": "Memory index",
        "description": "Read INDEX.md: each shard with its description, entry count and "
                       "token estimate. Cheap; read it first.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "memory_get_shard",
        "title": "Read a shard",
        "description": "Read one whole shard (e.g. 'conventions', 'failures') as Markdown.",
        "inputSchema": {
            "type": "object",
            "properties": {"shard": {**_TEXT, "description": "the shard name"}},
            "required": ["shard"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "memory_search",
        "title": "Search memory",
        "description": "Find the entries that best match a plain-text query (BM25, fused "
                       "with the configured retrievers), with their shard, id and date.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {**_TEXT, "description": "plain words, e.g. the user's question"},
                "k": {"type": "integer", "minimum": 1, "maximum": MAX_K, "default": 5,
                      "description": "how many entries"},
                "archive": {"type": "boolean",
                            "description": "also search entries compaction archived "
                                           "(default: the config's search_archive, true)"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "memory_put",
        "title": "Remember",
        "description": "Add one entry (one fact) to a shard. Refused, with nothing written, "
                       "when it holds a credential. Use supersedes=<id> to correct an entry.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "shard": {**_TEXT, "description": "e.g. failures, insights, quirks"},
                "text": {**_TEXT, "description": "the entry, Markdown"},
                "title": {**_TEXT, "description": "short title (default: the first line)"},
                "tags": {"type": "array", "items": _TEXT},
                "supersedes": {**_TEXT, "description": "id of the entry this one corrects"},
            },
            "required": ["shard", "text"],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "destructiveHint": False,
                        "idempotentHint": True, "openWorldHint": False},
    },
    {
        "name": "memory_status",
        "title": "Memory status",
        "description": "Per-shard entry counts and tokens, the total against the budget, and "
                       "whether compaction is due.",
        "inputSchema": {"type": "object", "properties": {}, "additionalProperties": False},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
]


class _ArgumentError(LeanMemoryError):
    """A tool's arguments do not match its input schema."""


class _RpcError(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _check_args(tool: dict[str, Any], args: dict[str, Any]) -> None:
    """Check ``args`` against the (flat) input schema of ``tool``."""
    schema = tool["inputSchema"]
    props: dict[str, Any] = schema["properties"]
    for name in args:
        if name not in props:
            raise _ArgumentError(f"unknown argument {name!r}; expected "
                                 f"{', '.join(props) or 'no arguments'}")
    for name in schema.get("required", ()):
        if name not in args:
            raise _ArgumentError(f"missing required argument {name!r}")
    for name, value in args.items():
        kind = props[name]["type"]
        ok = {
            "string": isinstance(value, str),
            "boolean": isinstance(value, bool),
            "integer": isinstance(value, int) and not isinstance(value, bool),
            "array": isinstance(value, list) and all(isinstance(v, str) for v in value),
        }[kind]
        if not ok:
            what = "a list of strings" if kind == "array" else f"a {kind}"
            raise _ArgumentError(f"argument {name!r} must be {what}")
        low, high = props[name].get("minimum"), props[name].get("maximum")
        if kind == "integer" and ((low is not None and value < low) or
                                  (high is not None and value > high)):
            raise _ArgumentError(f"argument {name!r} must be between {low} and {high}")


class Server:
    """The protocol state of one connection; ``open_memory`` gives a fresh Memory."""

    def __init__(self, open_memory: Callable[[], Any]) -> None:
        self.open_memory = open_memory
        self.version: str | None = None

    # -- dispatch --------------------------------------------------------------------

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The response to one decoded message, or None for a notification."""
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, "not a JSON-RPC 2.0 message")
        msg_id = message.get("id")
        method = message.get("method")
        is_request = "id" in message
        if not isinstance(method, str):
            if is_request and ("result" in message or "error" in message):
                return None  # a response to a request we never send: ignore
            return _error(msg_id, INVALID_REQUEST, "missing method")
        if is_request and (msg_id is None or isinstance(msg_id, bool) or
                           not isinstance(msg_id, (str, int))):
            return _error(None, INVALID_REQUEST, "id must be a string or an integer")
        params = message.get("params", {})
        if not isinstance(params, dict):
            return _error(msg_id, INVALID_PARAMS, "params must be an object")
        if not is_request:
            return None  # notifications (initialized, cancelled, …) need no answer
        try:
            result = self._call(method, params)
        except _RpcError as exc:
            return _error(msg_id, exc.code, exc.message)
        return {"jsonrpc": "2.0", "id": msg_id, "result": result}

    def _call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        if method == "initialize":
            return self._initialize(params)
        if method == "ping":
            return {}
        handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "tools/list": lambda p: {"tools": TOOLS},
            "tools/call": self._tools_call,
            "resources/list": self._resources_list,
            "resources/templates/list": lambda p: {"resourceTemplates": []},
            "resources/read": self._resources_read,
        }
        handler = handlers.get(method)
        if handler is None:
            raise _RpcError(METHOD_NOT_FOUND, "method not found")  # never echoed: input
        return handler(params)

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        # The client's version when we speak it, else our newest: the client decides.
        self.version = asked if asked in SUPPORTED_VERSIONS else SUPPORTED_VERSIONS[0]
        from . import __version__

        return {
            "protocolVersion": self.version,
            "capabilities": {"tools": {"listChanged": False},
                             "resources": {"listChanged": False, "subscribe": False}},
            "serverInfo": {"name": "lean-memory", "title": "lean_memory",
                           "version": __version__},
            "instructions": INSTRUCTIONS,
        }

    # -- tools -----------------------------------------------------------------------

    def _tools_call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        tool = next((t for t in TOOLS if t["name"] == name), None)
        if tool is None:
            names = ", ".join(t["name"] for t in TOOLS)
            raise _RpcError(INVALID_PARAMS, f"unknown tool; the tools are {names}")
        args = params.get("arguments") or {}
        try:
            if not isinstance(args, dict):
                raise _ArgumentError("arguments must be an object")
            _check_args(tool, args)
            text = getattr(self, "_tool_" + tool["name"].removeprefix("memory_"))(args)
        except LeanMemoryError as exc:
            return {"content": [{"type": "text", "text": _error_text(exc)}], "isError": True}
        return {"content": [{"type": "text", "text": text}], "isError": False}

    def _tool_index(self, args: dict[str, Any]) -> str:
        text: str = self.open_memory().get_memory()
        return text

    def _tool_get_shard(self, args: dict[str, Any]) -> str:
        text: str = self.open_memory().get_memory(args["shard"])
        return text

    def _tool_search(self, args: dict[str, Any]) -> str:
        from .search import find, render_hits
        from .withhold import count_note

        found = find(self.open_memory(), args["query"], k=args.get("k", 5),
                     include_archive=args.get("archive"))
        text = render_hits(found.hits) if found.hits else "No entry matches that query."
        if found.withheld:
            text += f"\n_({count_note(found.withheld)})_\n"
        if found.notes:  # a retriever searched without: the client should know, as the CLI says
            text += f"\n_(note: {redact_message('; '.join(found.notes))})_\n"
        return text

    def _tool_put(self, args: dict[str, Any]) -> str:
        mem = self.open_memory()
        entry = mem.put_entry(args["shard"], args["text"], title=args.get("title"),
                              tags=tuple(args.get("tags", ())),
                              supersedes=args.get("supersedes"))
        said = entry.get("said_again")
        how = f"said again ({said} times)" if said else "stored"
        return f"{how}: {entry.shard} {entry.id} ({entry.date}) {entry.title}"

    def _tool_status(self, args: dict[str, Any]) -> str:
        st = self.open_memory().status()
        lines = [f"{s.name}: {s.entries} entries, ~{s.tokens} tokens" for s in st.shards]
        lines.append(f"total ~{st.total_tokens} of {st.token_budget} tokens; compaction "
                     f"{'due' if st.compaction_due else 'not due'}")
        return "\n".join(lines)

    # -- resources -------------------------------------------------------------------

    def _resources_list(self, params: dict[str, Any]) -> dict[str, Any]:
        try:
            mem = self.open_memory()
            shards = mem.shards
        except LeanMemoryError:
            return {"resources": []}
        out = [{"uri": INDEX_URI, "name": "INDEX.md", "title": "Memory index",
                "description": "One line per shard: the only always-loaded file.",
                "mimeType": "text/markdown"}]
        out += [{"uri": SHARD_URI + s, "name": f"{s}.md", "title": f"Shard {s}",
                 "mimeType": "text/markdown"} for s in shards]
        return {"resources": out}

    def _resources_read(self, params: dict[str, Any]) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise _RpcError(INVALID_PARAMS, "uri must be a string")
        try:
            mem = self.open_memory()
            if uri == INDEX_URI:
                text = mem.get_memory()
            elif uri.startswith(SHARD_URI) and uri[len(SHARD_URI):] in mem.shards:
                text = mem.get_memory(uri[len(SHARD_URI):])
            else:
                raise _RpcError(RESOURCE_NOT_FOUND, "resource not found (see resources/list)")
        except LeanMemoryError as exc:
            raise _RpcError(INTERNAL_ERROR, _error_text(exc)) from None
        return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}


def _error_text(exc: LeanMemoryError) -> str:
    from .errors import SecretFound

    text = " ".join(str(exc).split())
    if isinstance(exc, SecretFound):
        text += "".join(f"\n  {line}" for line in exc.finding_lines())
    return text


def _error(msg_id: Any, code: int, message: str) -> dict[str, Any]:
    # The message may quote a method, tool name or uri the client sent: redact it.
    return {"jsonrpc": "2.0", "id": msg_id,
            "error": {"code": code, "message": redact_message(message)}}


_TOO_LONG = b"\0too long"  # never a line: lines are read up to, not past, a newline


def _read_line(stream: IO[bytes]) -> bytes | None:
    """The next line, ``_TOO_LONG`` for an over-long one (drained), None at EOF."""
    line = stream.readline(MAX_LINE + 1)
    if not line:
        return None
    if len(line) > MAX_LINE and not line.endswith(b"\n"):
        while True:  # drain the rest of the line, a bounded chunk at a time
            rest = stream.readline(MAX_LINE)
            if not rest or rest.endswith(b"\n"):
                return _TOO_LONG
    return line


def serve(open_memory: Callable[[], Any], stdin: IO[bytes], stdout: IO[bytes]) -> int:
    """Serve until EOF on ``stdin``; returns the exit code (0)."""
    server = Server(open_memory)
    while True:
        line = _read_line(stdin)
        if line is None:
            return 0
        if line is _TOO_LONG:
            reply: Any = _error(None, INVALID_REQUEST,
                                f"message over {MAX_LINE // (1024 * 1024)} MiB")
        elif not line.strip():
            continue
        else:
            try:
                message = json.loads(line)
            except (ValueError, RecursionError):
                reply = _error(None, PARSE_ERROR, "parse error: not valid JSON")
            else:
                if isinstance(message, list):
                    reply = _error(None, INVALID_REQUEST, "batches are not supported")
                else:
                    try:
                        reply = server.handle(message)
                    except Exception as exc:  # a bug must not end the session
                        msg_id = message.get("id") if isinstance(message, dict) else None
                        reply = _error(msg_id, INTERNAL_ERROR,
                                       f"internal error ({type(exc).__name__})")
        if reply is not None:
            stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
            stdout.flush()


def run(root: str | None) -> int:
    """``lean-memory mcp``: serve this process's stdin and stdout."""
    from .store import Memory

    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # protocol messages only on the real stdout
    try:
        from .layers import check_project

        return serve(lambda: check_project(Memory(root)), sys.stdin.buffer, out)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
