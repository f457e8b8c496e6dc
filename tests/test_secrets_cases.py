"""The scanner on another project's cases: gitleaks' rule tests (see the shared data README).

The file lives outside the repository (``../shared/data/secrets/gitleaks_cases.jsonl``); the test
is skipped, with the reason, where it is missing. Failure messages name families and counts,
never a case's text: the positives are credentials in shape.
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import pytest

from lean_memory.secrets import scan_text

ROOT = Path(__file__).resolve().parents[1]
_NAME = Path("shared", "data", "secrets", "gitleaks_cases.jsonl")


def _cases_file() -> Path | None:
    env = os.environ.get("LEAN_MEMORY_GITLEAKS_CASES")
    # Beside the repository; a git worktree under <parent>/wt/<name> looks one level higher.
    candidates = [Path(env)] if env else []
    candidates += [ROOT.parent / _NAME, ROOT.parent.parent / _NAME]
    return next((p for p in candidates if p.is_file()), None)


CASES = _cases_file()
pytestmark = pytest.mark.skipif(
    CASES is None, reason="../shared/data/secrets/gitleaks_cases.jsonl is missing"
)


@pytest.fixture(scope="module")
def scored() -> list[tuple[str, str, bool]]:
    assert CASES is not None
    rows: list[tuple[str, str, bool]] = []
    with CASES.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                case = json.loads(line)
                rows.append((case["family"], case["expect"], bool(scan_text(case["text"]))))
    return rows


def _worst(rows: list[tuple[str, str, bool]], expect: str, bad: bool) -> str:
    """The families with the most bad outcomes, as `family missed/total` (no case text)."""
    total: collections.Counter[str] = collections.Counter()
    wrong: collections.Counter[str] = collections.Counter()
    for family, exp, flagged in rows:
        if exp == expect:
            total[family] += 1
            wrong[family] += flagged == bad
    return ", ".join(f"{f} {n}/{total[f]}" for f, n in wrong.most_common(8) if n)


def test_recall_on_gitleaks_positives(scored: list[tuple[str, str, bool]]) -> None:
    pos = [flagged for _, expect, flagged in scored if expect == "secret"]
    assert len(pos) > 1000  # the file is the full set, not a stub
    recall = sum(pos) / len(pos)
    assert recall >= 0.90, f"recall {recall:.3f}; most missed: {_worst(scored, 'secret', False)}"


def test_few_gitleaks_negatives_flagged(scored: list[tuple[str, str, bool]]) -> None:
    neg = [flagged for _, expect, flagged in scored if expect == "clean"]
    assert len(neg) > 100
    rate = sum(neg) / len(neg)
    assert rate <= 0.03, f"{rate:.3f} of negatives flagged: {_worst(scored, 'clean', True)}"
