"""Issue 25 item 4: the Claude Code plugin shipped in the repository. Its manifests match
the published formats, no file names a machine path, and its hook commands run with the JSON
that Claude Code sends, from another folder, without ever importing a ``lean_memory/``
package planted in the project (main 09d408f had no plugin at all)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import estimate_tokens
from lean_memory.mcp_server import TOOLS

from .conftest import ROOT

PLUGIN_FILES = [".claude-plugin/plugin.json", ".claude-plugin/marketplace.json",
                "hooks/hooks.json", ".mcp.json", "scripts/lean-memory",
                "skills/project-memory/SKILL.md", "commands/memory-save.md",
                "commands/memory-recall.md", "commands/memory-forget.md",
                "commands/memory-status.md", "commands/memory-init.md"]

# The parts of the published schemas that these files use (SchemaStore's
# claude-code-plugin-manifest.json and claude-code-marketplace.json, 2026-04; the hooks
# file has the shape of their "hooks" object; .mcp.json that of "mcpServers"), transcribed.
_HOOK_EVENTS = ["PreToolUse", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
                "Notification", "UserPromptSubmit", "UserPromptExpansion", "SessionStart",
                "SessionEnd", "Stop", "StopFailure", "SubagentStart", "SubagentStop",
                "PreCompact", "PostCompact", "PermissionRequest", "PermissionDenied", "Setup",
                "TeammateIdle", "TaskCreated", "TaskCompleted", "Elicitation",
                "ElicitationResult", "ConfigChange", "WorktreeCreate", "WorktreeRemove",
                "InstructionsLoaded", "CwdChanged", "FileChanged"]
_S = {"type": "string"}
_AUTHOR = {"type": "object", "required": ["name"],
           "properties": {"name": {"type": "string", "minLength": 1}, "email": _S, "url": _S}}
_COMMAND_HOOK = {"type": "object", "required": ["type", "command"],
                 "properties": {"type": {"const": "command"}, "command": _S,
                                "timeout": {"type": "number", "exclusiveMinimum": 0},
                                "statusMessage": _S, "async": {"type": "boolean"}}}
HOOKS = {"type": "object", "propertyNames": {"enum": _HOOK_EVENTS},
         "additionalProperties": {"type": "array", "items": {
             "type": "object", "required": ["hooks"],
             "properties": {"matcher": _S, "hooks": {"type": "array", "items": _COMMAND_HOOK}}}}}
PLUGIN = {"type": "object", "required": ["name"],
          "properties": {"name": {"type": "string", "minLength": 1,
                                  "pattern": r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$"},
                         "version": _S, "description": _S, "author": _AUTHOR,
                         "homepage": {"type": "string", "format": "uri"}, "repository": _S,
                         "license": _S, "keywords": {"type": "array", "items": _S},
                         "hooks": {"anyOf": [{"type": "string", "pattern": r"^\./.*\.json$"},
                                             HOOKS]}}}
MARKETPLACE = {"type": "object", "required": ["name", "owner", "plugins"],
               "properties": {"name": {"type": "string", "minLength": 1}, "version": _S,
                              "description": _S, "owner": _AUTHOR,
                              "plugins": {"type": "array", "items": {
                                  "type": "object", "required": ["name", "source"],
                                  "properties": {"name": {"type": "string", "minLength": 1},
                                                 "source": {"type": "string",
                                                            "pattern": r"^\./.*"},
                                                 "version": _S, "description": _S,
                                                 "category": _S}}}}}
HOOKS_FILE = {"type": "object", "required": ["hooks"],
              "properties": {"description": _S, "hooks": HOOKS}}
MCP_FILE = {"type": "object", "required": ["mcpServers"],
            "properties": {"mcpServers": {"type": "object", "additionalProperties": {
                "type": "object", "required": ["command"],
                "properties": {"command": {"type": "string", "minLength": 1},
                               "args": {"type": "array", "items": _S},
                               "env": {"type": "object", "additionalProperties": _S}}}}}}
# Agent Skills: a lowercase name (the folder's) of at most 64 characters, a description of
# at most 1,024 characters; each command a Markdown file with a description.
_NAME = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")
_FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


def _json(rel: str) -> Any:
    return json.loads((ROOT / rel).read_text(encoding="utf-8"))


def _front(rel: str) -> dict[str, str]:
    match = _FRONT.match((ROOT / rel).read_text(encoding="utf-8"))
    assert match, f"{rel}: no YAML front matter"
    return dict(line.split(": ", 1) for line in match.group(1).splitlines())


@pytest.mark.parametrize(("rel", "schema"), [
    (".claude-plugin/plugin.json", PLUGIN), (".claude-plugin/marketplace.json", MARKETPLACE),
    ("hooks/hooks.json", HOOKS_FILE), (".mcp.json", MCP_FILE)])
def test_manifests_match_the_published_formats(rel: str, schema: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema",
                                     reason="jsonschema comes with the MCP SDK (test extra)")
    jsonschema.validate(_json(rel), schema)


def test_the_plugin_is_whole_and_names_no_machine_path() -> None:
    """The marketplace lists this plugin at its root, versions agree, every command runs
    through ``${CLAUDE_PLUGIN_ROOT}``, and no file holds an absolute path."""
    plugin, market = _json(".claude-plugin/plugin.json"), _json(".claude-plugin/marketplace.json")
    [entry] = market["plugins"]
    assert entry["name"] == plugin["name"] and entry["source"] == "./"
    assert plugin["version"] == entry["version"] == lean_memory.__version__
    absolute = re.compile(r"(?<![\w$}.])(/(home|root|usr|tmp|Users|work|opt|var)/|[A-Z]:\\)")
    for rel in PLUGIN_FILES:
        text = (ROOT / rel).read_text(encoding="utf-8")
        assert not absolute.search(text), rel
    hooks = _json("hooks/hooks.json")["hooks"]
    commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
    server = _json(".mcp.json")["mcpServers"]["lean-memory"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "SessionEnd"}
    for line in [*commands, " ".join(server["args"])]:
        assert "${CLAUDE_PLUGIN_ROOT}/scripts/lean-memory" in line


def test_the_skill_and_commands() -> None:
    """The skill costs ~100 tokens until used; the commands only name tools that exist."""
    skill = _front("skills/project-memory/SKILL.md")
    assert skill["name"] == "project-memory" and _NAME.fullmatch(skill["name"])
    assert len(skill["description"]) <= 1024
    assert 40 <= estimate_tokens(skill["description"]) <= 130
    prefix = "mcp__plugin_lean-memory_lean-memory__"
    tools = {t["name"] for t in TOOLS}
    for name in ("memory-save", "memory-recall", "memory-forget", "memory-status"):
        front = _front(f"commands/{name}.md")
        assert 0 < len(front["description"]) <= 60
        allowed = [t.strip() for t in front["allowed-tools"].split(",")]
        assert allowed and all(t.startswith(prefix) and t[len(prefix):] in tools
                               for t in allowed), name


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A project with a memory and a planted ``lean_memory/`` that leaves a mark if run."""
    project, mark = tmp_path / "project", tmp_path / "PWNED"
    mem = lean_memory.Memory(project)
    mem.init()
    mem.put_entry("quirks", "pytest-xdist hides print output; run pytest with -s -p no:xdist")
    planted = project / "lean_memory"
    planted.mkdir()
    for name in ("__init__.py", "__main__.py", "cli.py"):
        (planted / name).write_text(f"open({str(mark)!r}, 'w').write('ran')\n", "utf-8")
    (project / "sitecustomize.py").write_text(f"open({str(mark)!r}, 'w').write('ran')\n",
                                              "utf-8")
    return project, mark


