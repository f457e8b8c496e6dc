"""Where agents meet the memory: the per-prompt digest, the hook command, agent setup.

* The block a hook prints is :func:`lean_memory.recall.injected`: at session start the shard
  overview and the standing rules, before each prompt the rules and the best matches.
* :func:`run_hook` is ``python -m lean_memory hook EVENT``, in :mod:`lean_memory.hooks`
  (named here too): a prompt loads that module, not this one (ADR 0039).
* :func:`setup_agent` writes the hook configuration (merged into an existing file) and a
  short instructions section in AGENTS.md, which CLAUDE.md imports (``@AGENTS.md``).

See ADR 0006 for the formats relied on and why.
"""

from __future__ import annotations

import os
import sys

from ._record import suppress
from .claude_code import our_hook, plugin_enabled
from .digest import RULES_SHARD
from .errors import LeanMemoryError
from .fsutil import MAX_CONFIG_BYTES, atomic_write, check_target, ensure_dir, read_text

# The hook command's work lives in .hooks (a prompt loads only that half); named here too,
# where callers have always found it.
from .hooks import (  # noqa: F401
    ANSWERS,
    CLI,
    END_TIMEOUT,
    EVENTS,
    HOOK_TIMEOUT,
    HOOKS,
    LOG_LIMIT,
    MAX_HOOK_TIMEOUT,
    QUIET_EVENTS,
    _describe,
    _find_memory_root,
    _index_only,
    _log,
    _read_input,
    _state,
    answer,
    end_output,
    hook_output,
    hook_timeout,
    run_hook,
    via_plugin,
    warm_up,
)
from .recall import CONTEXT_LIMIT, hook_budget, injected  # noqa: F401 (as before)
from .spawn import PLAIN_ENV, git, sh_command, sh_installed
from .store import Memory

# Inside functions: json, re, shutil and pathlib serve `init` only (this module was on the
# prompt hook's path before ADR 0039; those imports stay where they were).
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Collection
    from pathlib import Path
    from typing import Any

    from .store import Memory

SECTION_BEGIN = "<!-- lean-memory:begin -->"
SECTION_END = "<!-- lean-memory:end -->"


# -- agent setup ----------------------------------------------------------------------

# How a teammate without lean_memory gets it (a true line today: the project is not on the
# package index yet; on publication this becomes `pipx install lean-memory-md`).
INSTALL = "pipx install <a lean_memory checkout or wheel>"
NOT_INSTALLED = (f"lean_memory: {CLI} is not on PATH, so the project memory is off here; "
                 f"install it ({INSTALL}), then run {CLI} init")
IMPORT_LINE = "@AGENTS.md"  # Claude Code's memory import: CLAUDE.md reads AGENTS.md's section


def on_path() -> bool:
    """Whether a ``lean-memory`` is on PATH (what AGENTS.md and Codex's hooks run)."""
    import shutil

    return shutil.which(CLI) is not None


def hook_command(event: str, *, portable: bool = False) -> str:
    """The shell command an agent runs for ``event``.

    For a personal file: this machine's interpreter, isolated, with this install named
    (:func:`lean_memory.spawn.sh_command`, ADR 0033). For a file the team shares
    (``portable``, Codex): no path of this machine; it sources this user's launcher
    (:func:`launcher_path`, written by ``init``; isolated the same way), else runs
    ``lean-memory`` from PATH, else fails open: nothing for the agent, one line for the
    person (at session start a ``systemMessage``, which both agents show and neither gives
    the model), exit 0 either way (Codex blocks the prompt on exit 2 and flags any other
    code). Under ``sh -c '…'`` because the agent runs it with the user's shell (Codex:
    ``$SHELL -lc``), which may be fish; the rest of stdin is read so the agent's write
    never meets a closed pipe."""
    if not portable:
        return sh_command("hook", event)
    # The launcher is sourced (`.`), not run by a second sh: one process fewer per prompt.
    # It execs Python when its interpreter and install are there, else returns here.
    find = ('d=${XDG_DATA_HOME:-}; case $d in /*) ;; *) d=$HOME/.local/share;; esac; '
            f'l=$d/{LAUNCHER}; if [ -f "$l" ]; then set -- hook {event}; . "$l"; fi; ')

    return "sh -c '" + find + _fallback(event)[len("sh -c '"):].replace(
        f"exec {CLI} hook", f"exec {PLAIN_ENV} {CLI} hook", 1)


