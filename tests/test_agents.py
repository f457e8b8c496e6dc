"""The per-prompt digest, the agent hook command, and agent setup."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import agents, digest
from lean_memory import format as fmt
from lean_memory.tokens import estimate_tokens

from .conftest import ROOT, Stuck, run_cli

RULES = [
    "Run ruff and mypy --strict before every commit.",
    "Dates in memory are absolute (YYYY-MM-DD), never relative.",
    "Never commit generated files other than INDEX.md.",
]
FACTS = {
    "failures": "The Windows CI job failed because shards were checked out with CRLF; "
                "fixed with a .gitattributes -text rule.",
    "quirks": "pytest-xdist swallows print output unless you pass -s.",
    "insights": "Caching the BM25 index with marshal made search ten times faster.",
}


@pytest.fixture
def memory(tmp_path: Path) -> lean_memory.Memory:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for rule in RULES:
        mem.put_entry("conventions", rule, date="2026-01-05")
    for shard, text in FACTS.items():
        mem.put_entry(shard, text, date="2026-02-01")
    return mem


# -- digest ---------------------------------------------------------------------------


def test_digest_has_rules_and_best_match(memory: lean_memory.Memory) -> None:
    d = memory.digest("why does the windows CI fail on line endings?")
    assert d.startswith("## Standing rules")  # the index came with the session start
    for rule in RULES:
        assert rule in d
    assert FACTS["failures"] in d
    assert FACTS["quirks"] not in d
    assert d.index("Standing rules") < d.index("matching this prompt")
    assert d == memory.digest("why does the windows CI fail on line endings?")
    start = memory.digest("")
    assert start.startswith("# Memory index") and "matching" not in start
    assert "<!--" not in start  # the generated-file comment is not worth its tokens
    assert all(rule in start for rule in RULES)


def test_digest_says_nothing_extra_when_nothing_matches(memory: lean_memory.Memory) -> None:
    plain = memory.digest("", index=False)
    assert "matching" not in plain and RULES[0] in plain
    assert memory.digest("zebra giraffe savannah") == plain
    assert memory.digest("the and of") == plain  # only stop words


def test_digest_without_rules_or_entries(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    assert mem.digest("anything at all") == ""
    d = mem.digest("")
    assert d.startswith("# Memory index") and "## Standing rules" not in d


def test_digest_never_shows_superseded_or_said_again(memory: lean_memory.Memory) -> None:
    old_rule = memory.entries("conventions")[0]
    memory.put_entry("corrections", "Run ruff, mypy --strict and pytest before every commit.",
                     supersedes=old_rule.id, date="2026-03-01")
    old_fact = memory.entries("failures")[0]
    memory.put_entry("failures", "The Windows CI job now fails on long paths instead; enable "
                     "core.longpaths.", supersedes=old_fact.id, date="2026-03-01")
    again = ("The Windows CI job failed because the shards were checked out with CRLF; "
             "fixed with a -text rule in .gitattributes.")
    memory.put_entry("quirks", "pytest-xdist swallows the print output unless you pass -s.",
                     date="2026-03-02")
    d = memory.digest("windows CI job failed CRLF gitattributes pytest-xdist print")
    assert RULES[0] not in d and RULES[1] in d
    assert FACTS["failures"] not in d and "core.longpaths" in d
    assert "Said again" not in d and again not in d
    assert "said-again" not in d


def test_one_oversized_rule_is_cut(memory: lean_memory.Memory) -> None:
    long_rule = "Every public function needs a docstring that explains why. " * 20
    memory.put_entry("conventions", long_rule, title="Docstrings everywhere", date="2026-01-06")
    d = memory.digest("")
    line = next(ln for ln in d.splitlines() if "Docstrings everywhere" in ln)
    assert estimate_tokens(line) <= digest.RULE_CAP and line.endswith("…")


def test_many_long_rules_never_crowd_out_the_best_match(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for i in range(40):
        mem.put_entry("conventions", f"Rule {i}: " + "keep modules small and cohesive " * 12,
                      title=f"Rule number {i}", new=True, date="2026-01-01")
    mem.put_entry("failures", "The flaky websocket test needs a 5 second timeout on macOS.",
                  date="2026-02-01")
    for budget in (300, 500, 800):
        d = mem.digest("flaky websocket test on macOS", budget_tokens=budget)
        assert estimate_tokens(d) <= budget
        assert "flaky websocket test" in d, budget
        shown = sum(f"Rule number {i}" in d for i in range(40))
        if shown < 40:  # what did not fit is said, not hidden
            assert "more rules" in d


def test_left_out_matches_are_counted(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for i in range(6):
        mem.put_entry("failures", f"Deploy failure number {i}: the deploy script timed out "
                      + "while waiting for the load balancer health check. " * 8, new=True,
                      title=f"Deploy failure {i}", date="2026-02-01")
    d = mem.digest("deploy failure load balancer health check", budget_tokens=450)
    assert estimate_tokens(d) <= 450
    assert "Deploy failure" in d
    assert "left out for the token budget" in d


@pytest.mark.parametrize("budget", [0, 20, 60, 150, 300, 600, 1200, 4000])
def test_digest_stays_within_any_budget(memory: lean_memory.Memory, budget: int) -> None:
    d = memory.digest("windows CI line endings pytest print", budget_tokens=budget)
    assert estimate_tokens(d) <= budget
    if budget >= 300:
        assert all(rule in d for rule in RULES)


def write_big_memory(root: Path, n: int) -> lean_memory.Memory:
    """``n`` entries written straight to the shard files (put_entry would take minutes)."""
    mem = lean_memory.Memory(root)
    mem.init()
    words = [
        "cache", "index", "shard", "merge", "driver", "token", "budget", "prompt",
        "digest", "hook", "agent", "socket", "port", "database", "migration", "schema",
        "docker", "build", "deploy", "release", "branch", "rebase", "commit", "secret",
        "scan", "lock", "file", "fsync", "unicode", "parser", "fence", "heading",
    ]
    others = [s for s in mem.shards if s != "conventions"]
    parts: dict[str, list[str]] = {s: [] for s in mem.shards}
    for i in range(n):
        shard = "conventions" if i < 8 else others[i % len(others)]
        ws = [words[(i * 7 + j * 3) % len(words)] for j in range(10 + i % 20)]
        text = " ".join(ws) + f" (case {i})."
        if i == n // 2:
            shard = "failures"
            text = "The kerberos ticket expires during the nightly zanzibar export job."
        e = fmt.Entry(id=f"{i:08x}", shard=shard, title=text[:60], text=text,
                      date=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}")
        parts[shard].append(fmt.render_entry(e))
    for s in mem.shards:
        path = mem.shard_path(s)
        path.write_text(fmt.ensure_separated(path.read_text(encoding="utf-8"))
                        + "".join(parts[s]), encoding="utf-8")
    mem.index()
    return mem


def test_acceptance_small_budget_on_10k_entries(tmp_path: Path) -> None:
    mem = write_big_memory(tmp_path, 10_000)
    rules = [e for e in mem.entries("conventions")]
    assert len(rules) == 8
    d = mem.digest("why does the zanzibar export lose its kerberos ticket?", budget_tokens=600)
    assert estimate_tokens(d) <= 600
    for e in rules:
        assert e.title[:20] in d
    assert "kerberos ticket expires during the nightly zanzibar export" in d


# -- the hook command -----------------------------------------------------------------


def claude_prompt(cwd: Path, prompt: str) -> dict[str, Any]:
    # https://code.claude.com/docs/en/hooks#userpromptsubmit-input
    return {"session_id": "abc123",
            "transcript_path": "/home/u/.claude/projects/p/00893aaf.jsonl",
            "cwd": str(cwd), "permission_mode": "default",
            "hook_event_name": "UserPromptSubmit", "prompt": prompt}


def claude_start(cwd: Path) -> dict[str, Any]:
    # https://code.claude.com/docs/en/hooks#sessionstart-input
    return {"session_id": "abc123",
            "transcript_path": "/home/u/.claude/projects/p/00893aaf.jsonl",
            "cwd": str(cwd), "hook_event_name": "SessionStart", "source": "startup",
            "model": "claude-sonnet-4-6"}


def codex_prompt(cwd: Path, prompt: str) -> dict[str, Any]:
    # codex-rs/hooks/schema/generated/user-prompt-submit.command.input.schema.json
    return {"session_id": "019d036d-c7fa-72d2", "turn_id": "019d036d-c7fa-72d2-b6fd",
            "transcript_path": None, "cwd": str(cwd), "hook_event_name": "UserPromptSubmit",
            "model": "gpt-5.4", "permission_mode": "default", "prompt": prompt}


def codex_start(cwd: Path) -> dict[str, Any]:
    return {"session_id": "019d036d-c7fa-72d2", "transcript_path": None, "cwd": str(cwd),
            "hook_event_name": "SessionStart", "model": "gpt-5.4",
            "permission_mode": "default", "source": "resume"}


def hook(event: str, data: bytes | str, root: str | None = None) -> tuple[int, str]:
    raw = data.encode() if isinstance(data, str) else data
    stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    out = io.StringIO()
    code = agents.run_hook(event, root, stdin, out)
    return code, out.getvalue()


def check_output(text: str, event_name: str) -> str:
    assert text.endswith("\n") and text.count("\n") == 1
    assert len(text) < 10_000
    data = json.loads(text)
    assert set(data) == {"hookSpecificOutput"}
    spec = data["hookSpecificOutput"]
    assert spec["hookEventName"] == event_name
    assert isinstance(spec["additionalContext"], str)
    context: str = spec["additionalContext"]
    assert 0 < len(context) <= 10_000
    return context


@pytest.mark.parametrize("shape", [claude_prompt, codex_prompt])
def test_hook_prompt_inputs_of_both_agents(memory: lean_memory.Memory, shape: Any) -> None:
    payload = shape(memory.root, "Why did the Windows CI job fail?")
    code, out = hook("user-prompt-submit", json.dumps(payload))
    assert code == 0
    context = check_output(out, "UserPromptSubmit")
    assert FACTS["failures"] in context
    # the session start gave the index (ADR 0018) and, in a session, the rules (ADR 0030)
    assert "# Memory index" not in context and RULES[0] not in context


@pytest.mark.parametrize("shape", [claude_start, codex_start])
def test_hook_session_start_inputs_of_both_agents(memory: lean_memory.Memory,
                                                  shape: Any) -> None:
    code, out = hook("session-start", json.dumps(shape(memory.root)))
    context = check_output(out, "SessionStart")
    assert code == 0 and RULES[2] in context and "matching" not in context
    assert context.startswith("# Memory index")


def test_hook_finds_the_memory_from_the_input_cwd(memory: lean_memory.Memory,
                                                  tmp_path: Path) -> None:
    sub = memory.root / "src" / "pkg"
    sub.mkdir(parents=True)
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    elsewhere.mkdir()
    _, out = hook("user-prompt-submit",
                  json.dumps(claude_prompt(sub, "windows CI")), root=str(elsewhere))
    assert FACTS["failures"] in check_output(out, "UserPromptSubmit")


def test_hook_without_a_memory_prints_nothing(tmp_path: Path) -> None:
    code, out = hook("user-prompt-submit", json.dumps(claude_prompt(tmp_path, "hi")),
                     root=str(tmp_path))
    assert (code, out) == (0, "")
    assert not (tmp_path / ".agents").exists()


GARBAGE = [b"", b"\xff\xfe\x00", b"not json", b"[1, 2]", b'"a string"', b"{",
           b'{"hook_event_name": "UserPromptSubmit", "prompt": 42}',
           b'{"hook_event_name": "UserPromptSubmit", "prompt": ["x"], "cwd": 7}',
           b"\x00" * 1000]


@pytest.mark.parametrize("data", GARBAGE)
def test_hook_fails_open_on_garbage(memory: lean_memory.Memory, data: bytes) -> None:
    assert hook("user-prompt-submit", data, root=str(memory.root)) == (0, "")


def test_hook_fails_open_on_a_broken_memory_and_logs(memory: lean_memory.Memory) -> None:
    (memory.agents_dir / "config.toml").write_text("[memory]\ntoken_budget = 'lots'\n",
                                                    encoding="utf-8")
    payload = json.dumps(claude_prompt(memory.root, "windows"))
    assert hook("user-prompt-submit", payload) == (0, "")
    log = (memory.cache_dir / "hook.log").read_text(encoding="utf-8")
    assert "failed open: ConfigError" in log and "windows" not in log


def test_hook_gives_up_on_a_slow_disk(memory: lean_memory.Memory,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: a hook that waits for slow work past its time limit (it must give up,
    print nothing and log it)."""
    slow = Stuck("too late")
    monkeypatch.setattr("lean_memory.prompthook.hook_blocks", slow)  # a prompt's (ADR 0039)
    monkeypatch.setenv("LEAN_MEMORY_HOOK_TIMEOUT", "0.2")
    payload = json.dumps(claude_prompt(memory.root, "windows"))
    try:
        assert hook("user-prompt-submit", payload) == (0, "")
        assert not slow.finished.is_set()  # it returned while the work was still stuck
    finally:
        slow.release.set()
    assert "gave up" in (memory.cache_dir / "hook.log").read_text(encoding="utf-8")


