"""A backend for Anthropic's client-side memory tool (``memory_20250818``) on the store.

The tool gives the model six file commands under ``/memories`` and leaves storage to the
client. Here ``/memories`` is ``.agents/memory``, so what Claude writes lands in the shards,
scanned and lean:

* ``view`` lists INDEX.md, the shards and the archive, or shows one file with line numbers.
* ``create``, ``str_replace`` and ``insert`` write only shards, under the writers' lock, and
  only when every entry they add or change passes the same checks as a put: no credential,
  no entry over ``max_entry_tokens``. INDEX.md (generated) and the archive are read-only.
* ``create`` of a new ``/memories/<name>.md`` makes a new shard (the name checked, the shard
  added to ``[memory] shards`` in config.toml, INDEX.md regenerated): the model's first move
  succeeds. ``create`` over a shard replaces its text; the entries it drops go to the archive.
* ``delete`` never destroys: the shard's entries move to the archive; a default shard keeps
  its preamble, a shard made since (by a person or a model) is removed from the folder and
  the config. ``rename`` never overwrites; the shard's archive moves with it.
* Paths are checked before anything is touched: the ``/memories`` prefix, no ``..`` in any
  spelling (``..\\``, ``%2e%2e%2f``), no absolute or empty segments, no symlinks.
* **Layers** (ADR 0022): ``/memories/global/`` is the person's global store, the same
  commands on its files; everything else is the project's. Only the environment says where
  the global store is: a ``global`` folder the repository holds is never shown or written
  (``/memories/global`` always means the person's). Writes go to the project unless their
  path is under ``/memories/global/`` (a ``create`` there starts the store). The views
  follow search's precedence: a project entry that says what a global entry says is shown
  as a one-line pointer to it (the global one wins), and a global entry that a project
  entry supersedes is shown as a pointer in this project's views only. A file never moves
  between the layers.

:class:`MemoryToolHandler` is plain Python (``execute(dict) -> str``, errors raise
:class:`MemoryToolError`); :func:`anthropic_memory_tool` wraps it in the ``anthropic`` SDK's
``BetaAbstractMemoryTool`` for ``client.beta.messages.run_tools`` (the SDK stays optional).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from . import format as fmt
from ._record import replace
from .config import DEFAULT_SHARDS, RESERVED, SHARD_NAME, with_shards
from .errors import LeanMemoryError, SecretFound, quoted
from .folder import today
from .fsutil import UnsafePath, atomic_write, check_folders
from .layers import (
    check_project,
    global_memory,
    global_texts,
    open_global,
    project_overrides,
    same_text,
)
from .learn import listing_head, listing_line, propose, waiting
from .manage import archive_entries
from .notes import as_entries
from .secrets import scan_text
from .shown import PREAMBLE_WITHHELD, notice, shown_path, withheld_spans
from .tokens import estimate_tokens
from .writelog import note_writes

if TYPE_CHECKING:
    from .format import Entry, Shard
    from .store import Memory

PREFIX = "/memories"
GLOBAL_DIR = "global"  # /memories/global: the person's global store
WRITES = frozenset({"create", "str_replace", "insert", "delete", "rename"})
LINE_WIDTH = 6
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_PATH = 1024  # characters; no shard or archive path comes near it
MAX_LINES_LISTED = 10  # occurrences named in a str_replace refusal
MAX_SHARDS = 30  # a model that makes a file per topic is told to reuse one past this


class MemoryToolError(LeanMemoryError):
    """A memory-tool command that cannot be carried out; the message is for the model."""


def _replaced(current: str, command: dict[str, Any], path: str) -> tuple[str, int]:
    """``current`` after a ``str_replace`` command, and where the change is."""
    old, new = command.get("old_str"), command.get("new_str")
    if not isinstance(old, str) or not old or not isinstance(new, str):
        raise MemoryToolError("old_str must be a non-empty string and new_str a string")
    at = current.find(old)
    again = current.find(old, at + 1) if at >= 0 else -1
    if at < 0:
        raise MemoryToolError(f"No replacement was performed, old_str `{quoted(old)}` did not "
                              f"appear verbatim in {quoted(path)}.")
    if again >= 0:
        raise MemoryToolError(f"No replacement was performed. Multiple occurrences of old_str "
                              f"`{quoted(old)}` in lines: {_occurrences(current, old)}. "
                              "Please ensure it is unique")
    return current[:at] + new + current[at + len(old):], at


def _inserted(current: str, command: dict[str, Any]) -> tuple[str, str]:
    """``current`` after an ``insert`` command, and the text inserted (made entries of its
    own when it follows the last entry)."""
    line, text = command.get("insert_line"), command.get("insert_text")
    if not isinstance(line, int) or isinstance(line, bool) or not isinstance(text, str):
        raise MemoryToolError("insert_line must be an integer and insert_text a string")
    lines = current.split("\n")
    if current.endswith("\n"):
        lines.pop()  # the empty string after the last newline is not a line
    if line < 0 or line > len(lines):
        raise MemoryToolError(f"Invalid `insert_line` parameter: {line}. It should be "
                              f"within the range [0, {len(lines)}].")
    if line == len(lines) and _after_entries(current):
        text = as_entries(text)  # its own entries, not the tail of the last one
    lines.insert(line, text.rstrip("\n"))
    return "\n".join(lines) + "\n", text


def _size(n: int) -> str:
    if n < 1024:
        return f"{n}B"
    size = float(n)
    for unit in ("K", "M"):
        size /= 1024
        if size < 1024:
            return f"{size:.1f}{unit}"
    return f"{size / 1024:.1f}G"


class MemoryToolHandler:
    """The six memory-tool commands over ``mem`` (a :class:`lean_memory.Memory`)."""

    def __init__(self, mem: Memory, *, layers: bool = True, prefix: str = PREFIX,
                 project: Memory | None = None) -> None:
        self.mem = mem
        self.layers = layers  # the project's handler: /memories/global is the global store
        self.prefix = prefix
        self.project = project  # the global store's handler: the project it is seen from

    # -- paths -----------------------------------------------------------------------

    def _parts(self, path: Any) -> tuple[str, ...]:
        """The path's segments below the prefix, after every check; () is the prefix."""
        parts = self._decode(path)

        # No ``..`` segment and no link from .agents down to the target: it stays inside.
        try:
            check_folders(self.mem.dir.joinpath(*parts))
        except UnsafePath:
            raise MemoryToolError(f"Path {quoted(path)} goes through a symlink; refused") from None
        if parts and parts[0].startswith("."):
            raise MemoryToolError(f"{quoted(path)}: hidden files are not part of memory")
        return parts

    def _decode(self, path: Any) -> tuple[str, ...]:
        """The path's segments below the prefix, checked as text only (nothing on disk)."""
        if not isinstance(path, str) or not path:
            raise MemoryToolError("path must be a non-empty string starting with /memories")
        if len(path) > MAX_PATH:
            raise MemoryToolError(f"path is too long ({len(path):,} characters; at most "
                                  f"{MAX_PATH:,}): {quoted(path, 60)}")
        decoded = path
        for _ in range(3):  # %252e%252e: decoded twice is still traversal
            decoded = unquote(decoded)
        if "\\" in decoded or "\0" in decoded or any(ord(c) < 32 for c in decoded):
            raise MemoryToolError(f"invalid path {quoted(repr(path))}: backslashes and control "
                                  "characters are not allowed")
        if decoded != PREFIX and not decoded.startswith(PREFIX + "/"):
            raise MemoryToolError(f"Path must start with /memories, got: {quoted(path)}")
        rest = decoded[len(PREFIX):].strip("/")
        parts = tuple(rest.split("/")) if rest else ()
        if any(p in ("", ".", "..") for p in parts):
            raise MemoryToolError(f"Path {quoted(path)} would escape /memories directory")
        below = tuple(p for p in self.prefix[len(PREFIX):].split("/") if p)
        if parts[:len(below)] != below:
            raise MemoryToolError(f"Path must start with {self.prefix}, got: {quoted(path)}")
        return parts[len(below):]

    def _shard_of(self, parts: tuple[str, ...], path: str, verb: str, *,
                  new: bool = False) -> str:
        """The shard that ``parts`` names, for a command that writes it; with ``new``, a
        name that is not a shard yet but could be one."""
        if not parts:
            raise MemoryToolError(f"cannot {verb} the /memories directory itself; name a file "
                                  f"such as {self.prefix}/{self.mem.shards[0]}.md")
        if parts == ("INDEX.md",):
            raise MemoryToolError("INDEX.md is generated from the shards; write a shard "
                                  "instead and the index follows")
        if parts[0] == "archive":
            raise MemoryToolError("the archive is read-only: it keeps originals")
        stem = parts[-1].removesuffix(".md")
        if len(parts) == 1 and parts[0].endswith(".md") and stem in self.mem.shards:
            return stem

        suggestion = _shard_name("-".join((*parts[:-1], os.path.splitext(parts[-1])[0])))
        if not new:
            shards = ", ".join(f"{self.prefix}/{s}.md" for s in self.mem.shards)
            raise MemoryToolError(f"The path {quoted(path)} does not exist; the memory files "
                                  f"are {shards} (or create {self.prefix}/{suggestion}.md)")
        if (len(parts) != 1 or not parts[0].endswith(".md") or stem in RESERVED
                or not SHARD_NAME.fullmatch(stem)):
            raise MemoryToolError(
                f"cannot {verb} {quoted(path)}: memory files are Markdown files directly in "
                f"{self.prefix} named with lowercase letters, digits, '-' and '_' (at most 40); "
                f"use {self.prefix}/{suggestion}.md")
        return stem

    # -- commands --------------------------------------------------------------------

    def execute(self, command: dict[str, Any]) -> str:
        """Run one command given as the tool's input (``{"command": "view", ...}``)."""
        if not isinstance(command, dict):
            raise MemoryToolError("the command must be an object")
        name = command.get("command")
        handler = {"view": self.view, "create": self.create, "str_replace": self.str_replace,
                   "insert": self.insert, "delete": self.delete,
                   "rename": self.rename}.get(name if isinstance(name, str) else "")
        if handler is None:
            raise MemoryToolError(f"unknown command {quoted(repr(name), 40)}")
        if self.layers:
            check_project(self.mem)  # a project that is the global store is refused
            if self._addresses_global(command):
                if name in WRITES:  # an agent's rule for every project waits for a yes
                    return self._propose_global(command)
                return self._global(False).execute(command)
        self.mem._require_init()
        self._reload()
        try:
            return handler(command)
        except OSError as exc:  # one clear line, not the OS's (it quotes the full path)
            path = command.get("path", command.get("old_path"))
            reason = exc.strerror or type(exc).__name__
            raise MemoryToolError(f"cannot {name} {quoted(str(path), 80)}: {reason}") from None

    def _addresses_global(self, command: dict[str, Any]) -> bool:
        """Whether the command's path (both paths of a rename) is under /memories/global."""
        keys = ("old_path", "new_path") if command.get("command") == "rename" else ("path",)
        where = {bool(self._decode(command.get(k))[:1] == (GLOBAL_DIR,)) for k in keys}
        if len(where) > 1:
            raise MemoryToolError("a file cannot move between your global memory "
                                  f"({PREFIX}/{GLOBAL_DIR}) and the project's: create it "
                                  "there and delete it here")
        return where == {True}

    def _propose_global(self, command: dict[str, Any]) -> str:
        """A write under /memories/global, kept as proposals (one per entry it adds or
        changes) that wait for the person's yes: nothing an agent writes reaches every
        project, or another one, by itself (ADR 0023)."""
        name, path = command.get("command"), command.get("path")
        if name not in ("create", "str_replace", "insert"):
            raise MemoryToolError(f"only the person changes their global memory ({PREFIX}/"
                                  f"{GLOBAL_DIR}); you may propose an entry there with create, "
                                  "str_replace or insert, and it waits for their yes")
        g = global_memory()
        if TYPE_CHECKING:  # layers.FACADE holds the facade's class: a Memory
            assert isinstance(g, Memory)
        view = MemoryToolHandler(g, layers=False, prefix=f"{PREFIX}/{GLOBAL_DIR}",
                                 project=self.mem)
        shard = view._shard_of(view._decode(path), str(path), "propose to", new=True)
        if shard not in g.shards:
            raise MemoryToolError(f"propose entries for one of {view._names()}")
        before = g.read_text(g.dir / f"{shard}.md") if g.dir.is_dir() else ""
        if name == "create":
            after = command.get("file_text")
            if not isinstance(after, str):
                raise MemoryToolError("file_text must be a string")
        elif name == "str_replace":
            after = _replaced(before, command, str(path))[0]
        else:
            after = _inserted(before, command)[0]
        # an entry whose text the global store already holds (whatever its title) is no
        # news; Markdown without `## ` entries is made entries as a write would make them
        was = fmt.parse(before, shard)
        old = {" ".join(e.text.split()) for e in was.entries}
        added = [e for e in fmt.parse(as_entries(after, keep=was.preamble), shard).entries
                 if " ".join(e.text.split()) not in old]
        if not added:
            return (f"Nothing to propose: {quoted(str(path))} would add no entry to your "
                    "global memory (nothing was written)")
        made = [propose(self.mem, e.text, title=e.title, shard=shard, to_global=True)
                for e in added]
        ids = ", ".join(p.id for p in made)
        return (f"Nothing was written to {PREFIX}/{GLOBAL_DIR} (the person's memory for every "
                f"project): proposed {ids}; it waits for the person's yes "
                f"(`lean-memory promote {made[0].id} --yes`, which only they can run)")

    def _global(self, create: bool) -> MemoryToolHandler:
        """The handler of the person's global store (its place from the environment only),
        seen from this project; created for a write."""
        g = global_memory(create=create)
        if TYPE_CHECKING:  # layers.FACADE holds the facade's class: a Memory
            assert isinstance(g, Memory)
        if not g.dir.is_dir():
            raise MemoryToolError(f"there is no global memory yet; create {PREFIX}/"
                                  f"{GLOBAL_DIR}/conventions.md to start it (rules for "
                                  "every project)")
        return MemoryToolHandler(g, layers=False, prefix=f"{PREFIX}/{GLOBAL_DIR}",
                                 project=self.mem)

    def view(self, command: dict[str, Any]) -> str:
        path = command.get("path")
        parts = self._parts(path)
        target = self.mem.dir.joinpath(*parts)
        try:
            st = os.lstat(target)
        except (FileNotFoundError, NotADirectoryError):
            raise MemoryToolError(f"The path {quoted(str(path))} does not exist. Please "
                                  "provide a valid path.") from None
        if stat.S_ISDIR(st.st_mode):
            return self._listing(quoted(str(path)), parts)
        if not stat.S_ISREG(st.st_mode):
            raise MemoryToolError(f"Unsupported file type for {quoted(str(path))}")
        lines = self._read(parts).split("\n")
        start, rng = 1, command.get("view_range")
        if rng is not None:
            if (not isinstance(rng, list) or len(rng) != 2 or
                    not all(isinstance(n, int) and not isinstance(n, bool) for n in rng)):
                raise MemoryToolError("view_range must be two integers [start, end]")
            first, last = rng
            if first < 1 or first > len(lines) or (last != -1 and last < first):
                raise MemoryToolError(f"Invalid view_range {rng}: lines are 1 to {len(lines)}")
            start = first
            lines = lines[first - 1:] if last == -1 else lines[first - 1:last]
        numbered = [f"{n:>{LINE_WIDTH}}\t{line}" for n, line in enumerate(lines, start)]
        return (f"Here's the content of {quoted(str(path))} with line numbers:\n"
                + "\n".join(numbered))

    def _listing(self, path: str, parts: tuple[str, ...]) -> str:
        folder = self.mem.dir.joinpath(*parts)
        rows: list[tuple[int, str]] = []

        def walk(node: os.PathLike[str] | str, rel: str, depth: int) -> None:
            for name in sorted(os.listdir(node)):
                if name.startswith(".") or (self.layers and not rel and not parts
                                            and name == GLOBAL_DIR):
                    continue  # /memories/global is the person's store, never the repository's
                full = os.path.join(node, name)
                st = os.lstat(full)
                shown = f"{rel}{name}"
                if stat.S_ISDIR(st.st_mode):
                    rows.append((st.st_size, shown + "/"))
                    if depth < 2:
                        walk(full, shown + "/", depth + 1)
                elif stat.S_ISREG(st.st_mode):
                    rows.append((st.st_size, shown))

        walk(folder, "", 1)
        if self.layers and not parts:
            g = open_global()
            if g is not None:
                rows.append((os.lstat(g.dir).st_size, f"{GLOBAL_DIR}/"))
                walk(g.dir, f"{GLOBAL_DIR}/", 2)
        head = (f"Here're the files and directories up to 2 levels deep in {path}, "
                "excluding hidden items:")
        base = path.rstrip("/")
        lines = [f"{_size(os.lstat(folder).st_size)}\t{base}"]
        lines += [f"{_size(size)}\t{base}/{quoted(rel)}" for size, rel in rows]
        return head + "\n" + "\n".join(lines) + (self._proposals() if self.layers and not parts
                                                 else "")

    def _proposals(self) -> str:
        """The rule proposals waiting for the person (ADR 0023), listed, never approvable
        here; '' when none (or the session layer cannot be read)."""
        try:
            found = waiting(self.mem)
        except (LeanMemoryError, OSError, ValueError):
            return ""
        if not found:
            return ""
        return f"\n\n{listing_head(len(found))}\n" + "\n".join(map(listing_line, found))

    def _read(self, parts: tuple[str, ...]) -> str:
        path = self.mem.dir.joinpath(*parts)
        if path.stat().st_size > MAX_FILE_BYTES:
            raise MemoryToolError(f"{self.prefix}/{'/'.join(parts)} is too large to show")

        text = shown_path(self.mem, path)
        if len(parts) == 1 and parts[0].endswith(".md") and parts[0][:-3] in self.mem.shards:
            text = self._layered(parts[0][:-3], text)
        return text

    def _layered(self, shard: str, text: str) -> str:
        """A shard as this project sees it over the layers: a project entry that says what
        a global entry says, and a global entry this project supersedes, each shown as a
        pointer (hidden, never deleted: the file keeps it)."""
        if self.layers:
            g = open_global()
            texts = global_texts(g) if g is not None else {}
            if not texts:
                return text

            def pointer(e: Entry) -> str | None:
                said = same_text(e, texts)
                return None if said is None else (
                    f"> [global wins] says what `{said[0]}` in {PREFIX}/{GLOBAL_DIR}/"
                    f"{said[1]}.md says; shown from there\n")
        elif self.project is not None:
            overrides = project_overrides(self.project)
            if not overrides:
                return text

            def pointer(e: Entry) -> str | None:
                by = overrides.get(e.id)
                return None if by is None else (
                    f"> [superseded in this project] by `{by}` in the project's memory; "
                    "hidden in this project's views only\n")
        else:
            return text
        parsed = fmt.parse(text, shard)
        if parsed.preamble + "".join(e.raw for e in parsed.entries) != text:
            return text
        out = [parsed.preamble]
        for e in parsed.entries:
            note = pointer(e)
            out.append(e.raw if note is None else
                       e.raw.split("\n", 1)[0] + "\n" + note + "\n")
        return "".join(out)

    def create(self, command: dict[str, Any]) -> str:
        """A new shard, or a shard's text replaced (the entries it drops archived)."""
        path, text = command.get("path"), command.get("file_text")
        if not isinstance(text, str):
            raise MemoryToolError("file_text must be a string")
        shard = self._shard_of(self._parts(path), str(path), "create", new=True)
        with self.mem.lock():
            self._reload()
            before = self.mem.read_text(self.mem.dir / f"{shard}.md")
            made = shard not in self.mem.shards
            if made and len(self.mem.shards) >= MAX_SHARDS:
                raise MemoryToolError(
                    f"memory has {len(self.mem.shards)} files already; add this as entries "
                    f"(`## Title` sections) to the closest of them: {self._names()}")
            written = self._write(shard, before, text, made=made)
        verb = "created" if not before else "replaced (its removed entries are archived)"
        return f"File {verb} successfully at: {quoted(str(path))}{_stored(text, written)}"

    def str_replace(self, command: dict[str, Any]) -> str:
        path = command.get("path")
        shard = self._shard_of(self._parts(path), str(path), "edit")
        with self.mem.lock():
            current = self._current(shard, str(path))
            updated, at = _replaced(current, command, str(path))
            written = self._write(shard, current, updated)
            if written != updated:
                return "The memory file has been edited" + _stored(updated, written)
            snippet = self._snippet(shard, updated, at)
        return ("The memory file has been edited. Here is the snippet showing the change "
                "(with line numbers):\n" + snippet)

    def _snippet(self, shard: str, text: str, at: int) -> str:
        """The numbered lines around offset ``at`` of the shard as written, each piece that
        the read side withholds shown as its notice (a credential never comes back out)."""
        read, spans = withheld_spans(self.mem, self.mem.shard_path(shard), shard)
        if read != text:  # changed by hand since: nothing shown rather than the wrong lines
            return "(the file changed since; view it to see the edit)"
        changed = text.count("\n", 0, at)
        lines = text.split("\n")
        first, last = max(0, changed - 2), min(len(lines), changed + 3)
        shown: dict[int, str | None] = {}  # line -> its notice, or None: not shown
        line = pos = 0
        for start, end, entry_id in spans:  # in file order: lines are counted once
            line += text.count("\n", pos, start)
            end_line = line + text.count("\n", start, max(start, end - 1))
            pos = start
            if end_line < first:
                continue
            if line >= last:
                break
            stand_in = notice(entry_id).rstrip("\n") if entry_id else PREAMBLE_WITHHELD
            for n in range(max(line, first), min(end_line + 1, last)):
                shown[n] = stand_in if n == max(line, first) else None
        return "\n".join(f"{n + 1:>{LINE_WIDTH}}\t{shown.get(n, lines[n])}"
                         for n in range(first, last) if shown.get(n, "") is not None)

    def insert(self, command: dict[str, Any]) -> str:
        path = command.get("path")
        shard = self._shard_of(self._parts(path), str(path), "edit")
        with self.mem.lock():
            current = self._current(shard, str(path))
            given = command.get("insert_text")
            updated, text = _inserted(current, command)
            written = self._write(shard, current, updated)
        note = _stored(str(given), text) or _stored(updated, written)
        return f"The file {quoted(str(path))} has been edited{note}."

    def delete(self, command: dict[str, Any]) -> str:
        path = command.get("path")
        shard = self._shard_of(self._parts(path), str(path), "delete")
        with self.mem.lock():
            self._reload()
            parsed = fmt.parse(self._current(shard, str(path)), shard)
            removed = shard not in DEFAULT_SHARDS and len(self.mem.shards) > 1
            self._archive(parsed, parsed.entries, "" if removed else parsed.preamble)
            if removed:  # a made shard, now empty: gone from the folder and the config
                self._set_shards(tuple(s for s in self.mem.shards if s != shard))
                os.unlink(self.mem.dir / f"{shard}.md")
                self.mem.write_index({})
        moved = len(parsed.entries)
        where = f"{self.prefix}/archive/{shard}.md"
        kept = "" if removed else " (the file keeps its heading)"
        return (f"Successfully deleted {quoted(str(path))}{kept}: its {moved} "
                f"entr{'y' if moved == 1 else 'ies'} moved to {where} (nothing is destroyed)")

    def rename(self, command: dict[str, Any]) -> str:
        old, new = command.get("old_path"), command.get("new_path")
        src = self._shard_of(self._parts(old), str(old), "rename")
        dst = self._shard_of(self._parts(new), str(new), "rename to", new=True)

        with self.mem.lock():
            self._reload()
            current = self._current(src, str(old))
            target = self.mem.dir / f"{dst}.md"
            if os.path.lexists(target):
                raise MemoryToolError(f"The destination {quoted(str(new))} already exists")
            archive = self.mem.shard_path(src, archive=True)
            moved = self.mem.archive_dir / f"{dst}.md"
            has_archive = os.path.lexists(archive)
            if has_archive and os.path.lexists(moved):
                raise MemoryToolError(f"{self.prefix}/archive/{dst}.md already exists (entries "
                                      f"of an earlier {dst}); choose another name")
            # copies first, the config, then the originals go: a crash leaves a copy too many
            atomic_write(target, current, root=self.mem.agents_dir)
            if has_archive:
                atomic_write(moved, self.mem.read_text(archive), root=self.mem.agents_dir)
            self._set_shards(tuple(dst if s == src else s for s in self.mem.shards
                                   if s != dst))
            if has_archive:
                os.unlink(archive)
            os.unlink(self.mem.dir / f"{src}.md")
            self.mem.write_index({})
        return f"Successfully renamed {quoted(str(old))} to {quoted(str(new))}"

    def _archive(self, shard: Shard, gone: Sequence[Entry], preamble: str) -> None:
        """Move ``gone`` to the archive, and the shard's preamble too (as an entry) when
        the model wrote prose there that ``preamble`` replaces: nothing is lost."""
        old = shard.preamble
        prose = [line for line in old.splitlines() if line.strip() and not line.startswith("#")]
        if old != preamble and prose and old != self.mem._preamble(shard.name):
            taken = {e.id for e in (*shard.entries, *self.mem.entries(shard.name, archive=True))}
            day = today()
            title = f"Text above the entries of {shard.name}.md, replaced {day}"
            gone = [*gone, fmt.with_raw(fmt.Entry(
                id=fmt.new_id(shard.name, title, old, day, taken), shard=shard.name,
                title=title, text=old.strip("\n") + "\n", date=day))]
        if gone:
            archive_entries(self.mem, shard, gone)

    def _names(self) -> str:
        return ", ".join(f"{self.prefix}/{s}.md" for s in self.mem.shards)

    def _set_shards(self, shards: tuple[str, ...]) -> None:
        """Write ``[memory] shards`` into config.toml (edited in place) and reload it."""
        path = self.mem.agents_dir / "config.toml"
        atomic_write(path, with_shards(self.mem.read_text(path), shards),
                     root=self.mem.agents_dir)
        self._reload()

    def _reload(self) -> None:
        """Read config.toml anew (a cached property): another process, or this command,
        may have added or removed a shard; a list read before the lock would undo that."""
        self.mem.__dict__.pop("config", None)

    # -- writing -----------------------------------------------------------------------

    def _current(self, shard: str, path: str) -> str:
        target = self.mem.shard_path(shard)
        if not target.exists():
            raise MemoryToolError(f"The path {quoted(str(path))} does not exist. Please "
                                  "provide a valid path.")
        text: str = self.mem.read_text(target)
        return text

    def _write(self, shard: str, before: str, after: str, *, made: bool = False) -> str:
        """Check what ``after`` adds or changes against ``before``, then write it, its notes
        made into entries (:mod:`lean_memory.notes`); entries of ``before`` that it drops
        go to the archive first. ``made``: a new shard, added to the config (and taken out
        again when INDEX.md cannot hold it). Returns the text written."""
        if len(after.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
            raise MemoryToolError("the file would be too large; keep reference material in "
                                  "the repository's docs")
        previous = fmt.parse(before, shard)
        old = {e.raw for e in previous.entries}
        parsed = _stamped(fmt.parse(as_entries(after, keep=previous.preamble), shard), old)
        after = parsed.render()
        self._check(shard, parsed, [e for e in parsed.entries if e.raw not in old],
                    before_preamble=previous.preamble)
        if made:
            shards = self.mem.shards
            self._set_shards((*shards, shard))
            try:
                self.mem.write_index({shard: parsed})  # raises when INDEX.md cannot hold it
            except LeanMemoryError as exc:
                self._set_shards(shards)
                raise MemoryToolError(f"{exc}; add these entries to one of {self._names()} "
                                      "instead") from None
        kept = {e.id for e in parsed.entries}
        self._archive(previous, [e for e in previous.entries if e.id not in kept],
                      parsed.preamble)
        atomic_write(self.mem.dir / f"{shard}.md", after, root=self.mem.agents_dir)
        self.mem.write_index({shard: parsed})

        note_writes(self.mem.root, [e for e in parsed.entries if e.raw not in old],
                    enabled=self.mem.config.capture_asks)
        return after

    def _check(self, shard: str, parsed: Shard, changed: list[Entry], *,
               before_preamble: str) -> None:
        allow = self.mem.allowlist
        pieces = [(e.raw, f"entry {quoted(repr(e.title), 60)}") for e in changed]
        if parsed.preamble != before_preamble:
            pieces.append((parsed.preamble, "the preamble"))
        limit = self.mem.config.max_entry_tokens
        for text, what in pieces:
            found = scan_text(text, allow=allow)
            if found:
                raise SecretFound(found, where=what)
            if "\0" in text:
                raise MemoryToolError(f"{what} contains a NUL character")
            size = estimate_tokens(text)
            if size > limit:
                raise MemoryToolError(f"{what} is ~{size:,} tokens, over max_entry_tokens="
                                      f"{limit:,}; split it into several entries")


def _stamped(parsed: Shard, old: set[str]) -> Shard:
    """``parsed`` with an id and today's date stamped on each entry it adds without
    metadata, as a put gives them: a later edit of the entry keeps its id (an entry whose
    id is derived from its text would become a new one, its old text archived)."""

    new = {id(e) for e in parsed.entries if not e.has_meta and e.raw not in old}
    if not new:
        return parsed
    day = today()
    taken = {e.id for e in parsed.entries}
    out = []
    for e in parsed.entries:
        if id(e) in new:
            e = replace(e, id=fmt.new_id(parsed.name, e.title, e.text, day, taken), date=day)
            taken.add(e.id)
            e = fmt.stamp(e, [("id", fmt.meta_escape(e.id)), ("date", day)])
        out.append(e)
    return replace(parsed, entries=tuple(out))


def _after_entries(text: str) -> bool:
    """Whether text appended to ``text`` would land in its last entry (outside code)."""

    return bool(fmt.entry_offsets(text)) and not fmt.open_fence_at_end(text)


def _stored(given: str, written: str) -> str:
    """What the reply adds when notes were made into entries (the model's next edit must
    start from the file as it is now)."""
    if written == given:
        return ""

    n = len(fmt.entry_offsets(written)) - len(fmt.entry_offsets(given))
    if n <= 0:  # only ``## `` entries were given: they got their id and date, no new entry
        return ("; its entries were given an id and a date (a metadata line under each "
                "heading): view the file before editing it")
    return (f"; its notes were stored as {n} entr{'y' if n == 1 else 'ies'} (a `## ` heading "
            "each, which search and recall find): view the file before editing it")


def _shard_name(name: str) -> str:
    """The nearest valid shard name to ``name`` (for a refusal's suggestion)."""

    out = "".join(c if c.isascii() and (c.isalnum() or c in "-_") else "-"
                  for c in name.lower()).strip("-_")
    out = "-".join(p for p in out.split("-") if p)[:40].rstrip("-_")
    if not out or not out[0].isalpha():
        out = ("notes-" + out)[:40].rstrip("-_")
    return out + "-notes" if out in RESERVED else out


def _occurrences(text: str, old: str) -> str:
    """The lines where ``old`` occurs in ``text`` (the first few, and how many more), in
    one pass: the file is counted once, not once per occurrence."""
    shown: list[str] = []
    total = line = pos = 0
    at = text.find(old)
    while at >= 0:
        total += 1
        if len(shown) < MAX_LINES_LISTED:
            line += text.count("\n", pos, at)
            pos = at
            shown.append(str(line + 1))
        else:  # only the count is wanted now
            total += text.count(old, at + 1)
            break
        at = text.find(old, at + 1)
    more = total - len(shown)
    return ", ".join(shown) + (f" and {more:,} more" if more else "")


def anthropic_memory_tool(mem: Memory) -> Any:
    """The handler as the ``anthropic`` SDK's memory tool (``BetaAbstractMemoryTool``),
    ready for ``client.beta.messages.run_tools(tools=[...])``. Needs ``anthropic``."""
    from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError

    handler = MemoryToolHandler(mem)

    def call(command: Any) -> str:
        try:
            return handler.execute(command.model_dump(exclude_none=True))
        except SecretFound as exc:
            raise ToolError(f"{exc} ({'; '.join(exc.finding_lines())})") from None
        except LeanMemoryError as exc:
            raise ToolError(" ".join(str(exc).split())) from None

    class LeanMemoryTool(BetaAbstractMemoryTool):  # type: ignore[misc,unused-ignore]
        """Anthropic's memory tool, stored in lean_memory's shards."""

        def view(self, command: Any) -> str:
            return call(command)

        def create(self, command: Any) -> str:
            return call(command)

        def str_replace(self, command: Any) -> str:
            return call(command)

        def insert(self, command: Any) -> str:
            return call(command)

        def delete(self, command: Any) -> str:
            return call(command)

        def rename(self, command: Any) -> str:
            return call(command)

    return LeanMemoryTool()