def _codex_lines(event: str) -> tuple[str, str, str]:
    """Codex's lines of ours for ``event``, newest first: the launcher's (current), the one
    before it (:func:`_fallback`) and the first versions' bare ``lean-memory hook EVENT``."""
    return hook_command(event, portable=True), _fallback(event), f"{CLI} hook {event}"


def _fallback(event: str) -> str:
    """The Codex line of versions before the launcher: ``lean-memory`` from PATH, else a
    note (a refresh recognises it; the current line ends the same, minus PYTHON*)."""
    if event == "session-start":
        say = f'echo "{{\\"systemMessage\\": \\"{NOT_INSTALLED}\\"}}"'
    else:
        say = f'echo "{NOT_INSTALLED}" >&2'
    return (f"sh -c 'command -v {CLI} >/dev/null 2>&1 && exec {CLI} hook {event}; "
            f"cat >/dev/null; {say}'")


# This user's hook launcher, below the data folder (sh computes the same path: XDG_DATA_HOME
# when absolute, else ~/.local/share; no platform special case, sh has none).
LAUNCHER = "lean-memory/hook.sh"
_LAUNCHER_HEAD = "# lean-memory hook launcher"


def launcher_path() -> str:
    """Where this user's hook launcher lives (the path the Codex hook line computes)."""
    xdg = os.environ.get("XDG_DATA_HOME", "")
    base = xdg if xdg.startswith("/") else os.path.join(os.path.expanduser("~"), ".local",
                                                         "share")
    return os.path.join(base, *LAUNCHER.split("/"))


def launcher_text() -> str:
    """The launcher: this machine's interpreter, isolated, lean_memory from this install;
    nothing when either is gone (the hook line then falls back)."""
    return (f"{_LAUNCHER_HEAD} (written by `{CLI} init`; run it again to update)\n"
            "# Sourced by the Codex hook line (.codex/hooks.json) with the hook's arguments\n"
            "# set; isolated: python -I, lean_memory from the folder named here (ADR 0033).\n"
            f'if {sh_installed()}; then exec {sh_command()} "$@"; fi\n')


def write_launcher() -> str | None:
    """Write (or update) this user's launcher; the line to print, None when current. A
    file there that is not ours is left alone (said so)."""
    path = launcher_path()
    folder = os.path.dirname(path)
    try:
        current = read_text(path, folder, MAX_CONFIG_BYTES)
        if current and not current.startswith(_LAUNCHER_HEAD):
            return f"{path} is not ours: left it alone (the Codex hooks use {CLI} from PATH)"
        text = launcher_text()
        if current == text:
            return None
        ensure_dir(folder, os.path.dirname(folder))
        atomic_write(path, text, root=folder)
    except (OSError, LeanMemoryError) as exc:
        return f"could not write the hook launcher {path}: {exc}"
    return f"{'updated' if current else 'wrote'} the Codex hook launcher {path}"


