"""Issue 34, item 5: session start is bounded on the prompt's clock. On main ea4449c
SessionStart folded the quiet sessions and re-ran the matcher over every project's asks
inside the hook's 5 s: with 600 kept asks of 24 KB it took 18 s of CPU and printed nothing
(no index, no rules) in every project. Now it reads a remembered count; the folding and the
matching run at SessionEnd or in a background process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import asks, learn
from lean_memory.layers import session_home
from tests import test_learn
from tests.test_layers_global import ok

home = test_learn.home  # the fixture: HOME and XDG_DATA_HOME in tmp_path
project = test_learn.project  # the fixture: an initialised git repository

RULE = "Always run the linters before a commit."


def _forbid(*_: Any, **__: Any) -> Any:
    raise AssertionError("the matcher or a fold ran at session start")


def test_session_start_neither_matches_nor_folds(project: Path, home: dict[str, str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Catches: `asks.propose` or `distill` called by the SessionStart hook (in process),
    while the count of waiting proposals still shows, and the background step is asked
    for instead."""
    mem = lean_memory.Memory(project)
    for n in range(3):
        learn.record(mem, f"s{n}", RULE, f"2026-01-0{n + 1}T09:00:00Z")
    assert len(learn.proposals(mem)) == 1  # the CLI ran the matcher: its result is kept
    learn.record(mem, "s9", "why is the build slow", "2026-01-09T09:00:00Z")
    started: list[bool] = []
    monkeypatch.setattr(asks, "propose", _forbid)
    monkeypatch.setattr(asks, "distill", _forbid)
    monkeypatch.setattr(learn, "distill", _forbid)
    monkeypatch.setattr(learn, "_match", _forbid)
    monkeypatch.setattr(learn, "learn_soon", lambda _m, *, fold: started.append(fold) or True)
    old = time.time() - 3 * 86400  # the live asks file looks quiet: a fold is due
    for f in (session_home(project) / "asks").glob("*.jsonl"):
        os.utime(f, (old, old))
    blocks = learn.hook_blocks(mem, "SessionStart", {"session_id": "new", "source": "startup"},
                               "", 1200)
    text = "".join(b.text for b in blocks)
    assert "1 rule proposal waits" in text and "# Memory index" in text
    assert started == [True]
    assert [a.session for a in learn.load_asks(session_home(project))] == ["s0", "s1", "s2",
                                                                           "s9"]


def test_the_session_start_hook_does_not_import_the_matcher(project: Path,
                                                            home: dict[str, str]) -> None:
    """Catches: the hook's SessionStart path importing `lean_memory.asks` (the matcher and
    its tables): a sign that it matches or folds on the prompt's clock."""
    mem = lean_memory.Memory(project)
    for n in range(3):
        learn.record(mem, f"s{n}", RULE, f"2026-01-0{n + 1}T09:00:00Z")
    ok("promote", cwd=project, env=home)
    payload = json.dumps({"cwd": str(project), "hook_event_name": "SessionStart",
                          "session_id": "new", "source": "startup"})
    code = ("import io, sys; from lean_memory import agents, spawn; "
            "spawn.detached = lambda *a, **k: False; out = io.StringIO(); "
            f"agents.run_hook('session-start', None, io.StringIO({payload!r}), out); "
            "print('lean_memory.asks' in sys.modules); print(out.getvalue())")
    root = str(Path(learn.__file__).resolve().parent.parent)
    env = {**os.environ, **home, "PYTHONPATH": root}
    env.pop("LEAN_MEMORY_ROOT", None)
    env.pop("LEAN_MEMORY_GLOBAL", None)
    out = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True,
                         text=True, check=True, env=env, timeout=120).stdout
    imported, printed = out.split("\n", 1)
    assert imported == "False"
    context = json.loads(printed)["hookSpecificOutput"]["additionalContext"]
    assert "1 rule proposal waits" in context


def test_the_background_step_folds_and_matches(project: Path, home: dict[str, str]) -> None:
    """Catches: the background process (what session start and SessionEnd hand the slow
    steps to) leaving quiet sessions unfolded, the proposals unknown, or its marker behind."""
    mem = lean_memory.Memory(project)
    for n in range(3):
        learn.record(mem, f"s{n}", RULE, f"2026-01-0{n + 1}T09:00:00Z")
    assert learn.pending(mem) == 0  # nothing worked out yet: the hooks only read
    marker = Path(mem._cache) / learn.LEARNING
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.touch()
    learn.learn_in_background(str(project), ["fold"])
    assert not marker.exists()
    assert learn.load_asks(session_home(project)) == []
    assert learn.pending(mem) == 1


def test_session_end_leaves_the_matcher_to_the_background(project: Path,
                                                          home: dict[str, str],
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """Catches: SessionEnd (1 s) running the matcher over every project's asks itself."""
    mem = lean_memory.Memory(project)
    learn.record(mem, "s1", RULE)
    started: list[bool] = []
    monkeypatch.setattr(asks, "propose", _forbid)
    monkeypatch.setattr(learn, "learn_soon", lambda _m, *, fold: started.append(fold) or True)
    learn.end_session({"session_id": "s1"}, project)
    assert learn.load_asks(session_home(project)) == [] and started == [False]


def test_a_session_start_hands_the_fold_to_a_real_background_process(
        project: Path, home: dict[str, str]) -> None:
    """Catches: the background step never started by the hook (or started wrongly: not
    isolated, wrong arguments), so quiet sessions are never folded nor proposals found
    without a SessionEnd. A generous bound only, to wait for the detached process."""
    mem = lean_memory.Memory(project)
    for n in range(3):
        learn.record(mem, f"s{n}", RULE, f"2026-01-0{n + 1}T09:00:00Z")
    old = time.time() - 3 * 86400
    for f in (session_home(project) / "asks").glob("*.jsonl"):
        os.utime(f, (old, old))
    first = test_learn.hook("session-start", project, home, session_id="new",
                            source="startup")
    assert "# Memory index" in first and "proposal" not in first  # nothing known yet
    marker = Path(mem._cache) / learn.LEARNING
    deadline = time.monotonic() + 120
    while (marker.exists() or learn.load_asks(session_home(project))) and \
            time.monotonic() < deadline:
        time.sleep(0.2)
    assert learn.load_asks(session_home(project)) == [] and not marker.exists()
    later = test_learn.hook("session-start", project, home, session_id="next",
                            source="startup")
    assert "1 rule proposal waits" in later
