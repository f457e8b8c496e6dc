"""The scanner compiles and runs only the rules whose keywords occur in a text (issue 24): its
findings are those of the full table, every regex compiled and run over the whole text.

The reference is built here, not taken from the scanner: each rule's regex compiled from its
pattern and run everywhere (no keyword test, no keyword windows), and each generic regex run
whatever its keyword's neighbours (no ``_may_judge``). The texts are gitleaks' cases (when the
shared data is there) and random mixes of every rule's keywords, token-shaped bodies, generic
key names and the prose around them. Failure messages never print a case's text.
"""

from __future__ import annotations

import json
import re
import string
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import secrets
from lean_memory._secret_rules import GENERIC_KEYWORDS, RULES, Rule
from lean_memory.secrets import Allowlist, Finding, scan_text

from .test_secrets_cases import CASES

ROOT = Path(__file__).resolve().parents[1]


# Rules whose keywords are part of what they mean, not only a prefilter: their regex alone
# matches more ("token <value>" is a header only beside "Authorization" or "Bearer"). The
# reference runs them where a keyword occurs, as the table documents; every other rule's
# regex runs over the whole text, keywords or not.
_KEYWORD_GATED = frozenset({"http-auth-header"})


@contextmanager
def _full_table() -> Iterator[None]:
    """The scanner with every rule compiled up front and run over the whole text (or its
    token runs, for ``runs`` rules), without looking for its keywords; rules in
    _KEYWORD_GATED run on the lines that hold a keyword (anywhere in the text). A generic
    regex runs wherever it matches (no ``_may_judge``)."""
    comp = secrets._compiled()
    real_windows = secrets._windows

    def windows(text: str, lower: str, keywords: tuple[str, ...],
                runs: object = None) -> list[tuple[int, int]]:
        if not keywords:
            return [(0, len(text))]
        return real_windows(text, lower, keywords, None)

    # Built from the table itself: the scanner's keyword splits and lazy regexes play no part.
    rules = []
    for r in RULES:
        rx = re.compile(r.pattern)
        gated = r.id in _KEYWORD_GATED
        low = tuple(k for k in r.keywords if k.islower())
        cased = tuple(k for k in r.keywords if not k.islower())
        rules.append((r.id, r.keywords if gated else (), _Gated(rx, low, cased) if gated else rx,
                      secrets._VALIDATORS[r.check], r.ci,
                      "keyed" if r.scope == "token" else r.scope, ("",), (), ""))
    generic = [(kw, rid, re.compile(rx.pattern), shortest)
               for kw, rid, rx, shortest in comp.generic]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(comp, "rules", rules)
        m.setattr(comp, "generic", generic)
        m.setattr(secrets, "_windows", windows)
        m.setattr(secrets, "_may_judge", lambda *_: True, raising=False)
        yield


class _Gated:
    """A rule's regex, run over a whole text (or its token runs) only when one of the rule's
    keywords occurs in it; over a keyword's lines (``_windows``) as it is."""

    def __init__(self, rx: re.Pattern[str], low: tuple[str, ...], cased: tuple[str, ...]):
        self.rx, self.low, self.cased = rx, low, cased

    def finditer(self, hay: str, pos: int = 0, endpos: int = sys.maxsize
                 ) -> Iterator[re.Match[str]]:
        if (pos, endpos) != (0, sys.maxsize):
            return self.rx.finditer(hay, pos, endpos)
        if any(k in hay.lower() for k in self.low) or any(k in hay for k in self.cased):
            return self.rx.finditer(hay)
        return iter(())


def _reference(text: str) -> list[Finding]:
    with _full_table():
        return scan_text(text)


def _differs(text: str) -> bool:
    return scan_text(text) != _reference(text)


