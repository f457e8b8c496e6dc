"""The read path's caches (ADR 0016, round 2) answer exactly what a fresh computation does.

Three caches: the digest's standing-rule lines (``.cache/digest-rules.marshal``), the
status rows (the put state, ``.cache/put-state.marshal``, the one status cache) and the
spans of the withheld entries of a shard file (``.cache/withheld-spans.marshal``). Each is
compared, after random puts, corrections and hand edits (credentials typed in included),
with the answer computed with the cache file deleted, and with a reference written here the
way the code worked before the cache.
The secrets are built at run time; assertions never print them.
"""

from __future__ import annotations

import itertools
import random
import string
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.shown import notice, read_shown
from lean_memory.withhold import Verdicts, content_key


def _token(prefix: str, n: int, seed: int) -> str:
    rng = random.Random(seed)
    return prefix + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


GITHUB = _token("gh" + "p_", 36, 1)
SLACK = "xo" + "xb-" + "2817364519-4829174635-" + _token("", 24, 3)
SECRETS = (GITHUB, SLACK)
WORDS = ["deploy", "cache", "windows", "socket", "schema", "token", "queue", "parser"]
_COUNTER = itertools.count()
T = TypeVar("T")
SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _absent(where: str, text: str) -> None:
    for n, secret in enumerate(SECRETS):
        for piece in (secret, *(secret[i:i + 10] for i in range(len(secret) - 9))):
            assert piece not in text, f"part of secret #{n} found in {where}"


def _memory(tmp_path: Path) -> lean_memory.Memory:
    mem = lean_memory.Memory(tmp_path / f"m{next(_COUNTER)}")
    mem.init()
    return mem


def _raw(shard: str, entry_id: str | None, title: str, text: str) -> str:
    """An entry as typed by hand: with or without its own id."""
    if entry_id is None:
        return f"## {title}\n\n{text}\n\n"
    return fmt.render_entry(fmt.Entry(id=entry_id, shard=shard, title=title, text=text,
                                      date="2026-03-04"))


def _hand_append(mem: lean_memory.Memory, shard: str, raw: str) -> None:
    path = mem.shard_path(shard)
    current = mem.read_text(path) or f"# {shard}\n\n"
    path.write_text(fmt.ensure_separated(current) + raw, encoding="utf-8")


# Random operations on a memory: (kind, a word index, a flag, a number).
OPS = st.lists(st.tuples(st.sampled_from(["rule", "correct", "leak", "edit", "fact", "drop"]),
                         st.integers(0, 7), st.booleans(), st.integers(0, 99)),
               min_size=1, max_size=7)


def _apply(mem: lean_memory.Memory, op: tuple[str, int, bool, int]) -> None:
    kind, w, flag, n = op
    word = WORDS[w]
    rules = fmt.parse(mem.read_text(mem.shard_path("conventions")), "conventions").entries
    if kind == "rule":
        mem.put_entry("conventions", f"Rule {n}: always {word} before a release "
                      f"{'and say why in the log ' * (n % 9)}.")
    elif kind == "correct" and rules:
        target = rules[n % len(rules)]
        mem.put_entry("corrections", f"Correction {n}: that rule is no longer needed.",
                      supersedes=target.id, date="2026-12-01" if flag else "2020-01-01")
    elif kind == "leak":
        shard = "conventions" if flag else "failures"
        _hand_append(mem, shard, _raw(shard, None if n % 3 == 0 else f"h{n:07d}",
                                      f"Leaky {word} {n}", f"use {SECRETS[n % 2]} to {word}"))
    elif kind == "edit" and rules:
        path = mem.shard_path("conventions")
        text = mem.read_text(path)
        target = rules[n % len(rules)]
        new = target.raw.replace(target.text.split()[-1], f"{word}{n}", 1)
        path.write_text(text.replace(target.raw, new, 1), encoding="utf-8")
    elif kind == "fact":
        mem.put_entry("failures", f"The {word} step {n} failed on {WORDS[(w + 1) % 8]}.")
    elif kind == "drop" and rules:
        path = mem.shard_path("conventions")
        path.write_text(mem.read_text(path).replace(rules[n % len(rules)].raw, "", 1),
                        encoding="utf-8")


def _fresh(mem: lean_memory.Memory, name: str, call: Callable[[], T]) -> T:
    """``call()`` with the cache file ``name`` out of the way; the file is put back after,
    so that the next step finds it as it was (stale, if the step changed something)."""
    path = mem.cache_dir / name
    kept = path.read_bytes() if path.exists() else None
    path.unlink(missing_ok=True)
    try:
        return call()
    finally:
        if kept is not None:
            path.write_bytes(kept)


