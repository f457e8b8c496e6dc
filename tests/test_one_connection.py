"""Issue 35 item 3: one way to connect Claude Code at a time (ADR 0035).

With the plugin enabled and ``init --agent claude`` run, Claude Code 2.1.197 ran every hook
twice (each injection paid twice, each ask kept twice); the plugin's ``/context`` was Claude
Code's own; a plugin-only user could not create the memory; a re-install left hooks naming a
removed interpreter ("already configured", exit 127); ``.claude/.gitignore`` grew a line per
``init`` for a tracked file; an invalid settings file exited 2 after ``.agents/memory`` was
made. Claude Code's files are simulated in the shapes 2.1.197 writes (``claude plugin install
--scope user|project|local``); the last test uses the real CLI when it is on PATH.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_memory import agents, claude_code, mcp_server
from lean_memory.errors import NotInitialized
from lean_memory.spawn import sh_quote

from .conftest import ROOT, git, run_cli

KEY = "lean-memory@lean-memory"
FACT = "pytest-xdist hides print output; run pytest with -s -p no:xdist"
PROMPT = "why does pytest hide my print output?"
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit",
          "SessionEnd": "session-end"}
# Claude Code 2.1.197's built-in slash commands and their aliases (read from the CLI's command
# table, 2026-12-02), and /remember, which the CLI names as a command of its own; a plugin
# command of the same name is reachable only as /lean-memory:NAME.
BUILT_INS = {
    "add-dir", "advisor", "agents", "alias", "autocompact", "background", "branch", "brief",
    "btw", "chrome", "clear", "color", "compact", "config", "context", "copy", "cost",
    "desktop", "diff", "doctor", "effort", "exit", "export", "extra-usage", "feedback",
    "files", "fork", "goal", "help", "hooks", "ide", "init", "init-verifiers", "insights",
    "install-github-app", "install-slack-app", "keybindings", "login", "logout", "loops",
    "mcp", "memory", "memory-pause", "mobile", "model", "pause-memory", "permissions", "plan",
    "plugin", "privacy-settings", "recap", "release-notes", "reload-plugins",
    "reload-skills", "remote-control", "remote-env", "rename", "resume", "review", "rewind",
    "schedule", "security-review", "session", "skills", "stats", "status", "statusline",
    "stickers", "tasks", "teleport", "terminal-setup", "theme", "toggle-memory",
    "ultrareview", "upgrade", "usage", "vim", "voice", "remember",
}


def config() -> Path:
    """Claude Code's user folder for this test (conftest points CLAUDE_CONFIG_DIR at it)."""
    return Path(os.environ["CLAUDE_CONFIG_DIR"])