def _language(pattern: str) -> set[str]:
    """Every string a finite regex (literals, classes, groups, alternations, `?`, and
    lookarounds, which match nothing) matches, from the parser of `re`."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as p  # type: ignore[import-not-found]

    def seq(items: list[tuple[object, object]]) -> set[str]:
        out = {""}
        for op, av in items:
            out = {a + b for a in out for b in one(op, av)}
        return out

    def one(op: object, av: object) -> set[str]:
        if op is c.LITERAL:
            return {chr(av)}  # type: ignore[arg-type]
        if op is c.SUBPATTERN:
            return seq(list(av[-1]))  # type: ignore[index]
        if op is c.BRANCH:
            return set().union(*(seq(list(b)) for b in av[1]))  # type: ignore[index]
        if op is c.IN:
            chars: set[str] = set()
            for iop, iav in av:  # type: ignore[attr-defined]
                if iop is c.LITERAL:
                    chars.add(chr(iav))
                elif iop is c.RANGE:
                    chars.update(map(chr, range(iav[0], iav[1] + 1)))
                else:
                    raise AssertionError(f"unexpected class item {iop}")
            return chars
        if op is c.MAX_REPEAT and av[:2] == (0, 1):  # type: ignore[index]
            return {""} | seq(list(av[2]))  # type: ignore[index]
        if op is c.ASSERT:
            return {""}
        raise AssertionError(f"unexpected {op} in a generic keyword")

    return seq(list(p.parse(pattern)))


# Random texts made of what the rules look for: every keyword of every rule, every spelling
# of every generic key name, the words around them, and bodies in the shapes tokens take.
_KEYWORDS = sorted({k for r in RULES for k in r.keywords} | {k.upper() for r in RULES
                                                             for k in r.keywords if r.ci})
_NAMES = sorted({s for kw in GENERIC_KEYWORDS for s in _language(kw)})
_NAMES += [n.upper() for n in _NAMES] + [n.title() for n in _NAMES]
_PROSE = ["bypass", "tokens", "tokenizer", "keyboard", "Key", "KEY", "passed", "passé",
          "PASSTHROUGH", "compass", "secrets", "credentials", "db_", "x-", "X-Acme-", "aws_",
          "export ", "the ", " is ", " to ", "set ", "-p", "--password ", "machine h login u ",
          "kind: Secret", "data:", "https://u:", "@host", "Bearer ", "Basic ", "-u ", "sig=",
          "&", "?", "(", "\")", "\"", "'", "`", "<", ">", "</", "[", "]", "{", "}", "é", "ß"]
_SEPS = [" ", "  ", "\t", "=", " = ", ": ", ":", ":= ", "=>", "->", "\n", "\r\n", ", ", ".",
         "_", "-", "/", "\\n"]
_BODY = string.ascii_letters + string.digits
# The lengths the rules' quantifiers name ({36}, {20,200} …): bodies of those lengths exactly.
_LENGTHS = sorted({int(n) for r in RULES for n in re.findall(r"\{(\d+)(?:,\d*)?\}", r.pattern)
                   if 4 <= int(n) <= 200})
bodies = st.one_of(
    st.tuples(st.sampled_from(_LENGTHS), st.sampled_from([_BODY, _BODY + "_-", "0123456789abcdef",
                                                           string.ascii_uppercase + string.digits,
                                                           _BODY + "+/"]), st.randoms())
    .map(lambda t: "".join(t[2].choice(t[1]) for _ in range(t[0]))),
    st.text(alphabet=_BODY, min_size=8, max_size=70),
    st.text(alphabet=_BODY + "_-", min_size=16, max_size=90),
    st.text(alphabet="0123456789abcdef", min_size=16, max_size=64),
    st.text(alphabet=string.ascii_uppercase + string.digits, min_size=16, max_size=40),
    st.text(alphabet=_BODY + "+/=", min_size=40, max_size=120),
)
pieces = st.one_of(st.sampled_from(_KEYWORDS), st.sampled_from(_NAMES), st.sampled_from(_PROSE),
                   st.sampled_from(_SEPS), bodies, st.text(max_size=6))
texts = st.lists(pieces, min_size=1, max_size=30).map("".join)
_ALPHABETS = [_BODY, _BODY + "_-", "0123456789abcdef", string.ascii_uppercase + string.digits,
              _BODY + "+/"]


def _literals(pattern: str) -> list[str]:
    """The runs of two or more literal characters in a regex (a vendor prefix, a key name),
    read from the parser of `re`: from the regex, not from the keywords that guard it."""
    import re._constants as c  # type: ignore[import-not-found]
    import re._parser as p  # type: ignore[import-not-found]

    out: list[str] = []

    def walk(items: list[tuple[object, object]], flags: int) -> None:
        run = ""
        for op, av in items:
            if op is c.LITERAL:
                run += chr(av)  # type: ignore[arg-type]
                continue
            if len(run) >= 2:
                out.append(run)
            run = ""
            if op is c.SUBPATTERN:
                walk(list(av[-1]), flags)  # type: ignore[index]
            elif op is c.BRANCH:
                for b in av[1]:  # type: ignore[index]
                    walk(list(b), flags)
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
                walk(list(av[2]), flags)  # type: ignore[index]
        if len(run) >= 2:
            out.append(run)

    walk(list(p.parse(pattern)), 0)
    return out or [""]


def _rule_token(r: Rule) -> st.SearchStrategy[str]:
    """A literal of the rule's regex or a keyword, then a body of a length the regex names."""
    lengths = [int(n) for n in re.findall(r"\{(\d+)(?:,\d*)?\}", r.pattern)
               if 4 <= int(n) <= 200] or [20]
    starts = sorted(set(_literals(r.pattern)) | set(r.keywords))
    return st.tuples(st.sampled_from(starts), st.sampled_from(lengths),
                     st.sampled_from(_ALPHABETS), st.randoms()).map(
        lambda t: t[0] + "".join(t[3].choice(t[2]) for _ in range(t[1])))


