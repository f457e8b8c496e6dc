"""Pay once (issue 33, ADR 0030): in a session the hooks inject each standing rule and each
entry once; what the agent already has in its context is not paid for again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lean_memory
from lean_memory import prompthook as payonce
from lean_memory.learn import hook_text

RULE = "Run the core package tests with npm test -w core, never the whole suite."
LONG_RULE = ("Database migrations are written with prisma migrate dev --name <change>; "
             + "an applied migration is never edited, " * 12 + "and the schema file is the "
             "only source of truth for the tables.")
FACT = "The deploy failed: the socket timeout of the load balancer was too short."
OTHER = "Storybook runs on port 6006 and needs the design tokens built first."


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> lean_memory.Memory:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "global"))
    mem = lean_memory.Memory(tmp_path / "repo")
    mem.init()
    mem.put_entry("conventions", RULE)
    mem.put_entry("conventions", LONG_RULE)
    mem.put_entry("failures", FACT)
    mem.put_entry("quirks", OTHER)
    return mem


def start(mem: lean_memory.Memory, session: str, source: str = "startup") -> str:
    return hook_text(mem, "SessionStart", {"session_id": session, "source": source}, "", 1200)


def prompt(mem: lean_memory.Memory, session: str, text: str) -> str:
    return hook_text(mem, "UserPromptSubmit", {"session_id": session}, text, 1200)


def test_a_rule_shown_at_the_start_is_not_repeated_on_prompts(
        project: lean_memory.Memory) -> None:
    """Before: every prompt carried every standing rule (~the whole budget per prompt)."""
    assert RULE in start(project, "s1")
    for text in ("run the core package tests", "why did the deploy fail"):
        assert RULE not in prompt(project, "s1", text)


def test_after_compact_the_rules_and_the_entries_come_back(project: lean_memory.Memory) -> None:
    """A compacted or cleared context lost what was injected: the record is reset, the
    start gives the rules again, and an entry shown before is shown again."""
    start(project, "s1")
    assert FACT in prompt(project, "s1", "why did the deploy fail")
    assert FACT not in prompt(project, "s1", "why did the deploy fail")
    for source in ("compact", "clear"):
        assert RULE in start(project, "s1", source)
        assert FACT in prompt(project, "s1", "why did the deploy fail")


def test_resume_keeps_the_record(project: lean_memory.Memory) -> None:
    """A resumed session has its transcript back: what it was shown is still there."""
    start(project, "s1")
    assert FACT in prompt(project, "s1", "why did the deploy fail")
    start(project, "s1", "resume")
    assert FACT not in prompt(project, "s1", "why did the deploy fail")


def test_an_entry_shown_once_is_not_shown_again(project: lean_memory.Memory) -> None:
    """Prompt 2 matching only what prompt 1 was shown gets one short line, not the entry;
    an entry it was not shown still comes."""
    start(project, "s1")
    first = prompt(project, "s1", "why did the deploy fail")
    assert FACT in first
    second = prompt(project, "s1", "the deploy failed again")
    assert FACT not in second and second.count("\n") <= 1
    assert OTHER in prompt(project, "s1", "storybook port")


def test_a_rule_cut_at_the_start_comes_whole_when_a_prompt_matches_it(
        project: lean_memory.Memory) -> None:
    """Before: a long rule reached the agent as a stub, and no prompt ever gave it whole."""
    head = start(project, "s1")
    assert LONG_RULE not in head and "Database migrations" in head  # cut to its cap
    block = prompt(project, "s1", "how do I write a prisma migration")
    assert LONG_RULE in block.replace("\n", " ") or " ".join(LONG_RULE.split()) in " ".join(
        block.split())
    assert "prisma" not in prompt(project, "s1", "prisma migration again")


def test_the_record_is_per_session_and_never_in_the_project(
        project: lean_memory.Memory, tmp_path: Path) -> None:
    """Another session (another context) is shown what this one was; the record lives in
    the personal session layer, never under the project's .agents/."""
    start(project, "s1")
    start(project, "s2")
    assert FACT in prompt(project, "s1", "why did the deploy fail")
    assert FACT in prompt(project, "s2", "why did the deploy fail")
    records = sorted(p.name for p in (tmp_path / "data").rglob("*.txt")
                     if payonce.SHOWN_DIR in p.parts)
    assert records == ["s1.txt", "s2.txt"]
    assert not [p for p in (tmp_path / "repo").rglob("*") if payonce.SHOWN_DIR in p.parts]


def test_the_record_is_bounded(project: lean_memory.Memory) -> None:
    """A session noting more ids than MAX_IDS keeps the latest only."""
    root = project.root
    payonce.note(root, "s1", [f"id{i}" for i in range(payonce.MAX_IDS + 50)], 0)
    kept = payonce.seen(root, "s1", 0)
    assert len(kept) == payonce.MAX_IDS and "id0" not in kept
    assert f"id{payonce.MAX_IDS + 49}" in kept


def test_a_long_transcript_restates(project: lean_memory.Memory, tmp_path: Path) -> None:
    """An agent that compacts without telling the hook (Codex): an entry shown more than
    RESTATE_BYTES of transcript ago is shown again."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("")
    payload = {"session_id": "s1", "transcript_path": str(transcript)}
    hook_text(project, "SessionStart", {**payload, "source": "startup"}, "", 1200)

    def ask(text: str) -> str:
        return hook_text(project, "UserPromptSubmit", payload, text, 1200)

    assert FACT in ask("why did the deploy fail")
    assert FACT not in ask("why did the deploy fail")
    transcript.write_text("x" * (payonce.RESTATE_BYTES + 1))
    assert FACT in ask("why did the deploy fail")


def test_without_a_session_id_nothing_changes(project: lean_memory.Memory) -> None:
    """No session to remember in (a hook without session_id, `get --digest`): the rules
    ride the prompt as before."""
    block = hook_text(project, "UserPromptSubmit", {}, "why did the deploy fail", 1200)
    assert RULE in block and FACT in block
    assert RULE in project.digest("why did the deploy fail")


def test_pay_once_off_in_the_config(project: lean_memory.Memory) -> None:
    """``pay_once = false``: every prompt carries the rules again."""
    config = project.agents_dir / "config.toml"
    config.write_text("[memory]\npay_once = false\n", encoding="utf-8")
    mem = lean_memory.Memory(project.root)
    start(mem, "s1")
    assert RULE in prompt(mem, "s1", "why did the deploy fail")


def test_through_the_hook_command(project: lean_memory.Memory, tmp_path: Path) -> None:
    """The real command line, one session: the rule at the start only, the fact once."""
    root = Path(lean_memory.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}

    def hook(event: str, **payload: str) -> str:
        name = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}[event]
        data = json.dumps({"cwd": str(project.root), "hook_event_name": name,
                           "session_id": "cli-1", **payload})
        r = subprocess.run([sys.executable, "-P", "-m", "lean_memory", "hook", event],
                           input=data, capture_output=True, text=True, env=env, check=True,
                           cwd=project.root)
        return str(json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]) \
            if r.stdout.strip() else ""

    assert RULE in hook("session-start", source="startup")
    first = hook("user-prompt-submit", prompt="why did the deploy fail")
    assert FACT in first and RULE not in first
    assert FACT not in hook("user-prompt-submit", prompt="why did the deploy fail")