def enable_plugin(top: Path | None, *, key: str = KEY, scope: str = "user",
                  installed_for: Path | None = None) -> None:
    """What ``claude plugin install KEY --scope SCOPE`` writes (2.1.197)."""
    if scope == "user":
        settings = config() / "settings.json"
    else:
        assert top is not None
        name = "settings.json" if scope == "project" else "settings.local.json"
        settings = top / ".claude" / name
    settings.parent.mkdir(parents=True, exist_ok=True)
    data = json.loads(settings.read_text("utf-8")) if settings.exists() else {}
    data.setdefault("enabledPlugins", {})[key] = True
    settings.write_text(json.dumps(data, indent=2), "utf-8")
    record: dict[str, Any] = {"scope": scope, "installPath": str(ROOT), "version": "0.2.0"}
    if scope != "user":
        record["projectPath"] = str(installed_for or top)
    installed = config() / "plugins" / "installed_plugins.json"
    installed.parent.mkdir(parents=True, exist_ok=True)
    have: dict[str, Any] = json.loads(installed.read_text("utf-8")) if installed.exists() \
        else {"version": 2, "plugins": {}}
    have["plugins"].setdefault(key, []).append(record)
    installed.write_text(json.dumps(have, indent=2), "utf-8")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a memory holding one fact."""
    where = tmp_path / "project"
    where.mkdir()
    git(where, "init", "-q")
    assert run_cli("init", cwd=where).returncode == 0
    assert run_cli("put", "quirks", FACT, cwd=where).returncode == 0
    return where


def settings_of(top: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (top / ".claude" / "settings.local.json").read_text("utf-8"))
    return data


def our_commands(top: Path) -> list[str]:
    return [c for c in claude_code._commands(settings_of(top)) if claude_code.our_hook(c)]


_SESSIONS = itertools.count(1)


def payload(top: Path, event: str) -> dict[str, Any]:
    # each run its own session: a session pays once, and these compare separate runs
    base = {"session_id": f"s{next(_SESSIONS)}", "cwd": str(top), "hook_event_name": event,
            "transcript_path": str(top / "t.jsonl")}
    if event == "UserPromptSubmit":
        base["prompt"] = PROMPT
    return {**base, "source": "startup"} if event == "SessionStart" else base


def run_as_claude(command: str, top: Path, event: str) -> subprocess.CompletedProcess[str]:
    """``command`` as Claude Code runs a hook: bash, the project as folder, JSON on stdin."""
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(ROOT), "CLAUDE_PROJECT_DIR": str(top)}
    env.pop("LEAN_MEMORY_ROOT", None)
    shell = shutil.which("bash") or "sh"
    return subprocess.run([shell, "-c", command], cwd=top, input=json.dumps(payload(top, event)),
                          env=env, capture_output=True, text=True, timeout=60, check=False)


def plugin_command(event: str) -> str:
    hooks = json.loads((ROOT / "hooks" / "hooks.json").read_text("utf-8"))["hooks"]
    command: str = hooks[event][0]["hooks"][0]["command"]
    return command


# -- init and the plugin ------------------------------------------------------------------


def test_init_leaves_the_hooks_to_an_enabled_plugin(project: Path) -> None:
    """Ours (written before the plugin came) are taken out, the person's hook and keys stay,
    the line says why; a second run changes nothing and says none were written."""
    assert run_cli("init", "--agent", "claude", cwd=project).returncode == 0
    data = settings_of(project)
    data["permissions"] = {"allow": ["Bash(make test)"]}
    data["hooks"]["UserPromptSubmit"].append(
        {"hooks": [{"type": "command", "command": "echo mine"}]})
    (project / ".claude" / "settings.local.json").write_text(json.dumps(data), "utf-8")
    enable_plugin(None)
    r = run_cli("init", "--agent", "claude", cwd=project)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr
    assert "removed our SessionStart, UserPromptSubmit, SessionEnd hooks" in out
    assert f"lean-memory plugin ({KEY}, enabled in " in out
    after = settings_of(project)
    assert our_commands(project) == []
    assert after["permissions"] == {"allow": ["Bash(make test)"]}
    assert after["hooks"] == {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "echo mine"}]}]}
    assert "(lean_memory)" in (project / "AGENTS.md").read_text("utf-8")
    before = (project / ".claude" / "settings.local.json").read_bytes()
    again = run_cli("init", "--agent", "claude", cwd=project).stdout.decode()
    assert "no hooks written" in again and "claude plugin disable" in again
    assert (project / ".claude" / "settings.local.json").read_bytes() == before


def test_without_the_plugin_init_writes_the_hooks(project: Path) -> None:
    """The plugin installed but turned off for this project (a local ``false`` overrides the
    user's ``true``): the settings hooks are written, as before."""
    enable_plugin(None)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(
        json.dumps({"enabledPlugins": {KEY: False}}), "utf-8")
    assert run_cli("init", "--agent", "claude", cwd=project).returncode == 0
    assert len(our_commands(project)) == 3


@pytest.mark.parametrize(("setup", "on"), [
    ("user", True),
    ("user+local-false", False),
    ("project", True),
    ("local", True),
    ("project-of-another", False),
    ("user-not-installed", False),
    ("other-marketplace", True),
    ("other-plugin", False),
])
def test_which_files_say_the_plugin_is_on(tmp_path: Path, setup: str, on: bool) -> None:
    """Enabled is decided by the most specific settings file naming the plugin (local, then
    project, then user), installed by a user install or one for this project."""
    top = tmp_path / "p"
    (top / ".claude").mkdir(parents=True)
    if setup == "user":
        enable_plugin(top)
    elif setup == "user+local-false":
        enable_plugin(top)
        (top / ".claude" / "settings.local.json").write_text(
            '{"enabledPlugins": {"lean-memory@lean-memory": false}}', "utf-8")
    elif setup in ("project", "local"):
        enable_plugin(top, scope=setup)
    elif setup == "project-of-another":
        enable_plugin(top, scope="project", installed_for=tmp_path / "elsewhere")
    elif setup == "user-not-installed":
        (config() / "settings.json").write_text(
            '{"enabledPlugins": {"lean-memory@lean-memory": true}}', "utf-8")
    elif setup == "other-marketplace":
        enable_plugin(top, key="lean-memory@team-tools")
    else:
        enable_plugin(top, key="lean-memory-extras@lean-memory")
    found = claude_code.plugin_enabled(str(top))
    assert (found is not None) is on, found
    if setup == "project":
        assert found == (KEY, ".claude/settings.json")


# -- the plugin's hooks stand down --------------------------------------------------------


def test_plugin_hooks_stand_down_for_working_settings_hooks(project: Path,
                                                            tmp_path: Path) -> None:
    """Settings hooks of ours that can run: the plugin's print nothing and ours inject once.
    Naming a removed interpreter, or gone: the plugin's serve (never none, never both)."""
    assert run_cli("init", "--agent", "claude", cwd=project).returncode == 0
    mine = settings_of(project)["hooks"]
    for event in ("SessionStart", "UserPromptSubmit"):
        served = run_as_claude(mine[event][0]["hooks"][0]["command"], project, event)
        want = "quirks" if event == "SessionStart" else FACT.split(";")[0]
        assert want in served.stdout, (event, served)
        plugin = run_as_claude(plugin_command(event), project, event)
        assert plugin.returncode == 0 and plugin.stdout == "" and plugin.stderr == "", plugin
    assert claude_code.settings_serve(str(project), "session-end")
    path = project / ".claude" / "settings.local.json"
    text = path.read_text("utf-8")
    path.write_text(text.replace(json.dumps(sys.executable)[1:-1],
                                 str(tmp_path / "gone" / "python")), "utf-8")
    assert not claude_code.settings_serve(str(project), "user-prompt-submit")
    plugin = run_as_claude(plugin_command("UserPromptSubmit"), project, "UserPromptSubmit")
    assert FACT.split(";")[0] in plugin.stdout
    path.unlink()
    plugin = run_as_claude(plugin_command("SessionStart"), project, "SessionStart")
    assert "quirks" in json.loads(plugin.stdout)["hookSpecificOutput"]["additionalContext"]


# -- re-installs, tracked files, idempotence, validation ----------------------------------


@pytest.mark.parametrize("how", [("init", "--agent", "claude"), ("init",)])
def test_init_repairs_hooks_naming_another_install(project: Path, tmp_path: Path,
                                                   how: tuple[str, ...]) -> None:
    """Hooks written by an install since removed (old venv, old folder) and by an older
    ``-m`` line are rewritten to this install's isolated line, which runs."""
    gone_py, gone_home = tmp_path / "old-venv" / "bin" / "python", tmp_path / "old-venv" / "lib"
    code = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "  # the code every install wrote
            "from lean_memory.cli import run; sys.exit(run())")
    lines = {e: f"{sh_quote(str(gone_py))} -I -c {sh_quote(code)} {sh_quote(str(gone_home))} "
                f"hook {cli}" for e, cli in EVENTS.items()}
    lines["SessionEnd"] = f'"{gone_py}" -m lean_memory hook session-end'
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.local.json").write_text(json.dumps({"hooks": {
        e: [{"hooks": [{"type": "command", "command": c}]}] for e, c in lines.items()}}),
        "utf-8")
    r = run_cli(*how, cwd=project)
    assert r.returncode == 0, r.stderr
    assert f"hook commands refreshed (now run by {sys.executable})" in r.stdout.decode()
    hooks = settings_of(project)["hooks"]
    for event, cli in EVENTS.items():
        [command] = [h["command"] for g in hooks[event] for h in g["hooks"]]
        assert command == agents.hook_command(cli)  # this interpreter, this install
    served = run_as_claude(hooks["UserPromptSubmit"][0]["hooks"][0]["command"], project,
                           "UserPromptSubmit")
    assert served.returncode == 0 and FACT.split(";")[0] in served.stdout