def test_hook_output_stays_under_the_cap(memory: lean_memory.Memory) -> None:
    for i in range(30):
        memory.put_entry("failures", f"Huge incident {i}: " + "the payment queue stalls. " * 40,
                         title=f"Payment queue stall {i}", new=True, date="2026-02-02")
    payload = json.dumps(claude_prompt(memory.root, "payment queue stalls"))
    os.environ["LEAN_MEMORY_DIGEST_TOKENS"] = "20000"
    try:
        _, out = hook("user-prompt-submit", payload)
    finally:
        del os.environ["LEAN_MEMORY_DIGEST_TOKENS"]
    context = check_output(out, "UserPromptSubmit")
    assert len(context) <= agents.CONTEXT_LIMIT


def test_hook_whole_process(memory: lean_memory.Memory, tmp_path: Path) -> None:
    payload = json.dumps(codex_prompt(memory.root, "pytest-xdist print output")).encode()
    r = run_cli("hook", "user-prompt-submit", cwd=tmp_path.parent, stdin=payload)
    assert r.returncode == 0 and r.stderr == b""
    assert FACTS["quirks"] in check_output(r.stdout.decode(), "UserPromptSubmit")
    r = run_cli("hook", "user-prompt-submit", cwd=memory.root, stdin=b"\xff garbage")
    assert (r.returncode, r.stdout, r.stderr) == (0, b"", b"")


