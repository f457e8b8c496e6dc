"""One set of lean_memory hooks in Claude Code at a time (ADR 0035).

Claude Code runs every hook it finds: the plugin's (``hooks/hooks.json``) and the ones
``init --agent claude`` writes to ``.claude/settings.local.json`` would both run, each
injection paid twice and each ask kept twice. Two rules keep one set:

* ``init --agent claude`` in a project where the plugin is installed and enabled writes no
  settings hooks and takes ours out (:func:`plugin_enabled`).
* The plugin's launcher runs its hooks with ``LEAN_MEMORY_PLUGIN=1``; such a hook prints
  nothing when the project's or the user's Claude Code settings hold a hook of ours for the
  same event that can run (:func:`stands_down`): settings hooks, once there, win.

Where Claude Code keeps it (2.1.197, checked with ``claude plugin install --scope``):
``enabledPlugins`` in ``.claude/settings.local.json``, then ``.claude/settings.json``, then
``~/.claude/settings.json`` (the first that names the plugin decides), keys
``NAME@MARKETPLACE``; installs in ``~/.claude/plugins/installed_plugins.json`` (scope
``user``, or ``project``/``local`` with a ``projectPath``). ``CLAUDE_CONFIG_DIR`` moves
``~/.claude``.
"""

from __future__ import annotations

import os

from ._jsonc import loads
from .fsutil import MAX_CONFIG_BYTES, read_text
from .hooks import via_plugin  # whether the plugin's launcher started this process
from .spawn import ENTRY, sh_quote

TYPE_CHECKING = False  # typing's own costs an import (this runs in the plugin's hooks)
if TYPE_CHECKING:
    from typing import Any

PLUGIN = "lean-memory"  # the plugin's name (.claude-plugin/plugin.json)
INIT_COMMAND = "/lean-memory:memory-init"  # commands/memory-init.md: the plugin runs `init`
# The project's settings files Claude Code reads, most specific first.
PROJECT_SETTINGS = (".claude/settings.local.json", ".claude/settings.json")