def _quiet_git_env(tmp_path: Path) -> dict[str, str]:
    """No global git ignore (Claude Code writes one ignoring settings.local.json)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_NOSYSTEM": "1"}


def test_gitignore_gets_one_line_and_a_tracked_file_is_warned_about(project: Path,
                                                                    tmp_path: Path) -> None:
    """Three ``init --agent claude``: one line in .claude/.gitignore. Committed anyway:
    each init says so (the file names this machine), and adds no line."""
    env = _quiet_git_env(tmp_path)
    for _ in range(3):
        r = run_cli("init", "--agent", "claude", cwd=project, env=env)
        assert r.returncode == 0, r.stderr
    ignore = project / ".claude" / ".gitignore"
    assert ignore.read_text("utf-8") == "settings.local.json\n"
    git(project, "add", "-f", ".claude/settings.local.json", env=env)
    git(project, "commit", "-qm", "settings", env=env)
    r = run_cli("init", "--agent", "claude", cwd=project, env=env)
    out = r.stdout.decode()
    assert r.returncode == 0
    assert "warning: .claude/settings.local.json is committed to git" in out
    assert "git rm --cached .claude/settings.local.json" in out
    assert ignore.read_text("utf-8") == "settings.local.json\n"


@pytest.mark.parametrize("text", ["{ not json", '{"hooks": []}', '{"hooks": {"SessionStart": 1}}'])
def test_an_invalid_settings_file_leaves_nothing_made(tmp_path: Path, text: str) -> None:
    """``init --agent claude`` refuses (exit 2, one line) before making the memory, the
    merge driver or AGENTS.md; the file is left byte for byte."""
    top = tmp_path / "fresh"
    (top / ".claude").mkdir(parents=True)
    git(top, "init", "-q")
    (top / ".claude" / "settings.local.json").write_text(text, "utf-8")
    r = run_cli("init", "--agent", "claude", cwd=top)
    assert r.returncode == 2
    assert len(r.stderr.decode().strip().splitlines()) == 1, r.stderr
    assert sorted(p.name for p in top.iterdir()) == [".claude", ".git"]
    assert (top / ".claude" / "settings.local.json").read_text("utf-8") == text
    assert "lean-memory" not in git(top, "config", "--list").stdout


# -- the plugin's commands and the memory it can create -----------------------------------


def test_no_plugin_command_is_a_built_in() -> None:
    """Every plugin command is reachable by its own name: none is one of Claude Code's."""
    names = {p.stem for p in (ROOT / "commands").glob("*.md")}
    assert names and not names & BUILT_INS, names & BUILT_INS