def _settled(project: Path, seconds: float = 120.0) -> None:
    """Wait until no background process the hooks spawned runs (spawn.detached removes its
    marker when it ends): the plant must not run there either. Polls its effect, with a
    generous limit, so the verdict never depends on how loaded the machine is."""
    cache = project / ".agents" / "memory" / ".cache"
    deadline = time.monotonic() + seconds
    while any((cache / m).exists() for m in ("search.warming", "embed.running")):
        if time.monotonic() > deadline:
            pytest.fail("a background process the hooks spawned never ended")
        time.sleep(0.05)


def _hook(command: str, payload: dict[str, Any], cwd: Path,
          env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    shell = shutil.which("bash") or "sh"  # Claude Code runs hook commands with bash
    return subprocess.run([shell, "-c", command], input=json.dumps(payload), cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=60, check=False)


def test_hook_commands_run_as_claude_code_runs_them(tmp_path: Path) -> None:
    """SessionStart and UserPromptSubmit with Claude Code's JSON, from the project folder,
    PYTHONPATH pointing at the planted package: the memory comes back, the plant never runs."""
    project, mark = _project(tmp_path)
    # the hook's own time limit at its most generous: on a loaded machine it would give up
    # (failing open, with no memory), which is right for the hook but no verdict for a test
    # the hook's time limit at its most generous: on a loaded machine it gives up (failing
    # open, without the memory), which is right for a hook but no verdict for a test
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(ROOT), "CLAUDE_PROJECT_DIR": str(project),
           "PYTHONPATH": str(project), "LEAN_MEMORY_HOOK_TIMEOUT": "60"}
    env.pop("LEAN_MEMORY_ROOT", None)
    hooks = _json("hooks/hooks.json")["hooks"]
    common = {"session_id": "8f2c", "transcript_path": str(tmp_path / "t.jsonl"),
              "cwd": str(project)}
    events = {
        "SessionStart": {**common, "hook_event_name": "SessionStart", "source": "startup"},
        "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit",
                             "permission_mode": "default",
                             "prompt": "why does pytest hide my print output?"},
    }
    for event, payload in events.items():
        [group] = hooks[event]
        r = _hook(group["hooks"][0]["command"], payload, project, env)
        assert r.returncode == 0 and r.stderr == "", (event, r)
        out = json.loads(r.stdout)["hookSpecificOutput"]
        assert out["hookEventName"] == event
        want = "quirks" if event == "SessionStart" else "pytest-xdist hides print output"
        assert want in out["additionalContext"], event
    # The warm-up a hook may start runs on after it (issue 36: it ran the plant, seen only
    # when the machine was slow enough to let this check come first): wait for it to end.
    _settled(project)
    assert not mark.exists()


