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
* Twelve tools: read (index, shard, search, list, show, status), keep memory correct (put,
  correct, edit, forget), create it (init, for a client with no command line) and propose
  a rule, which waits for the person's yes (no tool approves one, ADR 0031). A result
  carries the text and, for clients that parse, the same facts as ``structuredContent``,
  whose shape every tool declares; every entry that goes out is masked first, as on every
  read path (ADR 0011). What a client gives the model of the tools (names, descriptions,
  input schemas) with the instructions stays under 1,200 tokens, since clients resend it
  with every turn (tests/test_mcp_tools.py measures it).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from . import __version__
from . import format as fmt
from ._record import replace
from .claude_code import INIT_COMMAND
from .errors import (
    InvalidEntry,
    LeanMemoryError,
    NotInitialized,
    SecretFound,
    quoted,
    redact_message,
)
from .folder import check_date
from .hooks import via_plugin
from .layers import PROJECT, check_project, render
from .learn import listing_head, listing_line, propose, waiting
from .manage import find_entry, forget, list_entries, replace_entry
from .recall import search
from .search import render_hits
from .shown import masked
from .store import Memory
from .withhold import count_note

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
    "Durable project memory. Read memory_index first; memory_search with the user's words "
    "before answering about this project. Record what a future session must know with "
    "memory_put, one fact per entry; fix a wrong entry with memory_correct, drop a stale one "
    "with memory_forget. Never store secrets (refused)."
)

