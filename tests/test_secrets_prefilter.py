"""The scanner's shortcuts find exactly what the full scan finds (ADR 0016, round 2: cold build).

``_hopeless`` skips generic matches that ``_judge_generic`` would reject, checked against the
full judgement on generated text made of what the generic rules look at, on every combination
of a few prose, key, separator and value shapes, and on gitleaks' cases when the shared data
is there; ``_run_spans`` finds the runs of ``run_re`` by ``bytes.find``, checked against the
regex. Failure messages never print a case's text (the positives are credentials in shape).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import secrets
from lean_memory.secrets import Finding, scan_text

from .test_secrets_cases import CASES

_KEYS = ["--password", "-password", "password", "token", "TOKEN", "api_key", "apiKey",
         "secret", "pass", "pwd", "_pat",
         "access_key", "auth-key", "client_secret", "-p", "--token", "GITHUB_TOKEN", "Token",
         "secret_token", "tokenizer", "token_type"]
_SEPS = [" ", "  ", "\t", "=", " = ", ": ", ":= ", " is ", " was ", " to ", " set to ", "\n",
         "=>", "', '", "\"", ">", " for the api ", "=\""]
_VALUES = ["src/token/import.rs", "importImport", "import_hudoze", "a1B2c3D4e5F6g7H8",
           "Zq8vT2mR7xK4nW1pL9sD", "changeme", "hunter2", "s3cr3tP@ssw0rd!", "short",
           "ghp_0123456789abcdefABCDEF0123456789abcd", "${TOKEN}", "os.environ['X']",
           "\"Blue 7 Horse!\"", "'Qw3rTy!9Zx'", "xXxXxXxXxXxX", "AKIAIOSFODNN7EXAMPLE",
           "0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c", "MyP4ssw0rdIsLong", "---", "3.11.7", "kx9q2m7zv4wp",
           "kx9q2m7zv4wp1234567",
           "KX9Q2M7ZV4WP1234567"]
_PROSE = ["machine h.io login bob ", "login bob\n", "account me ", "mysql ", "run -p x ",
          "machine", "login", "account", "host.example", "import", "the", "set", "rotate",
          "-", "#", "<password>", "</password>", "(", ")", "\n", "\n\n", " ", "  "]


def _skipped(m: re.Match[str], text: str, shortest: int) -> bool:
    """Whether ``_raw_matches`` skips the generic match ``m`` without judging it."""
    vstart, vend = m.span("v")
    return vend - vstart < shortest or secrets._hopeless(m, text, vstart, vend)


def _findings(text: str) -> list[Finding]:
    return scan_text(text)


@contextmanager
def _no_shortcuts() -> Iterator[None]:
    """Every generic match judged in full, as before the shortcuts."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets, "_hopeless", lambda *_: False)
        comp = secrets._compiled()
        m.setattr(comp, "generic", [(kw, rid, rx, 0) for kw, rid, rx, _ in comp.generic])
        yield


def _without_shortcuts(text: str) -> list[Finding]:
    with _no_shortcuts():
        return scan_text(text)


fragments = st.lists(st.sampled_from(_KEYS + _SEPS + _VALUES + _PROSE), min_size=1,
                     max_size=40).map("".join)
# What a generic rule matches: prose, a key, a separator, a value, prose.
assignments = st.lists(st.tuples(st.sampled_from(_PROSE), st.sampled_from(_KEYS),
                                 st.sampled_from(_SEPS), st.sampled_from(_VALUES),
                                 st.sampled_from(_PROSE)).map("".join),
                       min_size=1, max_size=6).map("".join)
texts = st.one_of(fragments, assignments)
noisy = st.tuples(texts, st.text(max_size=40), texts).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts, noisy))
def test_hopeless_matches_are_rejected_by_the_judge(text: str) -> None:
    """Every generic match the shortcut skips is one the full judgement rejects."""
    comp = secrets._compiled()
    lower = text.lower()
    if len(lower) != len(text):
        return  # _raw_matches realigns such text; covered by the scan parity below
    for kw, rule_id, regex, shortest in comp.generic:
        for m in regex.finditer(lower):
            if _skipped(m, text, shortest):
                assert secrets._judge_generic(kw, rule_id, secrets._Shifted(m, text),
                                              text) is None, rule_id


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts, noisy))
def test_scan_is_the_same_without_the_shortcut(text: str) -> None:
    assert _findings(text) == _without_shortcuts(text)


RUN_RE = re.compile(r"[A-Za-z0-9_\-.+/=~%:$]{16,}")


@given(st.text(alphabet=st.sampled_from("aZ09_-.+/=~%:$ \n\t!#é\ud800\U0001f600\u0130\u212a"),
               max_size=300))
def test_runs_are_those_of_the_regex(text: str) -> None:
    """The runs of token characters found by bytes.find are the regex's, in any text."""
    expected = [m.span() for m in RUN_RE.finditer(text)]
    assert secrets._run_spans(text) == expected


def test_the_shortcut_skips_prose() -> None:
    """The shortcut is not vacuous: the prose the bench is made of is skipped."""
    text = "the token budget was token src/token/import.rs and token importImport"
    comp = secrets._compiled()
    skipped = [m for kw, _rid, regex, shortest in comp.generic if kw == "token"
               for m in regex.finditer(text) if _skipped(m, text, shortest)]
    assert len(skipped) >= 2


@pytest.mark.skipif(CASES is None, reason="../shared/data/secrets/gitleaks_cases.jsonl is missing")
def test_gitleaks_cases_scan_the_same() -> None:
    assert CASES is not None
    differ = total = 0
    with CASES.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            text = json.loads(line)["text"]
            total += 1
            differ += _findings(text) != _without_shortcuts(text)
    assert total > 1000
    assert differ == 0, f"{differ} scans differ"


def test_every_assignment_shape_is_judged_the_same() -> None:
    """All (prose, key, separator, value) combinations: a skipped match is never a finding."""
    comp = secrets._compiled()
    skipped = 0
    for prose, key, sep, value in itertools.product(_PROSE[:6], _KEYS, _SEPS, _VALUES):
        text = f"{prose}{key}{sep}{value} and more"
        lower = text.lower()
        for kw, rule_id, regex, shortest in comp.generic:
            if kw not in lower:
                continue
            for m in regex.finditer(lower):
                if _skipped(m, text, shortest):
                    skipped += 1
                    assert secrets._judge_generic(kw, rule_id, secrets._Shifted(m, text),
                                                  text) is None, (rule_id, key, sep)
    assert skipped > 1000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts.map(lambda t: f"## Note\n\n{t}\n\n"), min_size=1, max_size=8))
def test_the_same_entries_are_withheld(entries: list[str]) -> None:
    """What an index build withholds (a batch of entries scanned as one text) is the same
    with and without the shortcut."""
    from lean_memory.withhold import _batch_findings

    with_shortcut = _batch_findings(entries, None)
    with _no_shortcuts():
        assert _batch_findings(entries, None) == with_shortcut