# Keywords glued to bodies, as vendor tokens are written, between separators and prose.
tokens = st.lists(st.tuples(st.one_of(st.sampled_from(RULES).flatmap(_rule_token),
                                      st.tuples(st.sampled_from(_KEYWORDS + _NAMES),
                                                st.sampled_from([*_SEPS, ""]), bodies)
                                      .map("".join)),
                            st.sampled_from(_SEPS + _PROSE)).map("".join),
                  min_size=1, max_size=6).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(texts, tokens))
def test_random_text_scans_as_the_full_table(text: str) -> None:
    assert not _differs(text), "the prefiltered scan differs from the full table's"


def test_every_rule_shape_scans_as_the_full_table() -> None:
    """Each rule's literals (from its regex, not its keywords) and keywords, each with a body
    of every length its regex names in every alphabet: the random mixes above may miss one
    rule, this does not."""
    import random

    rnd = random.Random(24)
    total = found = differ = 0
    for r in RULES:
        lengths = {int(n) for n in re.findall(r"\{(\d+)(?:,\d*)?\}", r.pattern)
                   if 4 <= int(n) <= 200} or {20}
        for start in sorted(set(_literals(r.pattern)) | set(r.keywords)):
            for n in sorted(lengths):
                for alphabet in _ALPHABETS:
                    body = "".join(rnd.choice(alphabet) for _ in range(n))
                    text = f"see {start}{body} now\n"
                    findings = scan_text(text)
                    total += 1
                    found += bool(findings)
                    differ += findings != _reference(text)
    assert total > 1000 and found > 100  # not vacuous
    assert differ == 0, f"{differ} of {total} scans differ from the full table's"


@pytest.mark.skipif(CASES is None, reason="../shared/data/secrets/gitleaks_cases.jsonl is missing")
def test_gitleaks_cases_scan_as_the_full_table() -> None:
    assert CASES is not None
    total = differ = found = 0
    with CASES.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                text = json.loads(line)["text"]
                total += 1
                findings = scan_text(text)
                found += bool(findings)
                differ += findings != _reference(text)
    assert total > 5000 and found > 0.9 * total  # the reference is not vacuous
    assert differ == 0, f"{differ} of {total} scans differ from the full table's"


def test_generic_spellings_are_the_keywords_languages() -> None:
    """_may_judge looks for each generic keyword's spellings: all of them, and only them."""
    from lean_memory._secret_rules import GENERIC_SPELLINGS

    assert set(GENERIC_SPELLINGS) == set(GENERIC_KEYWORDS)
    for kw, spellings in GENERIC_SPELLINGS.items():
        assert set(spellings) == _language(kw), kw
        assert len(set(spellings)) == len(spellings)
        assert all(s.startswith(secrets._literal_prefix(kw)) for s in spellings), kw


def test_may_judge_skips_prose() -> None:
    """The generic prefilter is not vacuous: key names inside words are told without a regex."""
    comp = secrets._compiled()
    prose = ("the tokenizer passed the keyboard test, bypass the compass; tokens and secrets "
             "and credentials are words, and so is PASSTHROUGH")
    lower = prose.lower()
    skipped = [kw for (kw, *_), sp in zip(comp.generic, comp.spellings, strict=True)
               if kw in lower and not secrets._may_judge(prose, lower, kw, sp)]
    assert {"token", "pass", "key", "secret", "cred"} <= set(skipped)