def _safe_commands(text: str) -> str:
    """Hook settings with our commands that older versions wrote made current, everything
    else byte for byte: ``"PY" [-P] -m lean_memory hook EVENT`` (not isolated: ADR 0033)
    becomes this interpreter's isolated line, and so does an isolated line naming another
    interpreter or install folder (a re-install: the old venv may be gone, ADR 0035);
    Codex's bare ``lean-memory hook EVENT`` and its line without the launcher become the
    current portable line."""
    import json
    import re

    old = {line: lines[0] for lines in map(_codex_lines, HOOKS) for line in lines[1:]}

    def fresh(m: re.Match[str]) -> str:
        try:
            command = json.loads(m.group(0))
        except ValueError:
            return m.group(0)
        unsafe = re.fullmatch(r'"[^"]*" (?:-P )?-m lean_memory hook ([a-z-]+)', command)
        if unsafe and unsafe.group(1) in HOOKS:
            return json.dumps(hook_command(unsafe.group(1)), ensure_ascii=False)
        ours = our_hook(command)  # another interpreter or install of ours (a re-install)
        if ours is not None and ours[2] is not None and ours[0] in HOOKS \
                and command != hook_command(ours[0]):
            return json.dumps(hook_command(ours[0]), ensure_ascii=False)
        return json.dumps(old[command], ensure_ascii=False) if command in old else m.group(0)

    return re.sub(r'"(?:[^"\\]|\\.)*"', fresh, text)


def hook_config(agent: str) -> dict[str, Any]:
    """The ``hooks`` settings for Claude Code (``.claude/settings.local.json``, personal) or
    Codex (``.codex/hooks.json``, shared with the team, so its command is portable)."""
    portable = agent == "codex"
    start: dict[str, Any] = {"type": "command", "timeout": 10,
                             "command": hook_command("session-start", portable=portable)}
    prompt: dict[str, Any] = {"type": "command", "timeout": 10,
                              "command": hook_command("user-prompt-submit", portable=portable)}
    if agent == "codex":
        start["statusMessage"] = "Loading project memory"
        prompt["statusMessage"] = "Recalling project memory"
    sources = "startup|resume|clear|compact"
    hooks: dict[str, Any] = {"SessionStart": [{"matcher": sources, "hooks": [start]}],
                             "UserPromptSubmit": [{"hooks": [prompt]}]}
    if agent == "claude":  # the session that ended is distilled (Codex has no such event)
        hooks["SessionEnd"] = [{"hooks": [{"type": "command", "timeout": 5,
                                           "command": hook_command("session-end")}]}]
    return {"hooks": hooks}


def hook_events(agent: str) -> str:
    """The events whose hooks ``agent`` gets, for the lines ``init`` prints."""
    names: list[str] = list(hook_config(agent)["hooks"])
    return ", ".join(names[:-1]) + " and " + names[-1]


def our_event(command: str) -> str | None:
    """The event (``session-start``, …) of a hook line of ours, else None: the one
    definition of "ours" for ``init``. Ours are exactly the lines some version of ``init``
    wrote: those naming an interpreter (:func:`lean_memory.claude_code.our_hook`) and
    Codex's shared ones (:func:`_codex_lines`); a person's line that mentions lean_memory
    and an event is theirs."""
    named = our_hook(command)
    if named is not None:
        return named[0]
    return next((e for e in HOOKS if command in _codex_lines(e)), None)


def _has_our_hook(groups: Any, event: str) -> bool:
    """Whether an event's hook groups (``event`` as the settings name it, ``SessionStart``)
    hold a line of ours for that event."""
    for group in groups if isinstance(groups, list) else []:
        inner = group.get("hooks") if isinstance(group, dict) else None
        for h in inner if isinstance(inner, list) else []:
            cmd = h.get("command") if isinstance(h, dict) else None
            ours = our_event(cmd) if isinstance(cmd, str) else None
            if ours is not None and HOOKS.get(ours) == event:
                return True
    return False


def _merge_hooks(settings: Any, agent: str,
                 only: tuple[str, ...] | None = None) -> dict[str, Any] | None:
    """``settings`` (parsed JSON) with our hook groups added to the events that lack one of
    ours, every other key and hook kept in its order; None when the shape is not the one
    both agents define (an object whose ``hooks`` maps event names to lists). With
    ``only``, those events alone are looked at."""
    if not isinstance(settings, dict):
        return None
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        return None
    for event, groups in hook_config(agent)["hooks"].items():
        if only is not None and event not in only:
            continue
        have = hooks.get(event, [])
        if not isinstance(have, list):
            return None
        if not _has_our_hook(have, event):
            hooks[event] = [*have, *groups]
    return {**settings, "hooks": hooks}