def test_the_plugin_creates_the_memory_without_an_install(tmp_path: Path) -> None:
    """/lean-memory:memory-init's shell line, run as Claude Code runs a command's ``!`` line
    (in the project, the plugin root set), makes the memory; PATH has no lean-memory."""
    text = (ROOT / "commands" / "memory-init.md").read_text("utf-8")
    [line] = re.findall(r"^!`(.+)`$", text, re.M)
    allowed = re.search(r"^allowed-tools: Bash\((.+)\)$", text, re.M)
    assert allowed is not None and allowed.group(1) == line  # allowed without asking
    top = tmp_path / "p"
    top.mkdir()
    git(top, "init", "-q")
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(ROOT), "PATH": "/usr/bin:/bin"}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run(["bash", "-c", line], cwd=top, env=env, capture_output=True,
                       text=True, timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    assert (top / ".agents" / "memory" / "INDEX.md").is_file()


def test_a_plugin_user_is_told_which_command_makes_the_memory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The MCP error for "no memory" names the plugin's command when the plugin runs it."""
    exc = NotInitialized("no memory at /p/.agents/memory: run `lean-memory init` first")
    assert claude_code.INIT_COMMAND not in mcp_server._error_text(exc)
    monkeypatch.setenv("LEAN_MEMORY_PLUGIN", "1")
    assert claude_code.INIT_COMMAND in mcp_server._error_text(exc)
    assert (ROOT / "commands" / (claude_code.INIT_COMMAND.split(":")[1] + ".md")).is_file()


@given(st.lists(st.text(alphabet=st.characters(exclude_categories=["Cs"],
                                               exclude_characters="\x00")),
                min_size=1, max_size=6))
def test_sh_words_reads_what_sh_quote_writes(words: list[str]) -> None:
    """The hook lines we write are read back word for word, as shlex (POSIX) reads them."""
    if "=" in words[0]:
        words[0] = "x"  # `A=b cmd` is an assignment: not a hook line of ours
    line = " ".join(sh_quote(w) for w in words)
    assert claude_code.sh_words(line) == words == shlex.split(line)


# -- the real client ----------------------------------------------------------------------


def _claude_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_CONFIG_DIR", "LEAN_MEMORY_ROOT", "ANTHROPIC_API_KEY",
                        "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")}
    return {**env, "HOME": str(home), "PYTHONPATH": str(ROOT), "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1"}