def test_a_put_of_prose_compiles_no_rule() -> None:
    """A clean process scanning prose compiles none of the rule table's regexes."""
    code = ("import re, lean_memory.secrets as s\n"
            "re.purge()\n"
            "before = re._cache.copy() if hasattr(re, '_cache') else {}\n"
            "assert s.scan_text('Use the tokenizer: it bypasses the keyboard layer, and the '"
            " 'cache keys are passed along. Deploys go through CI.') == []\n"
            "c = s._compiled()\n"
            "print(sum(rx._compiled is not None for _, _, rx, *_ in c.rules)"
            " + sum(rx._compiled is not None for _, _, rx, _ in c.generic))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "0"


def test_import_is_light() -> None:
    """Importing the scanner and scanning loads neither dataclasses nor typing."""
    code = ("import sys, lean_memory.secrets as s\n"
            "s.scan_text('the token is in the vault: see docs')\n"
            "print(sorted(m for m in ('dataclasses', 'typing', 'inspect', 'ast')"
            " if m in sys.modules))\n")
    # -S: no site-packages, whose .pth hooks (editable installs) may import typing themselves
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    assert out.strip() == "[]"


def test_values_are_immutable_and_compare_by_fields() -> None:
    f = Finding("github-pat", 3, "ghp_\u2026", "ab" * 32, "notes.md")
    g = Finding(rule="github-pat", line=3, preview="ghp_\u2026", fingerprint="ab" * 32,
                path="notes.md")
    assert f == g and hash(f) == hash(g) and len({f, g}) == 1
    assert f != Finding("github-pat", 4, "ghp_\u2026", "ab" * 32, "notes.md")
    assert Finding("r", 1, "p", "x").path is None
    assert f != ("github-pat", 3, "ghp_\u2026", "ab" * 32, "notes.md")
    assert repr(f).startswith("Finding(rule='github-pat', line=3, ")
    assert not hasattr(f, "__dict__") and not hasattr(Allowlist(), "__dict__")  # __slots__
    for value, name in ((f, "line"), (Allowlist(), "rules")):
        with pytest.raises(AttributeError):
            setattr(value, name, 1)
        with pytest.raises(AttributeError):
            delattr(value, name)
    with pytest.raises(AttributeError):
        f.extra = 1  # type: ignore[attr-defined]
    a = Allowlist(paths=("docs/*",))
    assert a == Allowlist(frozenset(), ("docs/*",), frozenset()) and a.rules == frozenset()
    import pickle

    assert pickle.loads(pickle.dumps(f)) == f and pickle.loads(pickle.dumps(a)) == a


@given(st.text(alphabet="ab_.-=:\"'`]xZ0 \n", max_size=40), st.integers(0, 40))
def test_key_lookahead_is_the_regex(tail: str, run: int) -> None:
    for text in ("key" + tail, "key" + "a" * run + tail):
        expected = re.match(r"key(?=[a-z0-9_.\-]{0,30}[\"'`\]]?[=:])", text) is not None
        assert secrets._key_lookahead(text, 3) == expected


def test_a_wrong_prefilter_is_caught() -> None:
    """The comparison has teeth: with one rule's keyword broken in the scanner (as a wrong
    prefilter would), or the generic prefilter made to skip everything, the full table finds
    what the scanner misses."""
    token = "ghp_" + "".join(string.ascii_letters[(7 * i) % 52] for i in range(30)) + "9Q2xZ7"
    text = f"deploy with {token} today\npassword = 'Zq8vT2mR7xK4nW1pL9sD'\n"
    assert scan_text(text) == _reference(text)
    comp = secrets._compiled()
    broken = [(rid, ("ghq_",), rx, v, ci, scope, ("ghq_",), (), shape) if rid == "github-pat"
              else (rid, kws, rx, v, ci, scope, low, cased, shape)
              for rid, kws, rx, v, ci, scope, low, cased, shape in comp.rules]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(comp, "rules", broken)
        assert _differs(text)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(secrets, "_may_judge", lambda *_: False)
        assert _differs(text)