def instructions(mem: Memory) -> str:
    """The AGENTS.md section telling an agent how to use the memory; it names only
    ``lean-memory`` (the file is shared: no path of this machine)."""
    cmd = CLI
    shards = ", ".join(f"`{s}`" for s in mem.shards)
    rules = (f"\n- `{RULES_SHARD}` holds standing rules, shown with every prompt: keep them "
             "few, short and real rules." if RULES_SHARD in mem.shards else "")
    return f"""{SECTION_BEGIN}
## Project memory (lean_memory)

Durable memory for agents lives in `.agents/memory/` as Markdown shards ({shards}).
Its index, the standing rules and the entries matching each prompt are added to your context
automatically; pull more when you need it. Run lean_memory as `{cmd}`:

- `{cmd} get --query "words"`: the entries about a topic (with their ids).
- `{cmd} get <shard>`: a whole shard; `{cmd} get`: the index.

Write down what a future session must know, one fact per entry, in the shard it belongs to:

- `{cmd} put failures "What broke, why, and the fix that worked" --tag ci`
- longer text from standard input: `{cmd} put insights - --title "Short title"`
- a correction of an entry that is wrong or outdated:
  `{cmd} put corrections "What is right instead" --supersedes <id>`
  (the old entry is hidden, never deleted; do not edit memory files by hand for this).{rules}
- Absolute dates only; never store secrets (a write containing a credential is refused).

If `{cmd}` is not found, it is not installed on this machine: ask the person to install it
(`{INSTALL}`).
{SECTION_END}
"""


def _import_section(current: str) -> str:
    """Our CLAUDE.md block: the import of AGENTS.md, or nothing when the hand-written text
    around our block imports it already (one import, not two)."""
    import re

    begin, end = current.find(SECTION_BEGIN), current.find(SECTION_END)
    outside = current[:begin] + current[end:] if begin != -1 and end > begin else current
    if re.search(r"(?<![\w`/])@(\./)?AGENTS\.md(?!\.?\w)", outside):
        return ""
    return f"{SECTION_BEGIN}\n{IMPORT_LINE}\n{SECTION_END}\n"


def _ensure_ignored(top: Path, path: Path) -> str | None:
    """Make git ignore ``path`` (a personal file) with a line in its folder's .gitignore;
    a line to print, or None when git already ignores it or this is not a repository."""
    # The person's git config: their global excludes file may ignore it already.
    r = git(str(top), "check-ignore", "-q", str(path), timeout=30, person=True)
    if r.code != 1:  # 0: ignored already; 128: not a repository; None: no git
        return None
    named = path.relative_to(top).as_posix()
    # check-ignore says "not ignored" of any tracked file: a line would change nothing
    tracked = git(str(top), "ls-files", "--error-unmatch", "--", named, timeout=30, person=True)
    if tracked.code is None:
        return None
    if tracked.ok:
        return (f"warning: {named} is committed to git and names this machine's interpreter: "
                f"untrack it with `git rm --cached {named}` (the file stays) and commit")
    ignore = path.parent / ".gitignore"
    current = read_text(ignore, top)
    if any(line.strip() in (path.name, "/" + path.name) for line in current.splitlines()):
        return None  # our line is there (a later rule may undo it: the person's choice)
    sep = "" if not current or current.endswith("\n") else "\n"
    atomic_write(ignore, f"{current}{sep}{path.name}\n", root=top)
    rel = ignore.relative_to(top).as_posix()
    return f"{rel}: ignores {path.name} (it names this machine's interpreter)"


