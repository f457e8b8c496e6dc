"""The scanner looks for each keyword once (ADR 0048) and finds exactly what running every
rule finds.

Two oracles, both written here: a per-rule reference of which rules' keywords occur (the
test each rule used to make for itself), and the scan with every rule and keyword let through
(``_Compiled.chosen`` patched to choose all: the scan before ADR 0048). They are compared on
generated texts with credentials planted from parts at run time, on prose-like text, on
gitleaks' cases when the shared data is there, and with the long-text path (a text's
distinct pieces) forced on short texts. Failure messages never print a case's text.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import secrets
from lean_memory._secret_rules import GENERIC_KEYWORDS, RULES
from lean_memory.secrets import Finding, redact, scan_text

from .test_secrets_cases import CASES


def _lower(text: str) -> str:
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low


def _reference(text: str) -> set[int]:
    """The rules (indices, generic ones after the table's) whose own keyword test passes,
    written out rule by rule as each used to test itself."""
    lower = _lower(text)
    runs = secrets._Runs(text)
    out: set[int] = set()
    for i, rule in enumerate(RULES):
        low = [k for k in rule.keywords if k.islower()]
        cased = [k for k in rule.keywords if not k.islower()]
        if rule.scope in ("token", "runs"):
            hit = any(k in runs.lower for k in low) or any(k in runs.joined for k in cased)
        else:
            hit = any(k in lower for k in low) or any(k in text for k in cased)
        if hit:
            out.add(i)
    for j, kw in enumerate(GENERIC_KEYWORDS):
        if secrets._literal_prefix(kw) in lower:
            out.add(len(RULES) + j)
    return out


def _chosen(text: str) -> set[int]:
    lower = _lower(text)
    chosen, _present = secrets._compiled().chosen(text, lower, secrets._Runs(text))
    assert chosen == sorted(set(chosen))
    return set(chosen)


@contextmanager
def _every_rule() -> Iterator[None]:
    """The scan before ADR 0048: every rule tried, every keyword looked for."""
    comp = secrets._compiled()
    everything = {k for r in comp.rules for k in r[1]}
    every = list(range(len(comp.rules) + len(comp.generic)))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(comp, "chosen", lambda *_: (every, everything))
        yield


@contextmanager
def _long_path() -> Iterator[None]:
    """The long-text path (keywords looked for in the distinct pieces) on any text."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets, "_DISTINCT_FROM", 0)
        yield


def _both(text: str) -> tuple[list[Finding], str]:
    return scan_text(text), redact(text)


def _same(text: str) -> None:
    new = _both(text)
    with _long_path():
        long = _both(text)
    with _every_rule():
        old = _both(text)
    # compared without printing the text (a finding is already redacted)
    assert new[0] == old[0], ([f.rule for f in new[0]], [f.rule for f in old[0]])
    assert long[0] == old[0], ([f.rule for f in long[0]], [f.rule for f in old[0]])
    assert new[1] == old[1] and long[1] == old[1], "redaction differs"


# --- credentials planted from parts (never a literal credential in this file) -------------

_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"


def _rand(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _planted(rng: random.Random) -> str:
    kind = rng.randrange(10)
    if kind == 0:
        return "gh" + "p_" + _rand(rng, _ALNUM, 36)
    if kind == 1:
        return "AK" + "IA" + _rand(rng, string.ascii_uppercase + "234567", 16)
    if kind == 2:
        return "xo" + "xb-" + _rand(rng, string.digits, 12) + "-" + _rand(rng, _ALNUM, 24)
    if kind == 3:
        body = "\n".join(_rand(rng, _B64, 64) for _ in range(4))
        kind_name = "RSA PRIVATE" + " KEY"
        return f"-----BEGIN {kind_name}-----\n{body}\n-----END {kind_name}-----"
    if kind == 4:
        return "sk" + "_live_" + _rand(rng, _ALNUM, 24)
    if kind == 5:
        return "pass" + "word = '" + _rand(rng, _ALNUM, 10) + "7Qx!'"
    if kind == 6:
        return "postgres://admin:" + _rand(rng, _ALNUM, 8) + "9Z@db.internal:5432/app"
    if kind == 7:
        return "Authorization: Bearer " + _rand(rng, _ALNUM, 40)
    if kind == 8:
        return "gl" + "pat-" + _rand(rng, _ALNUM, 20)
    head = "eyJhbGciOiJIUzI1NiJ9"
    return head + "." + "eyJ" + _rand(rng, _ALNUM, 30) + "." + _rand(rng, _ALNUM + "_-", 43)


_KEYWORDS = sorted({k for r in RULES for k in r.keywords} | set(GENERIC_KEYWORDS) | {"Secret"})
_PIECES = st.one_of(
    st.sampled_from(_KEYWORDS),
    st.sampled_from(["=", ":", ": ", " = ", '"', "'", "-", "_", ".", "/", " ", "\n", "\t",
                     "\x1c", "\x85", "\u2028", "\u3000", "\u0130", "\u212a", "\u03a3",
                     "kind: Secret\ndata:\n  password: ", "token ", "the deploy ", "src/a.py",
                     "1.15.5 ", "import method token ", "ECONNREFUSED "]),
    st.text(alphabet=_ALNUM + "_-./=", min_size=1, max_size=40),
    st.randoms(use_true_random=False).map(_planted),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_the_scan_equals_running_every_rule(text: str) -> None:
    """Guards the one-pass keyword search: a rule it leaves out (or a keyword it does not
    report) would drop a finding or a redaction that running every rule makes, on text
    made of keywords, separators, characters whose lower case differs, and credentials."""
    _same(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_the_chosen_rules_are_those_whose_keywords_occur(text: str) -> None:
    """Guards the keyword index: the rules chosen are exactly those whose own keyword test
    passes (a superset on the long-text path, never fewer)."""
    ref = _reference(text)
    assert _chosen(text) == ref
    with _long_path():
        assert _chosen(text) >= ref


def test_a_long_text_with_planted_credentials_scans_as_before() -> None:
    """Guards the long-text path on a text past its threshold (a memory's entries scanned
    as one text): prose repeating its words, credentials planted at random places."""
    rng = random.Random(48)
    words = ["import", "token", "method", "key", "the", "src/token/a.py", "api", "login",
             "service", "3.11.7", "secret", "user", "is", "auth", "pass", "ECONNREFUSED"]
    lines = []
    for _ in range(2500):
        line = " ".join(rng.choice(words) for _ in range(rng.randrange(3, 14)))
        if rng.random() < 0.03:
            line += " " + _planted(rng)
        lines.append(line)
    text = "\n".join(lines)
    assert len(text) > secrets._DISTINCT_FROM
    new = scan_text(text)
    with _every_rule():
        old = scan_text(text)
    assert new == old and len(new) > 20


@pytest.mark.skipif(CASES is None, reason="../shared/data/secrets/gitleaks_cases.jsonl is missing")
def test_gitleaks_cases_scan_as_before() -> None:
    """Guards the same findings on another project's cases: each case alone (short path and
    long path) and all of them as one long text."""
    assert CASES is not None
    texts = [json.loads(line)["text"] for line in CASES.open(encoding="utf-8") if line.strip()]
    assert len(texts) > 1000
    differ = 0
    for text in texts[::7]:  # every 7th: the whole file takes minutes three ways
        new = scan_text(text)
        with _long_path():
            long = scan_text(text)
        with _every_rule():
            old = scan_text(text)
        differ += new != old or long != old
    assert differ == 0
    joined = "\n\n".join(texts)
    new = scan_text(joined)
    with _every_rule():
        old = scan_text(joined)
    assert new == old
