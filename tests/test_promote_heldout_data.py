"""The held-out promote sets (bench/promote/heldout) are well formed and labels.json tells
the truth about them: a wrong session count would move a rule in or out of the gold set
and silently change every precision/recall figure measured against it."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

HELDOUT = Path(__file__).resolve().parent.parent / "bench" / "promote" / "heldout"
SETS = ("set_a", "set_b")
KINDS = {"pref", "rare", "task", "control", "fact"}
KEYS = {"at", "project", "session", "text", "label"}


def _rows(name: str) -> list[dict[str, str]]:
    lines = (HELDOUT / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _labels(name: str) -> dict[str, dict[str, Any]]:
    labels: dict[str, dict[str, Any]] = json.loads(
        (HELDOUT / "labels.json").read_text(encoding="utf-8"))[name]
    return labels


def _at(row: dict[str, str]) -> dt.datetime:
    return dt.datetime.strptime(row["at"], "%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("name", SETS)
def test_lines_parse_and_labels_are_known(name: str) -> None:
    """Guards against a typo'd label (counted as its own intent) or a malformed line."""
    labels = _labels(name)
    rows = _rows(name)
    assert len(rows) > 300
    for row in rows:
        assert set(row) == KEYS
        assert all(isinstance(v, str) and v for v in row.values())
        assert row["session"].startswith(name[-1] + "-")
        assert row["label"] == "oneoff" or row["label"] in labels
    for label, info in labels.items():
        kind, _, slug = label.partition(":")
        assert kind == info["kind"] and kind in KINDS and slug
        assert ("rule" in info) == (kind in ("pref", "rare"))


@pytest.mark.parametrize("name", SETS)
def test_session_counts_and_projects_match_the_data(name: str) -> None:
    """Guards against labels.json drifting from the jsonl (the gold set is read from it)."""
    sessions: dict[str, set[str]] = defaultdict(set)
    projects: dict[str, set[str]] = defaultdict(set)
    for row in _rows(name):
        sessions[row["label"]].add(row["session"])
        projects[row["label"]].add(row["project"])
    labels = _labels(name)
    assert set(labels) == set(sessions) - {"oneoff"}
    for label, info in labels.items():
        assert info["sessions"] == len(sessions[label]), label
        assert info["projects"] == sorted(projects[label]), label


@pytest.mark.parametrize("name", SETS)
def test_kinds_have_the_promised_shape(name: str) -> None:
    """Guards the point of the set: rules in 3+ sessions, rare ones in fewer, and the
    negatives (tasks, control, facts) repeated often enough to tempt a matcher."""
    labels = _labels(name)
    by_kind: dict[str, list[int]] = defaultdict(list)
    for info in labels.values():
        by_kind[info["kind"]].append(info["sessions"])
    assert all(3 <= n <= 6 for n in by_kind["pref"])
    assert all(n <= 2 for n in by_kind["rare"])
    for kind in ("task", "control", "fact"):
        assert all(n >= 3 for n in by_kind[kind]), kind
    assert len(by_kind["pref"]) >= 16 + 12 and len(by_kind["rare"]) >= 12
    assert len(by_kind["task"]) >= 14 and len(by_kind["control"]) >= 10


@pytest.mark.parametrize("name", SETS)
def test_opposites_are_separate_rules_never_in_one_session(name: str) -> None:
    """Guards the opposite pairs: each side is gold on its own, and no session says both."""
    labels = _labels(name)
    pairs = {(a, info["opposite"]) for a, info in labels.items() if "opposite" in info}
    assert len(pairs) >= 12
    session_labels: dict[str, set[str]] = defaultdict(set)
    for row in _rows(name):
        session_labels[row["session"]].add(row["label"])
    for a, b in pairs:
        assert labels[b]["opposite"] == a and labels[a]["kind"] == labels[b]["kind"] == "pref"
        assert not any({a, b} <= got for got in session_labels.values())


@pytest.mark.parametrize("name", SETS)
def test_paraphrases_differ_and_one_per_session(name: str) -> None:
    """Guards against a preference repeated verbatim (then any matcher finds it) or said
    twice in one session (then it would count once, not twice)."""
    per_label: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for row in _rows(name):
        if row["label"].startswith("pref:"):
            per_label[row["label"]].append((row["session"], row["text"].lower()))
    for label, said in per_label.items():
        assert len({s for s, _ in said}) == len(said), label
        assert len({t for _, t in said}) == len(said), label


@pytest.mark.parametrize("name", SETS)
def test_times_increase_and_sessions_do_not_overlap(name: str) -> None:
    """Guards the timeline: asks minutes apart inside a session, sessions hours apart."""
    rows = _rows(name)
    by_session: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_session[row["session"]].append(row)
    spans = []
    for session, asks in by_session.items():
        assert 4 <= len(asks) <= 10, session
        assert len({a["project"] for a in asks}) == 1, session
        times = [_at(a) for a in asks]
        assert all(b - a >= dt.timedelta(seconds=30) for a, b in itertools.pairwise(times))
        spans.append((times[0], times[-1], session))
    spans.sort()
    assert [s for *_, s in spans] == sorted(by_session)  # numbered in time order
    for (_, end, _s), (start, _, _t) in itertools.pairwise(spans):
        assert start - end >= dt.timedelta(minutes=20)
    assert spans[-1][1] - spans[0][0] >= dt.timedelta(days=12)


def test_committed_files_match_the_builder() -> None:
    """Guards against hand edits to the jsonl that the builder (and its texts) would undo."""
    done = subprocess.run([sys.executable, "-I", str(HELDOUT / "build.py"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