def test_get_digest_cli(memory: lean_memory.Memory) -> None:
    r = run_cli("get", "--digest", "windows CI line endings", cwd=memory.root)
    assert r.returncode == 0 and FACTS["failures"].encode() in r.stdout


# -- agent setup ----------------------------------------------------------------------


def run_configured(command: str, payload: dict[str, Any], cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run(command, shell=True, input=json.dumps(payload).encode(), cwd=cwd,
                       capture_output=True, env=env, timeout=60, check=False)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def test_setup_claude_writes_settings_and_claude_md(memory: lean_memory.Memory) -> None:
    (memory.root / "CLAUDE.md").write_text("# Project\n\nBe nice.\n", encoding="utf-8")
    lines = agents.setup_agent(memory, "claude")
    settings = json.loads((memory.root / ".claude" / "settings.local.json").read_text())
    hooks = settings["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "SessionEnd"}
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    assert hooks["UserPromptSubmit"][0]["hooks"][0]["type"] == "command"
    doc = (memory.root / "CLAUDE.md").read_text(encoding="utf-8")
    assert doc.startswith("# Project\n\nBe nice.\n\n<!-- lean-memory:begin -->\n@AGENTS.md\n")
    shared = (memory.root / "AGENTS.md").read_text(encoding="utf-8")
    assert "--supersedes" in shared and "get --query" in shared and "put failures" in shared
    assert any("wrote .claude/settings.local.json" in ln for ln in lines)
    # the configured command really answers the agent
    out = run_configured(command, claude_prompt(memory.root, "windows CI"), memory.root)
    assert FACTS["failures"] in check_output(out, "UserPromptSubmit")
    start = hooks["SessionStart"][0]["hooks"][0]["command"]
    assert RULES[0] in check_output(run_configured(start, claude_start(memory.root),
                                                   memory.root), "SessionStart")
    # idempotent
    again = agents.setup_agent(memory, "claude")
    assert any("already configured" in ln for ln in again)
    assert any("already present" in ln for ln in again)
    assert (memory.root / "CLAUDE.md").read_text(encoding="utf-8") == doc


def test_setup_merges_existing_settings(memory: lean_memory.Memory) -> None:
    path = memory.root / ".claude" / "settings.local.json"
    path.parent.mkdir()
    path.write_text('{"permissions": {"allow": ["Bash(ls)"]}}\n', encoding="utf-8")
    lines = agents.setup_agent(memory, "claude")
    settings = json.loads(path.read_text(encoding="utf-8"))
    assert settings["permissions"] == {"allow": ["Bash(ls)"]}
    assert "UserPromptSubmit" in settings["hooks"]
    assert any("other settings kept" in ln for ln in lines)


def test_setup_codex_writes_hooks_json_and_agents_md(memory: lean_memory.Memory) -> None:
    lines = agents.setup_agent(memory, "codex")
    config = json.loads((memory.root / ".codex" / "hooks.json").read_text())
    group = config["hooks"]["SessionStart"][0]
    assert group["matcher"] == "startup|resume|clear|compact"
    command = config["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    # the team shares .codex/hooks.json: no path of this machine in it
    assert command == agents.hook_command("user-prompt-submit", portable=True)
    assert "lean-memory hook user-prompt-submit" in command and agents.LAUNCHER in command
    assert "lean-memory:begin" in (memory.root / "AGENTS.md").read_text(encoding="utf-8")
    assert any("/hooks" in ln and "trust" in ln for ln in lines)


@pytest.mark.skipif(shutil.which("lean-memory") is None,
                    reason="the lean-memory console script is not on PATH (pip install -e .)")
def test_the_codex_hook_command_answers_through_the_console_script(
        memory: lean_memory.Memory) -> None:
    """The command .codex/hooks.json holds is the bare console script: run as configured."""
    agents.setup_agent(memory, "codex")
    config = json.loads((memory.root / ".codex" / "hooks.json").read_text())
    command = config["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"]
    out = run_configured(command, codex_prompt(memory.root, "pytest-xdist print"), memory.root)
    assert FACTS["quirks"] in check_output(out, "UserPromptSubmit")


def test_instructions_section_is_replaced_not_duplicated(memory: lean_memory.Memory) -> None:
    doc = memory.root / "AGENTS.md"
    doc.write_text("# Agents\n\n<!-- lean-memory:begin -->\nold text\n<!-- lean-memory:end -->\n"
                   "\n## After\n", encoding="utf-8")
    agents.setup_agent(memory, "codex")
    text = doc.read_text(encoding="utf-8")
    assert text.count("lean-memory:begin") == 1 and "old text" not in text
    assert text.startswith("# Agents\n\n") and text.endswith("\n## After\n")


def test_init_codex_asks_for_trust_only_when_our_hook_lines_change(tmp_path: Path) -> None:
    """Catches ``init --agent codex`` run again, with our hooks there and unchanged, still
    printing "trust the two new hooks once in Codex's /hooks" (QA): Codex asks for trust
    again only when a hook line changes, so the line is printed when ours are added or
    changed in .codex/hooks.json, and "unchanged" otherwise (as Claude's path says it)."""
    from .conftest import git

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    hooks = repo / ".codex" / "hooks.json"

    def init() -> list[str]:
        r = run_cli("init", "--agent", "codex", cwd=repo)
        assert r.returncode == 0, r.stderr
        return r.stdout.decode().splitlines()

    def trust(lines: list[str]) -> list[str]:
        return [ln for ln in lines if "trust" in ln and "/hooks" in ln]

    first = init()
    assert hooks.is_file() and len(trust(first)) == 1, first
    written = hooks.read_bytes()
    again = init()
    assert hooks.read_bytes() == written  # the case: our lines there, unchanged
    assert trust(again) == [] and any("unchanged" in ln for ln in again), again
    # A line an older version wrote (the bare console script) is changed: trust again.
    command = agents.hook_command("user-prompt-submit", portable=True)
    old = "lean-memory hook user-prompt-submit"
    hooks.write_text(written.decode().replace(json.dumps(command)[1:-1], old),
                     encoding="utf-8")
    assert old in hooks.read_text(encoding="utf-8")
    changed = init()
    assert hooks.read_bytes() == written and len(trust(changed)) == 1, changed
    assert not any("unchanged" in ln for ln in changed), changed
    # A person took our SessionStart hook out: init adds it back, which Codex must trust.
    config = json.loads(written)
    del config["hooks"]["SessionStart"]
    hooks.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    added = init()
    assert "SessionStart" in json.loads(hooks.read_text(encoding="utf-8"))["hooks"]
    assert len(trust(added)) == 1, added
    assert trust(init()) == []