def _write_section(top: Path, path: Path, section: str, what: str, *,
                   create: bool = True) -> str | None:
    """Our marked block in ``path`` replaced by ``section`` (removed when it is ''), hand
    text around it kept byte for byte; with no block, ``section`` is appended when
    ``create``. The line to print, or None (nothing done, or nothing worth saying)."""
    current = read_text(path, top)
    begin, end = current.find(SECTION_BEGIN), current.find(SECTION_END)
    had = begin != -1 and end > begin
    if had:
        stop = end + len(SECTION_END)
        if current[stop:stop + 1] == "\n":
            stop += 1
        new = current[:begin] + section + current[stop:]
    elif not section or not create:
        return None
    else:
        sep = "" if not current else ("\n" if current.endswith("\n") else "\n\n")
        if current.endswith("\n") and not current.endswith("\n\n"):
            sep = "\n"
        new = current + sep + section
    if new == current:
        return f"{path.name}: {what} already present" if create else None
    atomic_write(path, new, root=top)
    done = "removed" if not section else "updated" if had else "added" if current else "wrote"
    return f"{path.name}: {done} {what}"


def _write_docs(mem: Memory, top: Path, *, claude: bool, create: bool) -> list[str]:
    """AGENTS.md's section (written when ``create``, else refreshed where it is) and, for
    Claude Code, CLAUDE.md's import of it; a CLAUDE.md holding an older version's full
    section is migrated either way (its block becomes the import, the section moves to
    AGENTS.md). Lines to print."""
    agents_md, claude_md = top / "AGENTS.md", top / "CLAUDE.md"
    for path in (agents_md, claude_md):
        check_target(path, top)  # refused before anything is written
    current = read_text(claude_md, top)
    begin, end = current.find(SECTION_BEGIN), current.find(SECTION_END)
    wanted = _import_section(current)
    old = begin != -1 and end > begin and current[begin:end + len(SECTION_END)] \
        != wanted.rstrip("\n")
    lines = [_write_section(top, agents_md, instructions(mem),
                            "the memory instructions section", create=create or old)]
    if claude or old:
        lines.append(_write_section(top, claude_md, wanted, f"the import of {IMPORT_LINE}",
                                    create=create))
    return [ln for ln in lines if ln is not None]


# The hook settings each agent reads: (file below the project, the agent's name).
SETTINGS = {"claude": (".claude/settings.local.json", "Claude Code"),
            "codex": (".codex/hooks.json", "Codex")}


def _refresh(top: Path, rel: str, notes: str) -> tuple[str, str | None]:
    """The hook settings ``rel`` (read without following a link, '' when missing) with our
    commands made current, rewritten if they were not; and the line saying so, if so."""
    text = read_text(top / rel, top, MAX_CONFIG_BYTES)
    fresh = _safe_commands(text)
    if fresh == text:
        return text, None
    atomic_write(top / rel, fresh, root=top)
    return fresh, f"{rel}: {notes} hook commands refreshed (now run by {sys.executable})"


def refresh_hooks(root: Path, *, skip: Collection[str] = ()) -> list[str]:
    """What plain ``init`` brings up to date in what older versions wrote; lines to print:
    our hook commands in the agents' settings (``-m`` not isolated, Codex's lines without
    the launcher) and this user's Codex launcher, our AGENTS.md section where there is
    one, and a CLAUDE.md holding the old full section (now AGENTS.md's, imported). A file
    that is a link, a special file or not UTF-8 is left alone: `init --agent` reports it.
    The agents in ``skip`` are being set up (:func:`setup_agent` refreshes their settings
    itself, and says whether Codex must trust its hooks again)."""
    top = root.resolve()
    lines = []
    for agent, (rel, notes) in SETTINGS.items():
        if agent in skip or (agent == "claude" and via_plugin()):
            continue  # the plugin's paths change with each update: never written as hooks
        try:
            text, line = _refresh(top, rel, notes)
            if line is not None:
                lines.append(line)
            added = _add_new_events(top, agent, text)
        except (OSError, LeanMemoryError, ValueError):
            continue
        if added is not None:
            lines.append(added)
        if agent == "codex" and (line or added):  # a changed line is skipped until trusted
            lines.append(codex_trust(changed=True))
        if agent == "codex" and LAUNCHER in text:  # set up here: this user's launcher
            line = write_launcher()
            if line is not None:
                lines.append(line)
    with suppress(OSError, LeanMemoryError):
        lines.extend(_write_docs(Memory(top), top, claude=False, create=False))
    return lines


