"""Issue 34, item 7: what the person reads. On main ea4449c `lean-memory asks` said "no asks
kept" in normal use (each session is folded at its SessionEnd), summaries listed preferences
and "run the tests" as still open (and those rode the next session), a project rule hidden by
the same global one left an empty "Standing rules" heading, and the start block said
"1 rule proposal wait"."""

from __future__ import annotations

import json
from pathlib import Path

import lean_memory
from lean_memory import learn
from tests import test_learn
from tests.test_layers_global import cli, ok
from tests.test_learn import ask, hook

home = test_learn.home  # the fixture: HOME and XDG_DATA_HOME in tmp_path
project = test_learn.project  # the fixture: an initialised git repository


def test_asks_shows_recent_asks_with_folded_ones_marked(project: Path,
                                                        home: dict[str, str]) -> None:
    """Catches: `asks` empty once a session ended (folded), or folded asks not told apart."""
    ask(project, home, "s1", "why does the exporter drop rows on retry")
    payload = json.dumps({"session_id": "s1", "cwd": str(project),
                          "hook_event_name": "SessionEnd"}).encode()
    assert cli("hook", "session-end", cwd=project, env=home, stdin=payload).returncode == 0
    ask(project, home, "s2", "add a progress bar to the importer")
    listed = ok("asks", cwd=project, env=home)
    [old] = [ln for ln in listed.splitlines() if "exporter" in ln]
    [new] = [ln for ln in listed.splitlines() if "importer" in ln]
    assert "folded" in old and "folded" not in new
    rows = json.loads(ok("asks", "--json", cwd=project, env=home))
    assert [r["folded"] for r in rows] == [True, False]
    archived = ok("asks", "--archived", cwd=project, env=home)
    assert "exporter" in archived and "importer" not in archived


def test_a_summary_keeps_routines_out_of_still_open(project: Path,
                                                    home: dict[str, str]) -> None:
    """Catches: a task asked in every session ("run the tests and fix what fails") listed
    as still open, and riding the next session's start."""
    mem = lean_memory.Memory(project)
    for day in range(1, 4):
        learn.record(mem, f"d{day}", "run the tests and fix what fails",
                     f"2026-01-0{day}T09:00:00Z")
    learn.record(mem, "d3", "why does the cache warmer crash on startup", "2026-01-03T09:10:00Z")
    done = learn.distill(mem, now="2026-02-01T00:00:00Z")
    last = next(s for s in done if s.session == "d3")
    assert [line for _id, line in last.open] == ["why does the cache warmer crash on startup"]
    block = hook("session-start", project, home, session_id="next", source="startup")
    assert "cache warmer" in block and "run the tests" not in block


def test_no_empty_standing_rules_heading(project: Path, home: dict[str, str]) -> None:
    """Catches: the project's rules heading left with no rule under it when its only rule
    is shown by the global block."""
    ok("put", "conventions", "Use uv, never pip.", cwd=project, env=home)
    ok("put", "--global", "conventions", "Use uv, never pip.", cwd=project, env=home)
    digest = ok("get", "--digest", "hello", cwd=project, env=home)
    assert digest.count("Use uv, never pip.") == 1
    assert "## Standing rules" not in digest and "## Your standing rules" in digest


def test_the_count_reads_right(project: Path, home: dict[str, str]) -> None:
    """Catches: "1 rule proposal wait"."""
    mem = lean_memory.Memory(project)
    for n in range(3):
        learn.record(mem, f"s{n}", "Always run ruff before a commit.",
                     f"2026-01-0{n + 1}T09:00:00Z")
    learn.proposals(mem)
    block = hook("session-start", project, home, session_id="x", source="startup")
    assert "1 rule proposal waits for" in block
    learn.propose(mem, "Never force-push to main.")
    block = hook("session-start", project, home, session_id="y", source="startup")
    assert "2 rule proposals wait for" in block
    assert learn.listing_head(1).startswith("1 rule proposal awaits the person's yes")
    assert learn.listing_head(2).startswith("2 rule proposals await the person's yes")
