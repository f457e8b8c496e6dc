"""Agent setup as a team gets it (issue 25 items 5-7, issue 22's "commands that run").

Everything here goes through real processes: ``git``, the CLI as ``python -P -m
lean_memory`` (conftest's ``run_cli``), and the hook commands ``init`` writes, run as Claude
Code and Codex run them: a shell command with the project as its folder and the event's JSON
on standard input. "Not installed" is a PATH without ``lean-memory``; "installed" is a
``lean-memory`` on PATH that starts this checkout.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import agents, compaction
from lean_memory import format as fmt

from .conftest import ROOT, git, run_cli

BARE_PATH = "/usr/bin:/bin"  # sh, cat, git; no lean-memory
DEPLOY = "Deploy with make deploy from a clean checkout; make deploy-legacy is gone."
OLD_SECTION = """<!-- lean-memory:begin -->
## Project memory (lean_memory)

Durable memory for agents lives in `.agents/memory/` as Markdown shards.
Run lean_memory as `"{py}" -m lean_memory`:

- `"{py}" -m lean_memory get --query "words"`: the entries about a topic (with their ids).
- `"{py}" -m lean_memory put failures "What broke" --tag ci`
<!-- lean-memory:end -->
"""


_SESSIONS = itertools.count(1)  # each hook run its own session: a session pays once


def prompt(project: Path, text: str = "how do I deploy?") -> dict[str, Any]:
    return {"session_id": f"s{next(_SESSIONS)}", "cwd": str(project), "prompt": text,
            "hook_event_name": "UserPromptSubmit"}


def start(project: Path) -> dict[str, Any]:
    return {"session_id": "s1", "cwd": str(project), "source": "startup",
            "hook_event_name": "SessionStart"}


def installed_bin(tmp_path: Path) -> Path:
    """A folder holding a ``lean-memory`` that runs this checkout, as pipx's link would."""
    folder = tmp_path / "pipx-bin"
    folder.mkdir(exist_ok=True)
    script = folder / "lean-memory"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -P -m lean_memory "$@"\n',
                      encoding="utf-8")
    script.chmod(0o755)
    return folder