def test_without_python_311_a_hook_fails_open_and_says_so_once(tmp_path: Path) -> None:
    """No usable Python on PATH: the hook exits 0 (2 would block the prompt) with one line;
    the MCP server, which nothing waits on, exits 2."""
    project, mark = _project(tmp_path)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("sh", "bash", "dirname"):
        found = shutil.which(tool)
        if found:
            (bindir / tool).symlink_to(found)
    env = {"PATH": str(bindir), "CLAUDE_PLUGIN_ROOT": str(ROOT), "HOME": str(tmp_path)}
    command = _json("hooks/hooks.json")["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    r = _hook(command, {"hook_event_name": "UserPromptSubmit", "prompt": "x",
                        "cwd": str(project)}, project, env)
    assert r.returncode == 0 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "Python >= 3.11" in r.stderr
    server = _json(".mcp.json")["mcpServers"]["lean-memory"]
    args = [a.replace("${CLAUDE_PLUGIN_ROOT}", str(ROOT)) for a in server["args"]]
    r2 = subprocess.run([str(bindir / "sh"), *args], cwd=project, env=env, input="",
                        capture_output=True, text=True, timeout=60, check=False)
    assert r2.returncode == 2 and "Python >= 3.11" in r2.stderr
    assert not mark.exists()


def test_the_plugin_mcp_server_serves_the_project(tmp_path: Path) -> None:
    """``.mcp.json`` as Claude Code starts it (official SDK client, cwd the project)."""
    mcp = pytest.importorskip("mcp", reason="the test extra installs the official MCP SDK")
    anyio = pytest.importorskip("anyio", reason="the MCP SDK (test extra) brings anyio")
    project, mark = _project(tmp_path)
    server = _json(".mcp.json")["mcpServers"]["lean-memory"]
    env = {**os.environ, "CLAUDE_PLUGIN_ROOT": str(ROOT), "PYTHONPATH": str(project)}
    env.pop("LEAN_MEMORY_ROOT", None)
    params = mcp.StdioServerParameters(
        command=server["command"], cwd=str(project), env=env,
        args=[a.replace("${CLAUDE_PLUGIN_ROOT}", str(ROOT)) for a in server["args"]])

    async def session() -> str:
        async with mcp.Client(params) as client:
            found = await client.call_tool("memory_search", {"query": "print output"})
            return "".join(getattr(c, "text", "") for c in found.content)

    assert "pytest-xdist" in anyio.run(session)
    _settled(project)
    assert not mark.exists()
