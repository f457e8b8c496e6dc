"""The fast append path of put writes exactly what the general path writes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import format as fmt
from lean_memory.store import Summary

from .conftest import snapshot

WORDS = ["cache", "build", "windows", "flaky", "upload", "retry", "docker", "port", "5432",
         "parse_config", "lib/config.py", "not", "never", "the", "a", "timeout", "v3.11"]

op = st.tuples(
    st.sampled_from(["seed", "quirks"]),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=9).map(" ".join),
    st.sampled_from(["put", "put", "put", "new", "hand", "tail", "crlf"]),
)


def run(root: Path, ops: list[tuple[str, str, str]]) -> list[tuple[str, str, str | None]]:
    mem = Memory(root)
    mem.init()
    out = []
    for i, (shard, text, how) in enumerate(ops):
        date = f"2026-01-{1 + i % 28:02d}"
        path = mem.shard_path(shard)
        if how == "hand":
            path.write_text(fmt.ensure_separated(path.read_text()) + f"## {text}\n{text}\n")
            continue
        if how == "tail":  # a hand edit that leaves no blank line at the end
            path.write_text(path.read_text().rstrip("\n") + "\nmore words\n")
            continue
        body = text.replace(" ", "\r\n", 1) if how == "crlf" else text
        e = Memory(root).put_entry(shard, body, date=date, new=how == "new")
        out.append((e.id, e.text, e.get("said_again")))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(op, min_size=1, max_size=25))
def test_fast_and_general_paths_write_the_same(ops: list[tuple[str, str, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        fast_root, slow_root = Path(tmp) / "fast", Path(tmp) / "slow"
        fast = run(fast_root, ops)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(Memory, "_append_fast", lambda self, *a, **k: None)
            slow = run(slow_root, ops)
        assert fast == slow
        assert snapshot(fast_root / ".agents") == snapshot(slow_root / ".agents")
        # the summaries the fast path recorded are those a fresh parse gives
        mem = Memory(fast_root)
        cached = mem._summaries({})
        for name in mem.shards:
            fresh = Summary.of(mem.read_shard(name))
            got = cached[name]
            assert (got.tokens, got.links, got.hand, got.preamble_tokens) == (
                fresh.tokens, fresh.links, fresh.hand, fresh.preamble_tokens)
            assert [c[:3] for c in got.costs] == [c[:3] for c in fresh.costs]


def test_the_fast_path_is_taken(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.put_entry("seed", "first fact about the build cache", date="2026-01-01")
    mem.put_entry("seed", "second fact about docker ports", date="2026-01-02")

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the shard was parsed")

    monkeypatch.setattr(Memory, "_put_parsed", no_parse)
    e = Memory(mem.root).put_entry("seed", "third fact about flaky uploads", date="2026-01-03")
    assert [x.id for x in mem.entries("seed")][-1] == e.id
    assert e.line == mem.entries("seed")[-1].line