def _add_new_events(top: Path, agent: str, text: str) -> str | None:
    """Settings an older version wrote (our hooks there, SessionEnd not yet) given the
    events added since, everything else kept; the line saying so, or None."""
    import json

    try:
        current: Any = json.loads(text) if text else None
    except ValueError:
        return None  # not ours to mend here: `init --agent` reports it
    hooks = current.get("hooks") if isinstance(current, dict) else None
    if not isinstance(hooks, dict) or not any(_has_our_hook(hooks.get(name), name)
                                              for name in EVENTS.values()):
        return None  # not set up for this agent: `init --agent` does that
    # only events added since: a hook of ours that the person took out stays out
    merged = _merge_hooks(json.loads(text), agent, only=tuple(QUIET_EVENTS.values()))
    if merged is None or merged == current:
        return None
    rel, notes = SETTINGS[agent]
    atomic_write(top / rel, json.dumps(merged, indent=2, ensure_ascii=False) + "\n", root=top)
    return _added_hooks(rel, notes, merged, current)


def _added_hooks(rel: str, notes: str, merged: dict[str, Any], current: dict[str, Any]) -> str:
    """The line saying which events' hooks ``merged`` adds to ``current``."""
    added = [e for e in merged["hooks"] if merged["hooks"][e] != current.get("hooks", {}).get(e)]
    return f"{rel}: added {notes} hook{'s' if len(added) != 1 else ''} {', '.join(added)}"


def check_agent(root: Path, agent: str) -> None:
    """Refuse, before anything is written, what ``setup_agent`` would refuse: an unknown
    agent, a target through a link or over a special file, hook settings that are not
    valid JSON or not of the agents' shape (rewriting them would lose what they hold)."""
    import json

    if agent not in SETTINGS:
        raise LeanMemoryError(f"unknown agent {agent!r}: expected claude or codex")
    top = root.resolve()
    rel = SETTINGS[agent][0]
    settings = top / rel
    for path in (settings, settings.parent / ".gitignore", top / "AGENTS.md",
                 top / "CLAUDE.md"):
        check_target(path, top)
    text = read_text(settings, top, MAX_CONFIG_BYTES)
    if not text:
        return
    try:
        current = json.loads(text)
    except ValueError as exc:
        raise LeanMemoryError(
            f"{rel} is not valid JSON (line {getattr(exc, 'lineno', '?')}): left as it is; "
            f"fix it, then run `{CLI} init --agent {agent}` again") from None
    if _merge_hooks(current, agent) is None:
        raise LeanMemoryError(
            f"{rel}: its \"hooks\" is not an object of event lists: left as it is; fix it, "
            f"then run `{CLI} init --agent {agent}` again")


