"""Issue 23: `init --agent claude` installs the SessionEnd hook, so a session is distilled
when it ends (Codex has no such event). Idempotent, an older install upgraded by plain
`init`, the command started with `python -P`, and the hook fails open within a second.
On the old code `init` wrote SessionStart and UserPromptSubmit only."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import agents, learn
from lean_memory.layers import session_home
from tests import test_learn
from tests.conftest import ROOT, Stuck
from tests.test_layers_global import ok

home = test_learn.home  # the same fixtures as the learning loop's tests
project = test_learn.project


def _settings(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / ".claude" / "settings.local.json").read_text())
    return data


def _run(command: str, payload: dict[str, Any], cwd: Path,
         env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}  # the checkout, not an install
    full.pop("LEAN_MEMORY_ROOT", None)
    full.pop("LEAN_MEMORY_GLOBAL", None)
    shell = shutil.which("bash") or "sh"  # Claude Code runs hook commands with bash
    return subprocess.run([shell, "-c", command], input=json.dumps(payload), cwd=cwd,
                          env=full, capture_output=True, text=True, timeout=60, check=False)


def test_init_agent_claude_installs_session_end_and_it_distills(project: Path,
                                                                home: dict[str, str]) -> None:
    """Catches: no SessionEnd hook (a session is distilled only hours later, when quiet),
    a command without -P, or a second init changing the file."""
    said = ok("init", "--agent", "claude", cwd=project, env=home)
    assert "SessionEnd" in said
    [group] = _settings(project)["hooks"]["SessionEnd"]
    [hook] = group["hooks"]
    assert hook["type"] == "command" and " -I -c " in hook["command"]
    assert hook["command"].endswith(" hook session-end")
    before = (project / ".claude" / "settings.local.json").read_bytes()
    ok("init", "--agent", "claude", cwd=project, env=home)
    assert (project / ".claude" / "settings.local.json").read_bytes() == before
    learn.record(lean_memory.Memory(project), "s1", "why does the exporter drop rows",
                 "2026-01-05T09:00:00Z")
    r = _run(hook["command"], {"session_id": "s1", "cwd": str(project), "reason": "exit",
                               "hook_event_name": "SessionEnd",
                               "transcript_path": "/nonexistent.jsonl"}, project, home)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == ""
    assert learn.load_asks(session_home(project)) == []
    [summary] = learn.session_store(lean_memory.Memory(project)).entries("sessions")
    assert "exporter drop rows" in summary.text


def test_codex_gets_no_session_end(project: Path, home: dict[str, str]) -> None:
    """Codex has no session-end event: an unknown event in its hooks.json is noise."""
    ok("init", "--agent", "codex", cwd=project, env=home)
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit"}
    ok("init", cwd=project, env=home)
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit"}


def _older_install(project: Path) -> Path:
    """The settings an older version wrote: two events, `-m` without -P."""
    py = Path(sys.executable).as_posix()
    old = {"permissions": {"allow": ["Bash(ls)"]}, "hooks": {
        "SessionStart": [{"matcher": "startup|resume|clear|compact", "hooks": [
            {"type": "command", "timeout": 10,
             "command": f'"{py}" -m lean_memory hook session-start'}]}],
        "UserPromptSubmit": [{"hooks": [
            {"type": "command", "timeout": 10,
             "command": f'"{py}" -m lean_memory hook user-prompt-submit'}]}]}}
    path = project / ".claude" / "settings.local.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(old, indent=2) + "\n", encoding="utf-8")
    return path


def test_plain_init_upgrades_an_older_install(project: Path, home: dict[str, str]) -> None:
    """Catches: an older install left without SessionEnd after an upgrade and `init`."""
    path = _older_install(project)
    said = ok("init", cwd=project, env=home)
    assert "SessionEnd" in said
    settings = json.loads(path.read_text())
    assert settings["permissions"] == {"allow": ["Bash(ls)"]}
    commands = [h["command"] for e in ("SessionStart", "UserPromptSubmit", "SessionEnd")
                for g in settings["hooks"][e] for h in g["hooks"]]
    assert len(commands) == 3 and all(" -I -c " in c and " hook " in c for c in commands)
    after = path.read_bytes()
    ok("init", cwd=project, env=home)
    ok("init", "--agent", "claude", cwd=project, env=home)
    assert path.read_bytes() == after


def test_plain_init_adds_only_the_new_event(project: Path, home: dict[str, str]) -> None:
    """A hook of ours the person took out stays out: plain init adds SessionEnd alone."""
    path = _older_install(project)
    settings = json.loads(path.read_text())
    del settings["hooks"]["UserPromptSubmit"]
    path.write_text(json.dumps(settings), encoding="utf-8")
    ok("init", cwd=project, env=home)
    assert set(json.loads(path.read_text())["hooks"]) == {"SessionStart", "SessionEnd"}


def test_session_end_fails_open_within_a_second(project: Path, home: dict[str, str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: a slow distill holding Claude Code's exit (it gives a SessionEnd hook
    ~1.5 s), or a failure that prints or raises."""
    slow = Stuck()
    monkeypatch.setattr(learn, "end_session", slow)
    payload = json.dumps({"session_id": "s1", "cwd": str(project)})
    out = io.StringIO()
    try:
        assert agents.run_hook("session-end", None, io.StringIO(payload), out) == 0
        # it returned at its time limit, while the distill was still stuck
        assert not slow.finished.is_set() and out.getvalue() == ""
    finally:
        slow.release.set()

    def broken(payload: Any, where: Path | None) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(learn, "end_session", broken)
    assert agents.run_hook("session-end", None, io.StringIO(payload), out) == 0
    assert out.getvalue() == ""
    assert "failed open" in (project / ".agents" / "memory" / ".cache" / "hook.log").read_text()