_S = {"type": "string"}
_I = {"type": "integer"}
_B = {"type": "boolean"}
_TAGS = {"type": "array", "items": _S}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON Schema object with these fields; a field in ``optional`` may be left out."""
    return {"type": "object", "properties": {**required, **(optional or {})},
            "required": list(required)}


# Output schemas declare every field a reply carries (``optional`` ones only when they have
# a value), so a client can rely on the shape and the SDKs validate it. A client sends the
# model a tool's name, description and inputSchema, not its outputSchema: the per-turn cost
# stays that of the input side (tests/test_mcp_tools.py measures both).
_ENTRY_FIELDS = {"id": _S, "shard": _S, "title": _S}
_ENTRY_OPTIONAL = {"date": _S, "tags": _TAGS, "supersedes": _S}
_ENTRY = _object(_ENTRY_FIELDS, _ENTRY_OPTIONAL)
_SHOWN = _object(_ENTRY_FIELDS, {**_ENTRY_OPTIONAL, "text": _S})
_HITS = _object({"entries": {"type": "array", "items": _object(
    {**_ENTRY_FIELDS, "text": _S, "score": {"type": "number"}, "layer": _S},
    {**_ENTRY_OPTIONAL, "archived": _B})}, "withheld": _I})
_LIST = _object({"entries": {"type": "array", "items": _object(
    {**_ENTRY_FIELDS, "tokens": _I}, {**_ENTRY_OPTIONAL, "superseded": _B})}})
_MARKDOWN = _object({"markdown": _S})
_SHARD_MARKDOWN = _object({"shard": _S, "markdown": _S})
_PROPOSAL = _object({"id": _S, "key": _S, "rule": _S, "target": _S, "origin": _S,
                     "sessions": _I, "suggest_global": _B})
_INIT = _object({"created": {"type": "array", "items": _S}, "shards": {"type": "array",
                                                                      "items": _S}})
_PROPOSED = _object({"id": _S, "rule": _S, "target": _S, "origin": _S})
_STATUS = _object({
    "shards": {"type": "array", "items": _object({"name": _S, "entries": _I, "tokens": _I})},
    "total_tokens": _I, "token_budget": _I, "compaction_due": _B,
    "proposals": {"type": "array", "items": _PROPOSAL}})
# The MCP defaults are readOnly false, destructive true, idempotent false, openWorld true:
# only what differs is said.
_READ = {"readOnlyHint": True, "openWorldHint": False}
_ADD = {"destructiveHint": False, "openWorldHint": False}  # a repeat is counted: not idempotent
_CHANGE = {"idempotentHint": True, "openWorldHint": False}


def _tool(name: str, description: str, props: dict[str, Any], required: tuple[str, ...],
          annotations: dict[str, bool], output: dict[str, Any] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = list(required)
    tool = {"name": name, "description": description, "inputSchema": schema,
            "annotations": annotations}
    if output is not None:
        tool["outputSchema"] = output
    return tool


TOOLS: list[dict[str, Any]] = [
    _tool("memory_index", "INDEX.md: each shard, its entries and tokens. Read it first.",
          {}, (), _READ, _MARKDOWN),
    _tool("memory_get_shard", "A whole shard as Markdown.", {"shard": _S}, ("shard",), _READ,
          _SHARD_MARKDOWN),
    _tool("memory_search", "Entries that best match a plain-text query.",
          {"query": _S, "k": {"type": "integer"}, "archive": {"type": "boolean"}},
          ("query",), _READ, _HITS),
    _tool("memory_list", "Live entries (id, date, title) by shard, tag, since/until "
          "YYYY-MM-DD.", {"shard": _S, "tag": _S, "since": _S, "until": _S}, (), _READ, _LIST),
    _tool("memory_show", "One entry by id.", {"id": _S}, ("id",), _READ, _SHOWN),
    _tool("memory_put", "Add one entry (one fact) to a shard; refused if it holds a credential.",
          {"shard": _S, "text": _S, "title": _S, "tags": _TAGS}, ("shard", "text"), _ADD,
          _ENTRY),
    _tool("memory_correct", "Store the right version of a wrong entry, hiding it "
          "(default shard: corrections).", {"id": _S, "text": _S, "title": _S, "shard": _S},
          ("id", "text"), {**_ADD, "idempotentHint": True}, _ENTRY),
    _tool("memory_edit", "Rewrite an entry's text (and title), same id.",
          {"id": _S, "text": _S, "title": _S}, ("id", "text"), _CHANGE, _ENTRY),
    _tool("memory_forget", "Move a stale entry to the archive, saying why.",
          {"id": _S, "reason": _S}, ("id", "reason"), _CHANGE, _ENTRY),
    _tool("memory_status", "Tokens per shard and total vs budget; is compaction due? Rule "
          "proposals awaiting the person's yes.", {}, (), _READ, _STATUS),
    _tool("memory_init", "Create this project's memory (.agents/memory) if it has none.",
          {}, (), {"destructiveHint": False, "idempotentHint": True, "openWorldHint": False},
          _INIT),
    _tool("memory_propose_rule", "Propose a standing rule (global: for every project); it "
          "waits for the person's yes, nothing is written.",
          {"text": _S, "title": _S, "global": _B}, ("text",),
          {**_ADD, "idempotentHint": True}, _PROPOSED),
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
            reply = getattr(self, "_tool_" + tool["name"].removeprefix("memory_"))(args)
        except LeanMemoryError as exc:
            return {"content": [{"type": "text", "text": _error_text(exc)}], "isError": True}
        text, data = reply
        # the same facts as the text, for clients that parse (every tool declares its shape)
        return {"content": [{"type": "text", "text": text}], "isError": False,
                "structuredContent": data}

    def _tool_index(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        text: str = self.open_memory().get_memory()
        return text, {"markdown": text}

    def _tool_get_shard(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        text: str = self.open_memory().get_memory(args["shard"])
        return text, {"shard": args["shard"], "markdown": text}

    def _tool_search(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        k = args.get("k", 5)
        if not 1 <= k <= MAX_K:
            raise _ArgumentError(f"argument 'k' must be between 1 and {MAX_K}")

        result = search(self.open_memory(), args["query"], k=k,  # every layer (ADR 0034)
                        include_archive=args.get("archive"))
        found, withheld, notes = result.hits, result.withheld, result.notes
        layered = any(h.layer != PROJECT for h in found)
        text = ((render(found) if layered else render_hits([h.hit for h in found]))
                if found else "No entry matches that query.")
        if withheld:
            text += f"\n_({count_note(withheld)})_\n"
        if notes:  # a retriever searched without: the client should know, as the CLI says
            text += f"\n_(note: {redact_message('; '.join(notes))})_\n"
        hits = [{**_entry(h.hit.entry, text=True), "score": round(h.hit.score, 4),
                 "layer": h.layer, **({"archived": True} if h.hit.archived else {})}
                for h in found]
        return text, {"entries": hits, "withheld": withheld}

    def _tool_list(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        since, until = (check_date(args[k]) if k in args else None for k in ("since", "until"))
        tag = args.get("tag", "").casefold()
        rows = [r for r in list_entries(mem, args.get("shard"))
                if (not tag or tag in (t.casefold() for t in r.entry.tags))
                and (since is None or (r.entry.date or "") >= since)
                and (until is None or (r.entry.date or "9") <= until)]
        shown, withheld = masked(mem, [r.entry for r in rows])
        lines = [f"{e.id}  {e.date or '----------'}  {e.shard}  {e.title}"
                 + ("  [superseded]" if r.superseded else "") for r, e in zip(rows, shown,
                                                                           strict=True)]
        if withheld:
            lines.append(f"({count_note(withheld)})")
        data = [{**_entry(e), "tokens": r.tokens, **({"superseded": True} if r.superseded
                                                     else {})}
                for r, e in zip(rows, shown, strict=True)]
        return "\n".join(lines) or "No entry matches.", {"entries": data}

    def _tool_show(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        [entry], _withheld = masked(mem, [find_entry(mem, args["id"])])
        return entry.raw, _entry(entry, text=True)

    def _tool_put(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        entry = self.open_memory().put_entry(args["shard"], args["text"],
                                             title=args.get("title"),
                                             tags=tuple(args.get("tags", ())))
        said = entry.get("said_again")
        how = f"said again ({said} times)" if said else "stored"
        return f"{how}: {entry.shard} {entry.id} ({entry.date}) {entry.title}", _entry(entry)

    def _tool_correct(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        wrong = find_entry(mem, args["id"])
        shard = args.get("shard") or ("corrections" if "corrections" in mem.shards
                                      else wrong.shard)
        entry = mem.put_entry(shard, args["text"], title=args.get("title"),
                              supersedes=wrong.id)
        data = _entry(entry)
        return (f"stored: {entry.shard} {data['id']} ({entry.date}) {entry.title}; it "
                f"supersedes {data['supersedes']}"), data

    def _tool_edit(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        old = find_entry(mem, args["id"])
        title = " ".join(args.get("title", old.title).split())
        if not title or not args["text"].strip():
            raise InvalidEntry("title and text must not be empty (to drop an entry: "
                               "memory_forget)")
        new = fmt.with_raw(replace(old, title=title, text=args["text"]))
        entry = replace_entry(mem, old.id, new.raw, expected_raw=old.raw)
        return f"edited: {entry.shard} {entry.id} {entry.title}", _entry(entry)

    def _tool_forget(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        [entry], _withheld = masked(mem, [forget(mem, args["id"], reason=args["reason"])])
        return (f"forgotten: {entry.id} moved to archive/{entry.shard}.md ({entry.title})",
                _entry(entry))

    def _tool_status(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        st = self.open_memory().status()
        lines = [f"{s.name}: {s.entries} entr{'y' if s.entries == 1 else 'ies'}, "
                 f"~{s.tokens} tokens" for s in st.shards]
        lines.append(f"total ~{st.total_tokens} of {st.token_budget} tokens; compaction "
                     f"{'due' if st.compaction_due else 'not due'}")
        data = {"shards": [{"name": s.name, "entries": s.entries, "tokens": s.tokens}
                           for s in st.shards],
                "total_tokens": st.total_tokens, "token_budget": st.token_budget,
                "compaction_due": st.compaction_due}
        proposals, shown = _proposals(self.open_memory())
        if proposals:
            lines.append(listing_head(len(proposals)))
            lines += shown
        data["proposals"] = proposals
        return "\n".join(lines), data

    def _tool_init(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        mem = self.open_memory()
        made = mem.init()
        created = [os.path.relpath(p, mem.root) for p in made]
        text = (f"created {', '.join(created)}" if created else "memory was there already") \
            + f"; shards: {', '.join(mem.shards)}"
        return text, {"created": created, "shards": list(mem.shards)}

    def _tool_propose_rule(self, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        # the person says yes on the command line or the page; no tool approves (ADR 0031)
        p = propose(self.open_memory(), args["text"], title=args.get("title", ""),
                    to_global=bool(args.get("global", False)), via="MCP")
        return (f"proposed {p.id} ({p.target}): {p.rule} -- it waits for the person's yes "
                f"(`lean-memory promote {p.id} --yes`)"), {
                    "id": p.id, "rule": p.rule, "target": p.target, "origin": p.origin}

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


def _proposals(mem: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """The rule proposals waiting for the person (ADR 0023), by the ids `promote` takes,
    and their listing lines; read only: no tool can approve one. Nothing when the session
    layer cannot be read."""
    try:
        found = waiting(mem)
    except (LeanMemoryError, OSError, ValueError):
        return [], []
    return ([{"id": p.id, "key": p.key, "rule": p.rule, "target": p.target,
              "origin": p.origin, "sessions": len(p.sessions),
              "suggest_global": p.suggest_global} for p in found],
            [listing_line(p) for p in found])


def _entry(entry: Any, *, text: bool = False) -> dict[str, Any]:
    """An entry as structured content (already masked by the caller when it is read; ids
    are quoted: a hand-written id is whatever the file says)."""
    out = {"id": quoted(entry.id), "shard": entry.shard, "title": entry.title}
    if entry.date:
        out["date"] = entry.date
    if entry.tags:
        out["tags"] = list(entry.tags)
    if entry.supersedes:
        out["supersedes"] = quoted(entry.supersedes)
    if text:
        out["text"] = entry.text
    return out


def _error_text(exc: LeanMemoryError) -> str:
    text = " ".join(str(exc).split())
    if isinstance(exc, NotInitialized):  # its user may have no command line at all
        text += " (or call memory_init"
        text += (f"; in Claude Code the plugin's {INIT_COMMAND} does it too)" if via_plugin()
                 else ")")
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
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # protocol messages only on the real stdout
    try:
        return serve(lambda: check_project(Memory(root)), sys.stdin.buffer, out)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