def config_dir() -> str:
    """Claude Code's user folder: ``CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    given = os.environ.get("CLAUDE_CONFIG_DIR", "")
    return given if os.path.isabs(given) else os.path.join(os.path.expanduser("~"), ".claude")


def _load(path: str) -> Any:
    """The JSON in ``path`` (None when missing, unreadable or not JSON; never raises)."""
    try:
        text = read_text(path, os.path.dirname(path), MAX_CONFIG_BYTES)
        return loads(text) if text.strip() else None
    except Exception:  # a broken file of someone else's is not ours to report here
        return None


def _settings_files(top: str) -> list[str]:
    return [*(os.path.join(top, *rel.split("/")) for rel in PROJECT_SETTINGS),
            os.path.join(config_dir(), "settings.json")]


def plugin_enabled(top: str) -> tuple[str, str] | None:
    """The lean-memory plugin's key (``lean-memory@MARKETPLACE``) and the settings file that
    enables it for the project ``top`` (``~``-abbreviated, or relative to ``top``), when it
    is also installed for it; None otherwise."""
    decided: tuple[str, str] | None = None  # (key, file)
    for path in _settings_files(top):
        data = _load(path)
        enabled = data.get("enabledPlugins") if isinstance(data, dict) else None
        if not isinstance(enabled, dict):
            continue
        ours = [k for k in enabled if isinstance(k, str) and k.split("@")[0] == PLUGIN]
        if ours:  # this file decides (a later, broader one is overridden)
            on = [k for k in ours if enabled[k] is True]
            if not on:
                return None
            decided = (on[0], path)
            break
    if decided is None:
        return None
    key, where = decided
    data = _load(os.path.join(config_dir(), "plugins", "installed_plugins.json"))
    installs = data.get("plugins", {}).get(key) if isinstance(data, dict) else None
    real = os.path.realpath(top)
    for install in installs if isinstance(installs, list) else []:
        if not isinstance(install, dict):
            continue
        place = install.get("projectPath")
        if install.get("scope") == "user" or (
                isinstance(place, str) and os.path.realpath(place) == real):
            home = os.path.expanduser("~")
            if where.startswith(home + os.sep):
                return key, "~" + where[len(home):]
            return key, os.path.relpath(where, top) if where.startswith(top + os.sep) else where
    return None


def sh_words(command: str) -> list[str] | None:
    """``command`` split into words as POSIX ``sh`` splits a simple command (quotes and
    backslashes; None for anything more: variables, operators, unbalanced quotes)."""
    words: list[str] = []
    word: list[str] | None = None
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if c in " \t\n":
            if word is not None:
                words.append("".join(word))
                word = None
            i += 1
            continue
        word = [] if word is None else word
        if c == "'":
            end = command.find("'", i + 1)
            if end == -1:
                return None
            word.append(command[i + 1:end])
            i = end + 1
        elif c == '"':
            i += 1
            while i < n and command[i] != '"':
                if command[i] in "$`":
                    return None
                if command[i] == "\\" and i + 1 < n and command[i + 1] in '"\\$`\n':
                    i += 1
                word.append(command[i])
                i += 1
            if i >= n:
                return None
            i += 1
        elif c == "\\" and i + 1 < n:
            word.append(command[i + 1])
            i += 2
        elif c in "$`;&|<>()*?[" or (c in "#~" and not word):
            return None  # expansions, operators, globs; a comment or ~ starting a word
        else:
            word.append(c)
            i += 1
    if word is not None:
        words.append("".join(word))
    return None if words and "=" in words[0] else words  # VAR=value cmd: not ours


def our_hook(command: str) -> tuple[str, str, str | None] | None:
    """A hook line of ours that names an interpreter: (event, interpreter, install folder
    or None for the older ``-m`` form); None for anything else.

    Ours are exactly the lines we write, byte for byte, with any interpreter and install
    folder (a re-install, ADR 0035): ``PY -I -c ENTRY HOME hook EVENT`` as
    :func:`lean_memory.spawn.sh_command` quotes it (ADR 0033), and the older
    ``"PY" -m lean_memory hook EVENT`` and ``"PY" -P -m lean_memory hook EVENT``. ``init``
    rewrites or removes what this recognises: a look-alike (other code, other words, other
    quoting) is someone else's and stays."""
    words = sh_words(command)
    if not words or len(words) < 4 or words[-2] != "hook" or not _event(words[-1]):
        return None
    py, event = words[0], words[-1]
    if not os.path.isabs(py):
        return None
    if len(words) == 7 and words[1:4] == ["-I", "-c", ENTRY] and os.path.isabs(words[4]) \
            and command == " ".join(sh_quote(w) for w in words):
        return event, py, words[4]
    if any(command == f'"{py}" {form} hook {event}'
           for form in ("-m lean_memory", "-P -m lean_memory")):
        return event, py, None
    return None


def _event(word: str) -> bool:
    """Whether ``word`` has the shape of a hook event's name (``session-start``, …)."""
    return bool(word) and word.strip("-") == word and \
        all(c in "abcdefghijklmnopqrstuvwxyz-" for c in word)


def runnable(interpreter: str, home: str | None) -> bool:
    """Whether such a line can run: its interpreter is there, and its install when named."""
    if not (os.path.isabs(interpreter) and os.access(interpreter, os.X_OK)):
        return False
    return home is None or os.path.isfile(os.path.join(home, "lean_memory", "cli.py"))


def _commands(settings: Any) -> list[str]:
    """Every hook command in parsed Claude Code settings."""
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    found: list[str] = []
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            inner = group.get("hooks") if isinstance(group, dict) else None
            for h in inner if isinstance(inner, list) else []:
                cmd = h.get("command") if isinstance(h, dict) else None
                if isinstance(cmd, str):
                    found.append(cmd)
    return found


def settings_serve(top: str, event: str) -> bool:
    """Whether the project's (or the user's) Claude Code settings hold a hook of ours for
    ``event`` (``session-start``, …) that can run."""
    for path in _settings_files(top):
        for cmd in _commands(_load(path)):
            ours = our_hook(cmd)
            if ours is not None and ours[0] == event and runnable(ours[1], ours[2]):
                return True
    return False


def stands_down(payload: Any, event: str) -> bool:
    """For a hook the plugin runs: True when settings hooks of ours serve this project."""
    if not via_plugin():
        return False
    top = os.environ.get("CLAUDE_PROJECT_DIR", "")
    if not os.path.isabs(top):
        cwd = payload.get("cwd") if isinstance(payload, dict) else None
        top = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else ""
    return bool(top) and settings_serve(top, event)
