"""The scanner's gate (ADR 0039): ``_secret_gate.may_hold`` is False only for a text in
which the full scanner finds nothing, so the prompt hook may keep such a prompt unscanned.

The oracle is the scanner itself (``scan_text`` and ``redact``), on gitleaks' cases (each
also with its punctuation blanked, moved and cut) and on generated text made of the
pieces the rules look for. Failure messages never print a case's text (the positives are
credentials in shape).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import _askrecord
from lean_memory._secret_gate import may_hold
from lean_memory._secret_rules import GENERIC_SPELLINGS, RULES
from lean_memory.secrets import redact, scan_text

from .test_secrets_cases import CASES


def _found(text: str) -> bool:
    return bool(scan_text(text)) or redact(text) != text


def _variants(text: str) -> list[str]:
    """The case, and forms the scanner's blanked copy and windows meet: punctuation to
    spaces, a separator dropped or doubled, the text cut in two."""
    half = len(text) // 2
    return [text, text.replace(":", " "), text.replace("=", " "), text.replace('"', " "),
            text.replace(" ", ""), text.replace("=", "=="), text[:half], text[half:],
            f"see {text}.", f"({text})"]


@pytest.mark.skipif(CASES is None, reason="../shared/data/secrets/gitleaks_cases.jsonl is missing")
def test_the_gate_passes_every_text_the_scanner_reports_on_gitleaks_cases() -> None:
    """Guards redaction: a text with a finding that the gate calls clean would be kept as
    an ask unredacted."""
    assert CASES is not None
    missed: dict[str, int] = {}
    checked = 0
    with CASES.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            case = json.loads(line)
            for text in _variants(case["text"]):
                checked += 1
                if not may_hold(text) and _found(text):
                    missed[case["family"]] = missed.get(case["family"], 0) + 1
    assert checked > 1000
    assert not missed, sorted(missed.items())  # families and counts, no text


_KEYWORDS = sorted({k for r in RULES for k in r.keywords}
                   | {s for v in GENERIC_SPELLINGS.values() for s in v} | {"Secret"})
_PIECES = st.one_of(
    st.sampled_from(_KEYWORDS),
    st.sampled_from(["=", ":", ": ", " = ", '"', "'", "-", "_", ".", "/", "\\n", "\\x01", " ",
                     "\n", "kind: Secret\n", "password: ", "token ", "Bearer ", "bcp:"]),
    st.text(alphabet="abcdefABCDEF0123456789xyzQ~_-", min_size=1, max_size=48),
    # hex groups of the lengths the shaped rules want (32-8-8), and a project label's
    st.lists(st.sampled_from([8, 12, 32]), min_size=1, max_size=3).flatmap(
        lambda sizes: st.tuples(*(st.text(alphabet="0123456789abcdef", min_size=n, max_size=n)
                                  for n in sizes)).map("-".join)),
    st.text(alphabet="the deploy fail import why does upgrade", min_size=1, max_size=12))


@settings(max_examples=1500, deadline=None)
@given(st.lists(_PIECES, max_size=12).map("".join))
def test_the_gate_passes_every_text_the_scanner_reports_generated(text: str) -> None:
    """Guards redaction on text made of what the rules look for: keywords (whole, cut at
    spaces, next to punctuation), separators, escapes and token-shaped values."""
    if not may_hold(text):
        assert not _found(text), "a finding in a text the gate called clean"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_the_kept_ask_is_the_scanned_one(text: str) -> None:
    """Guards the hook's shortcut: the ask it keeps is what the full scan would keep."""
    assert _askrecord.redact(text) == redact(text)


def test_the_written_tables_are_the_rule_tables() -> None:
    """Guards the gate's copy of the keywords: a rule added to (or changed in) the table
    but not written into ``_secret_gate`` would run on texts the gate calls clean."""
    from lean_memory import _secret_gate as g

    assert g.tables() == (g._ALWAYS, g._RUNS, g._SHAPED, g._TEXT)