def agent_env(path: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": path}
    env.pop("LEAN_MEMORY_ROOT", None)
    return env


def run_hook_as_agent(command: str, payload: dict[str, Any], project: Path,
                      path: str) -> subprocess.CompletedProcess[str]:
    """``command`` as both agents run it: through a shell, in the project, JSON on stdin."""
    return subprocess.run(["sh", "-c", command], cwd=project, input=json.dumps(payload),
                          capture_output=True, text=True, env=agent_env(path), timeout=60,
                          check=False)


def commands(settings: Path) -> dict[str, str]:
    hooks = json.loads(settings.read_text(encoding="utf-8"))["hooks"]
    found = {}
    for event in ("SessionStart", "UserPromptSubmit"):
        ours = [h["command"] for g in hooks[event] for h in g["hooks"]
                if "lean" in h["command"]]
        assert len(ours) == 1, (event, hooks[event])  # added once, never twice
        found[event] = ours[0]
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a memory holding one fact about deploying."""
    where = tmp_path / "project"
    where.mkdir()
    git(where, "init", "-q")
    r = run_cli("init", cwd=where)
    assert r.returncode == 0, r.stderr
    r = run_cli("put", "failures", DEPLOY, "--tag", "deploy", cwd=where)
    assert r.returncode == 0, r.stderr
    return where


def init(project: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli("init", *args, cwd=project)


# -- item 5: an existing .claude/settings.local.json is merged -------------------------


def test_existing_claude_settings_are_merged_keeping_every_key(project: Path,
                                                               tmp_path: Path) -> None:
    """Old code printed 27 lines of JSON to merge by hand, exited 0 and left the file as
    it was: a user who missed them had no hooks. Now the hooks are merged in."""
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    mine = {"permissions": {"allow": ["Bash(make test)"], "deny": ["Read(./.env)"]},
            "env": {"FOO": "1"},
            "hooks": {"PreToolUse": [{"matcher": "Bash",
                                      "hooks": [{"type": "command", "command": "audit.sh"}]}],
                      "UserPromptSubmit": [{"hooks": [{"type": "command",
                                                       "command": "echo mine"}]}]},
            "model": "opus"}
    settings.write_text(json.dumps(mine, indent=4) + "\n", encoding="utf-8")
    r = init(project, "--agent", "claude")
    assert r.returncode == 0, r.stderr
    assert b"merge these hooks" not in r.stdout and b'"hooks"' not in r.stdout
    merged = json.loads(settings.read_text(encoding="utf-8"))
    assert list(merged) == list(mine)  # every key, in its order
    for key in ("permissions", "env", "model"):
        assert merged[key] == mine[key]
    assert merged["hooks"]["PreToolUse"] == mine["hooks"]["PreToolUse"]
    assert merged["hooks"]["UserPromptSubmit"][0] == mine["hooks"]["UserPromptSubmit"][0]
    ours = commands(settings)
    # idempotent: again, byte for byte, and said so
    before = settings.read_bytes()
    r = init(project, "--agent", "claude")
    assert r.returncode == 0 and b"already configured" in r.stdout, r.stdout
    assert settings.read_bytes() == before
    assert not list(settings.parent.glob("*.tmp")) and not list(settings.parent.glob(".*tmp"))
    # the merged hooks answer, even where lean-memory is not on PATH (personal file)
    out = run_hook_as_agent(ours["UserPromptSubmit"], prompt(project), project, BARE_PATH)
    assert out.returncode == 0, out.stderr
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    assert DEPLOY in context


@pytest.mark.parametrize("text", ['{"permissions": {"allow": ["Bash(ls)"],}}\n',
                                  '{"hooks": ["not", "events"]}\n', "[1, 2]\n"])
def test_settings_that_cannot_be_merged_are_left_alone(project: Path, text: str) -> None:
    """Old code exited 0 with a snippet to merge by hand. A file that is not a JSON object
    of the agents' shape is never rewritten (it would lose what it holds): one line naming
    it, exit 2, and nothing else written, so a rerun after the fix does everything."""
    settings = project / ".claude" / "settings.local.json"
    settings.parent.mkdir()
    settings.write_text(text, encoding="utf-8")
    r = init(project, "--agent", "claude")
    assert r.returncode == 2
    err = r.stderr.decode()
    assert err.count("\n") == 1 and ".claude/settings.local.json" in err
    assert "left as it is" in err and "Traceback" not in err
    assert settings.read_text(encoding="utf-8") == text
    assert not (project / "CLAUDE.md").exists() and not (project / "AGENTS.md").exists()
    settings.write_text('{"permissions": {"allow": ["Bash(ls)"]}}\n', encoding="utf-8")
    r = init(project, "--agent", "claude")
    assert r.returncode == 0, r.stderr
    assert json.loads(settings.read_text())["permissions"] == {"allow": ["Bash(ls)"]}
    commands(settings)


# -- item 6: Codex hooks fail open where lean-memory is not installed -------------------


def test_codex_hooks_fail_open_with_one_line_where_not_installed(project: Path,
                                                                  tmp_path: Path) -> None:
    """Old code wrote `lean-memory hook ...`: exit 127 on every prompt of a teammate
    without lean-memory on PATH (Codex flags it; exit 2 would even block the prompt). Now:
    exit 0, nothing for the agent, one line for the person saying how to install."""
    assert shutil.which("lean-memory", path=BARE_PATH) is None
    r = init(project, "--agent", "codex")
    assert r.returncode == 0, r.stderr
    ours = commands(project / ".codex" / "hooks.json")
    # this machine: init wrote its launcher, so the hook answers with no lean-memory on PATH
    out = run_hook_as_agent(ours["UserPromptSubmit"], prompt(project), project, BARE_PATH)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert DEPLOY in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    Path(agents.launcher_path()).unlink()  # a teammate's machine: no launcher

    out = run_hook_as_agent(ours["UserPromptSubmit"], prompt(project), project, BARE_PATH)
    assert (out.returncode, out.stdout) == (0, "")
    assert out.stderr.count("\n") == 1 and "pipx install" in out.stderr
    out = run_hook_as_agent(ours["SessionStart"], start(project), project, BARE_PATH)
    assert out.returncode == 0 and out.stderr == ""
    shown = json.loads(out.stdout)  # both agents show a systemMessage to the person only
    assert list(shown) == ["systemMessage"] and "pipx install" in shown["systemMessage"]
    assert "\n" not in shown["systemMessage"]
    # a large prompt: the hook reads it all, so the agent's write never hits a closed pipe
    big = prompt(project, "deploy " * 40_000)
    out = run_hook_as_agent(ours["UserPromptSubmit"], big, project, BARE_PATH)
    assert (out.returncode, out.stdout) == (0, "")

    # the teammate who has it installed gets the memory from the same shared file
    path = f"{installed_bin(tmp_path)}:{BARE_PATH}"
    out = run_hook_as_agent(ours["UserPromptSubmit"], prompt(project), project, path)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    assert DEPLOY in json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    out = run_hook_as_agent(ours["SessionStart"], start(project), project, path)
    spec = json.loads(out.stdout)["hookSpecificOutput"]
    assert spec["hookEventName"] == "SessionStart" and "# Memory index" in spec[
        "additionalContext"]


def test_init_rewrites_the_bare_codex_commands_older_versions_wrote(project: Path) -> None:
    """Old code left `lean-memory hook EVENT` (exit 127 without it) in existing installs;
    plain `init` now wraps them, the rest of the file kept."""
    hooks = project / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    old = {"hooks": {
        "SessionStart": [{"matcher": "startup|resume", "hooks": [
            {"type": "command", "command": "lean-memory hook session-start", "timeout": 10}]}],
        "UserPromptSubmit": [{"hooks": [
            {"type": "command", "command": "lean-memory hook user-prompt-submit"},
            {"type": "command", "command": "other-tool"}]}]}}
    hooks.write_text(json.dumps(old, indent=2) + "\n", encoding="utf-8")
    r = init(project)
    assert r.returncode == 0 and b".codex/hooks.json" in r.stdout, r.stdout
    new = json.loads(hooks.read_text(encoding="utf-8"))
    ours = commands(hooks)
    assert ours["SessionStart"] == agents.hook_command("session-start", portable=True)
    assert ours["UserPromptSubmit"] == agents.hook_command("user-prompt-submit", portable=True)
    assert new["hooks"]["UserPromptSubmit"][0]["hooks"][1] == {"type": "command",
                                                              "command": "other-tool"}
    assert new["hooks"]["SessionStart"][0]["matcher"] == "startup|resume"
    assert Path(agents.launcher_path()).is_file()  # init wrote this user's launcher
    Path(agents.launcher_path()).unlink()
    out = run_hook_as_agent(ours["UserPromptSubmit"], prompt(project), project, BARE_PATH)
    assert (out.returncode, out.stdout) == (0, "")
    assert init(project).returncode == 0 and Path(agents.launcher_path()).is_file()
    again = hooks.read_bytes()
    assert init(project).returncode == 0 and hooks.read_bytes() == again


# -- item 7: both agents, one section ---------------------------------------------------


def expand_imports(doc: Path) -> str:
    """CLAUDE.md as Claude Code reads it: an ``@path`` line is replaced by that file."""
    out = []
    for line in doc.read_text(encoding="utf-8").splitlines(keepends=True):
        m = re.fullmatch(r"@(\S+)\n?", line)
        out.append((doc.parent / m.group(1)).read_text(encoding="utf-8") if m else line)
    return "".join(out)


def test_both_agents_share_one_section(project: Path) -> None:
    """Old code wrote the same 20-line section into CLAUDE.md and AGENTS.md. Now AGENTS.md
    holds it and CLAUDE.md imports it, in either order of setup."""
    (project / "CLAUDE.md").write_text("# Team notes\n\nBe brief.\n", encoding="utf-8")
    assert init(project, "--agent", "claude").returncode == 0
    assert init(project, "--agent", "codex").returncode == 0
    claude = (project / "CLAUDE.md").read_text(encoding="utf-8")
    shared = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert claude == ("# Team notes\n\nBe brief.\n\n<!-- lean-memory:begin -->\n@AGENTS.md\n"
                      "<!-- lean-memory:end -->\n")
    assert shared.count("## Project memory (lean_memory)") == 1
    seen = expand_imports(project / "CLAUDE.md")  # what Claude Code reads: the section once
    assert seen.count("## Project memory (lean_memory)") == 1 and "Be brief." in seen
    # the other order, and reruns: no second import, no second section
    assert init(project, "--agent", "claude").returncode == 0
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == claude
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == shared


def test_init_with_both_agents_sets_up_both(project: Path) -> None:
    """`init --agent claude --agent codex` set up Codex alone (the last --agent won, the
    first was dropped without a word); the docs say both may run in one repository."""
    r = init(project, "--agent", "claude", "--agent", "codex")
    assert r.returncode == 0, r.stderr
    assert set(commands(project / ".claude" / "settings.local.json")) == {
        "SessionStart", "UserPromptSubmit"}
    codex = json.loads((project / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    assert {"SessionStart", "UserPromptSubmit"} <= set(codex["hooks"])

def test_init_migrates_the_old_claude_md_section(project: Path) -> None:
    """Old code kept a full section (naming this machine's interpreter) in CLAUDE.md.
    `init` replaces that block with the import; the hand text around it stays."""
    before, after = "# Project\n\nUse tabs.\n\n", "\n## Later\n\nHand-written.\n"
    old = OLD_SECTION.format(py=sys.executable)
    (project / "CLAUDE.md").write_text(before + old + after, encoding="utf-8")
    r = init(project)
    assert r.returncode == 0, r.stderr
    claude = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude == (before + "<!-- lean-memory:begin -->\n@AGENTS.md\n"
                      "<!-- lean-memory:end -->\n" + after)
    shared = (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "`lean-memory get --query" in shared and sys.executable not in shared
    assert b"CLAUDE.md" in r.stdout and b"AGENTS.md" in r.stdout
    again = init(project, "--agent", "claude")
    assert again.returncode == 0 and (project / "CLAUDE.md").read_text("utf-8") == claude


def test_a_hand_written_import_is_not_repeated(project: Path) -> None:
    """A CLAUDE.md that already imports AGENTS.md (the common pattern) gets no second
    import; an old block of ours in it is removed rather than turned into one."""
    text = "See @AGENTS.md for everything.\n\n" + OLD_SECTION.format(py="/usr/bin/python3")
    (project / "CLAUDE.md").write_text(text, encoding="utf-8")
    assert init(project, "--agent", "claude").returncode == 0
    claude = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude == "See @AGENTS.md for everything.\n\n"
    assert expand_imports(project / "CLAUDE.md").count("Project memory (lean_memory)") == 0
    assert "Project memory (lean_memory)" in (project / "AGENTS.md").read_text("utf-8")


# -- issue 22: one command that works for every teammate, no machine path ---------------


MACHINE = re.compile(r"python -m lean_memory|-m lean_memory")


def machine_paths(tmp_path: Path) -> list[str]:
    return [str(tmp_path), str(tmp_path.resolve()), sys.executable,
            str(Path(sys.executable).parent), str(ROOT), Path.home().as_posix()]


def test_committed_and_injected_text_names_only_lean_memory(project: Path,
                                                            tmp_path: Path) -> None:
    """Old code wrote `python -m lean_memory ...` (fails under pipx, `uv tool`, a venv
    that is not active) into INDEX.md, the digest, compaction placeholders and init's
    advice, and this machine's interpreter path into CLAUDE.md/AGENTS.md."""
    for i in range(12):  # more rules than a small digest budget shows: the "more" note
        r = run_cli("put", "conventions", f"Rule {i}: keep the deploy scripts idempotent "
                    "and the release notes dated.", "--new", cwd=project)
        assert r.returncode == 0, r.stderr
    said = [init(project, "--agent", "claude"), init(project, "--agent", "codex")]
    assert all(r.returncode == 0 for r in said), [r.stderr for r in said]
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "memory")
    committed = git(project, "ls-files").stdout.split()
    for name in ("AGENTS.md", "CLAUDE.md", ".codex/hooks.json", ".agents/memory/INDEX.md",
                 ".agents/memory/failures.md", ".gitattributes"):
        assert name in committed, committed
    assert ".claude/settings.local.json" not in committed  # personal: it names this machine
    for name in committed:
        text = (project / name).read_text(encoding="utf-8")
        for path in machine_paths(tmp_path):
            assert path not in text, (name, path)
        assert not MACHINE.search(text), name

    injected = [r.stdout.decode() for r in said]
    hooks = commands(project / ".codex" / "hooks.json")
    path = f"{installed_bin(tmp_path)}:{BARE_PATH}"
    for event, payload in (("SessionStart", start(project)),
                           ("UserPromptSubmit", prompt(project))):
        out = run_hook_as_agent(hooks[event], payload, project, path)
        injected.append(json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"])
    # the rules ride the session start (pay-once, ADR 0030): a small one has the "more" note
    small = run_cli("hook", "session-start", cwd=project,
                    stdin=json.dumps(start(project)).encode(),
                    env={"LEAN_MEMORY_DIGEST_TOKENS": "90"})
    injected.append(json.loads(small.stdout)["hookSpecificOutput"]["additionalContext"])
    folded = [fmt.Entry(id=f"{i:08x}", shard="failures", title="t", text="x",
                        date="2026-01-01") for i in range(2)]
    injected.append(compaction._header("failures", folded))
    for text in injected:
        assert not MACHINE.search(text), text
    joined = "\n".join(injected)
    assert "`lean-memory get" in joined and "`lean-memory init`" in joined
    assert "`lean-memory get failures --archive`" in joined
    assert "more rules: `lean-memory get conventions`" in joined
    assert "`lean-memory get --query" in (project / ".agents/memory/INDEX.md").read_text()


# -- the merge, for any settings of the agents' shape -----------------------------------

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)
GROUP = st.fixed_dictionaries({"hooks": st.lists(st.fixed_dictionaries(
    {"type": st.just("command"), "command": st.sampled_from(
        ["echo hi", "audit.sh", "lean-memory hook user-prompt-submit", "other hook"])}),
    max_size=2)})
SETTINGS = st.dictionaries(st.sampled_from(["permissions", "env", "model", "x"]), JSON,
                           max_size=4).flatmap(lambda rest: st.one_of(
    st.just(rest), st.dictionaries(st.sampled_from(["SessionStart", "UserPromptSubmit",
                                                    "PreToolUse", "Stop"]),
                                   st.lists(GROUP, max_size=2), max_size=3).map(
        lambda hooks: {**rest, "hooks": hooks})))


@settings(max_examples=150, deadline=None)
@given(SETTINGS, st.sampled_from(["claude", "codex"]))
def test_merge_keeps_everything_and_adds_ours_once(current: dict[str, Any], agent: str) -> None:
    """Whatever the settings hold, the merge keeps every key and hook in its place, adds
    ours only to an event without one, and a second merge changes nothing (old code had no
    merge at all: it printed the hooks to paste by hand)."""
    merged = agents._merge_hooks(json.loads(json.dumps(current)), agent)
    assert merged is not None
    assert [k for k in merged if k != "hooks"] == [k for k in current if k != "hooks"]
    assert all(merged[k] == v for k, v in current.items() if k != "hooks")
    before = current.get("hooks", {})
    for event, groups in before.items():
        assert merged["hooks"][event][:len(groups)] == groups
    for event in ("SessionStart", "UserPromptSubmit"):
        needle = "hook session-start" if event == "SessionStart" else "hook user-prompt-submit"
        had = any(needle in h["command"] for g in before.get(event, []) for h in g["hooks"])
        added = len(merged["hooks"][event]) - len(before.get(event, []))
        assert added == (0 if had else 1)
        assert any(needle in h["command"] for g in merged["hooks"][event] for h in g["hooks"])
    assert agents._merge_hooks(json.loads(json.dumps(merged)), agent) == merged