def _contexts(claude: str, top: Path, env: dict[str, str], log: Path) -> list[str]:
    """Run one prompt in ``top`` (no login: Claude Code runs the hooks, then stops at the
    API) and return, per hook that injected, 'EVENT plugin' or 'EVENT settings'."""
    subprocess.run([claude, "-p", PROMPT, "--debug-file", str(log)], cwd=top, env=env,
                   capture_output=True, timeout=180, check=False)
    found = re.findall(r"Hook (\w+) \((.*?)\) provided additionalContext",
                       log.read_text("utf-8", "replace"))
    return sorted(f"{e} {'plugin' if 'CLAUDE_PLUGIN_ROOT' in c else 'settings'}"
                  for e, c in found)


@pytest.mark.skipif(shutil.which("claude") is None,
                    reason="the Claude Code CLI (`claude`, npm @anthropic-ai/claude-code) "
                           "is not on PATH")
def test_with_the_real_claude_code_one_set_runs(tmp_path: Path) -> None:
    """Claude Code itself, the plugin installed from this repository as a local marketplace:
    each hook injects once, whichever was set up first; the plugin's memory-init works."""
    claude = shutil.which("claude")
    assert claude is not None
    home = tmp_path / "home"
    home.mkdir()
    env = _claude_env(home)

    def run(*args: str, cwd: Path = tmp_path) -> subprocess.CompletedProcess[str]:
        r = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=180, check=False)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
        return r

    def lm(*args: str, cwd: Path) -> str:
        return run(sys.executable, "-m", "lean_memory", *args, cwd=cwd).stdout

    run(claude, "plugin", "validate", str(ROOT))
    both = {"SessionStart settings", "UserPromptSubmit settings"}
    # settings hooks first (init before the plugin came): they serve, the plugin stands down
    first = tmp_path / "first"
    first.mkdir()
    run("git", "init", "-q", cwd=first)
    lm("init", "--agent", "claude", cwd=first)
    lm("put", "quirks", FACT, cwd=first)
    run(claude, "plugin", "marketplace", "add", str(ROOT))
    run(claude, "plugin", "install", KEY)
    assert _contexts(claude, first, env, tmp_path / "1.log") == sorted(both)
    # the plugin first: init writes no hooks, the plugin's inject once each
    second = tmp_path / "second"
    second.mkdir()
    run("git", "init", "-q", cwd=second)
    assert "no hooks written" in lm("init", "--agent", "claude", cwd=second)
    lm("put", "quirks", FACT, cwd=second)
    assert _contexts(claude, second, env, tmp_path / "3.log") == [
        "SessionStart plugin", "UserPromptSubmit plugin"]
    # a plugin-only user makes the memory with the plugin's command
    third = tmp_path / "third"
    third.mkdir()
    run("git", "init", "-q", cwd=third)
    subprocess.run([claude, "-p", claude_code.INIT_COMMAND], cwd=third, env=env,
                   capture_output=True, timeout=180, check=False)
    assert (third / ".agents" / "memory" / "INDEX.md").is_file()