@SETTINGS
@given(OPS, st.sampled_from([60, 200, 400, 1200]), st.sampled_from(WORDS))
def test_digest_rules_cache_matches_a_fresh_digest(tmp_path: Path, ops: list[tuple[str, int,
                                                   bool, int]], budget: int, word: str) -> None:
    mem = _memory(tmp_path)
    mem.put_entry("conventions", "Always run ruff before a commit.")
    prompts = (f"why does {word} fail", "")
    for op in [("fact", 0, False, 0), *ops]:
        _apply(mem, op)
        for prompt in prompts:  # whatever the cache holds from the steps before
            cached = lean_memory.Memory(mem.root).digest(prompt, budget_tokens=budget)
            assert (mem.cache_dir / "digest-rules.marshal").exists()
            fresh = _fresh(mem, "digest-rules.marshal", lambda p=prompt: lean_memory.Memory(
                mem.root).digest(p, budget_tokens=budget))
            assert cached == fresh
            _absent("the digest", cached)


def test_a_credential_typed_into_a_cached_rule_is_withheld(tmp_path: Path) -> None:
    mem = _memory(tmp_path)
    mem.put_entry("conventions", "Post every deploy to the team channel.")
    mem.put_entry("conventions", "Always run ruff before a commit.")
    before = mem.digest("deploy")
    assert "Post every deploy" in before
    path = mem.shard_path("conventions")
    path.write_text(mem.read_text(path).replace("team channel", f"channel with {SLACK}"),
                    encoding="utf-8")
    after = lean_memory.Memory(mem.root).digest("deploy")
    _absent("the digest", after)
    assert "1 entry withheld" in after and "Post every deploy" not in after
    assert "Always run ruff" in after
    assert _fresh(mem, "digest-rules.marshal",
                  lambda: lean_memory.Memory(mem.root).digest("deploy")) == after


def test_a_damaged_rules_cache_is_ignored(tmp_path: Path) -> None:
    mem = _memory(tmp_path)
    mem.put_entry("conventions", "Always run ruff before a commit.")
    good = mem.digest("ruff")
    for junk in (b"", b"\x00garbage", b"[]"):
        (mem.cache_dir / "digest-rules.marshal").write_bytes(junk)
        assert lean_memory.Memory(mem.root).digest("ruff") == good


@SETTINGS
@given(OPS)
def test_status_cache_matches_a_fresh_status(tmp_path: Path,
                                            ops: list[tuple[str, int, bool, int]]) -> None:
    mem = _memory(tmp_path)
    for op in [("fact", 0, False, 0), *ops]:
        _apply(mem, op)
        cached = lean_memory.Memory(mem.root).status()  # the rows of the step before, if valid
        assert (mem.cache_dir / "put-state.marshal").exists()
        assert cached == _fresh(mem, "put-state.rows.marshal", lambda: _fresh(
            mem, "put-state.marshal", lean_memory.Memory(mem.root).status))


def _reference_shown(mem: lean_memory.Memory, name: str) -> tuple[str, list[str]]:
    """get SHARD as it was before the spans cache: the whole shard parsed."""
    v = Verdicts(mem)
    text, bad = v.read(mem.shard_path(name), name)
    if not bad:
        return text, []
    shard = fmt.parse(text, name)
    preamble = shard.preamble
    if content_key(preamble) in bad:
        preamble = "> [withheld] this shard's preamble holds a credential and is not shown\n\n"
    parts, ids = [preamble], []
    for e in shard.entries:
        if content_key(e.raw) in bad:
            ids.append(e.id)
            tail = e.raw[len(e.raw.rstrip("\r\n")):]
            parts.append(notice(e.id) + ("\n" if tail.count("\n") > 1 else ""))
        else:
            parts.append(e.raw)
    return "".join(parts), ids


ENTRIES = st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 2),
                             st.sampled_from(["\n", "\r\n"]), st.integers(0, 3)),
                   min_size=0, max_size=8)


@SETTINGS
@given(st.booleans(), ENTRIES, ENTRIES)
def test_get_shard_with_remembered_spans_matches_a_whole_parse(
        tmp_path: Path, leaky_preamble: bool, first: list[tuple[bool, bool, int, str, int]],
        then: list[tuple[bool, bool, int, str, int]]) -> None:
    mem = _memory(tmp_path)
    path = mem.shard_path("quirks")
    n = itertools.count()

    def raws(spec: list[tuple[bool, bool, int, str, int]]) -> str:
        out = []
        for leak, own_id, title, eol, blank in spec:
            i = next(n)
            body = f"Body {i} about {WORDS[i % 8]}" + (f" with {SECRETS[i % 2]}" if leak else "")
            raw = _raw("quirks", f"q{i:07d}" if own_id else None, f"Same title {title}", body)
            out.append(raw.rstrip("\n").replace("\n", eol) + eol * (1 + blank))
        return "".join(out)

    preamble = f"# quirks\n\n{'token ' + GITHUB if leaky_preamble else 'notes'}\n\n"
    for step, spec in enumerate((first, then)):
        text = preamble + raws(spec) if step == 0 else mem.read_text(path) + raws(spec)
        path.write_bytes(text.encode("utf-8"))
        want = _reference_shown(mem, "quirks")
        for _ in range(2):  # computed, then from the spans cache
            got = read_shown(lean_memory.Memory(mem.root), "quirks")
            assert got == want
            _absent("get SHARD", got[0])