def _without_ours(settings: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``settings`` without our hook commands (a group, an event, ``hooks`` left empty go
    too), everything else kept in order; and the events that had one."""
    hooks, removed = settings.get("hooks", {}), []
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        left = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                left.append(group)
                continue
            mine = [h for h in inner if isinstance(h, dict)
                    and isinstance(h.get("command"), str) and our_hook(h["command"])]
            if mine and event not in removed:
                removed.append(event)
            rest = [h for h in inner if not any(h is m for m in mine)]
            if rest or not mine:
                left.append({**group, "hooks": rest} if mine else group)
        if left:
            kept[event] = left
    out = dict(settings)
    if kept:
        out["hooks"] = kept
    else:
        out.pop("hooks", None)
    return out, removed


def _leave_to_plugin(top: Path, plugin: tuple[str, str]) -> str:
    """The plugin is enabled here: our settings hooks taken out (none written); the line."""
    import json

    rel, _ = SETTINGS["claude"]
    key, where = plugin
    runs = f"the lean-memory plugin ({key}, enabled in {where}) runs them here"
    text = read_text(top / rel, top, MAX_CONFIG_BYTES)
    kept, removed = _without_ours(json.loads(text) if text else {})
    if not removed:
        return (f"{rel}: no hooks written: {runs}; to use these instead, "
                f"`claude plugin disable {key} --scope local`, then run this again")
    atomic_write(top / rel, json.dumps(kept, indent=2, ensure_ascii=False) + "\n", root=top)
    return (f"{rel}: removed our {', '.join(removed)} hooks: {runs} (with both, every hook "
            "ran twice); other settings kept")


def _merge_settings(top: Path, agent: str) -> tuple[str, bool]:
    """Our hooks in the agent's settings file: written when missing, merged into an existing
    one (every key kept, ours added once), atomically; the line saying so, and whether a
    line of ours was added or changed. The caller ran :func:`check_agent` (a file that is
    not of the agents' shape is refused before anything is written)."""
    import json

    rel, notes = SETTINGS[agent]
    settings = top / rel
    text, refreshed = _refresh(top, rel, notes)
    if not text:
        ensure_dir(settings.parent, top)
        atomic_write(settings, json.dumps(hook_config(agent), indent=2) + "\n", root=top)
        return f"wrote {rel}: {notes} hooks {hook_events(agent)}", True
    current = json.loads(text)
    merged = _merge_hooks(json.loads(text), agent)  # a second parse: a copy to change
    if merged is None or merged == current:
        return refreshed or f"{rel}: {notes} hooks already configured", refreshed is not None
    atomic_write(settings, json.dumps(merged, indent=2, ensure_ascii=False) + "\n", root=top)
    return f"{_added_hooks(rel, notes, merged, current)} (other settings kept)", True


def codex_trust(*, changed: bool) -> str:
    """What ``init`` says about Codex's trust: Codex runs a project's hook only once its
    line is trusted in /hooks, and asks again only when the line changes."""
    if changed:
        return ("Codex: trust the new or changed hooks once in Codex's /hooks (until then "
                "Codex skips them); project .codex/ files load only in a trusted project")
    return (f"Codex: our hooks in {SETTINGS['codex'][0]} are unchanged (no new approval "
            "needed in Codex's /hooks)")


def setup_agent(mem: Memory, agent: str) -> list[str]:
    """Configure ``agent`` (``claude`` or ``codex``) for this memory; lines to print.

    Every file edited here is in the work tree outside ``.agents/``, and as untrusted as
    the memory: none is read or written through a link, none read unbounded (ADR 0012).
    The team shares AGENTS.md (and CLAUDE.md importing it) and ``.codex/hooks.json``: they
    name ``lean-memory`` only; this machine's interpreter is named in Claude Code's personal
    ``settings.local.json`` alone."""
    check_agent(mem.root, agent)  # refused before anything is written
    top = mem.root.resolve()
    settings = top / SETTINGS[agent][0]
    plugin = plugin_enabled(str(top)) if agent == "claude" else None
    said, changed = (_merge_settings(top, agent) if plugin is None
                     else (_leave_to_plugin(top, plugin), False))
    lines = [said]
    lines += _write_docs(mem, top, claude=agent == "claude", create=True)
    if agent == "claude":
        ignored = _ensure_ignored(top, settings) if plugin is None else None
        if ignored is not None:
            lines.append(ignored)
    else:
        launcher = write_launcher()  # this user's: the shared hook line finds it
        if launcher is not None:
            lines.append(launcher)
        lines.append(codex_trust(changed=changed))
    if not on_path():
        from pathlib import Path

        lines.append(f"note: {CLI} is not on PATH here, and AGENTS.md uses it: "
                     f"{INSTALL} (each teammate too), or put "
                     f"{Path(sys.executable).parent} on PATH")
    return lines
