"""Settings read from `.agents/config.toml` reach the code that uses them: `[secrets]
allow_rules` (write side, read side, `scan`) and `[memory] bm25_k1` / `bm25_b` (search
scores, fresh and from the on-disk index)."""

from __future__ import annotations

from pathlib import Path

import pytest

import lean_memory
from lean_memory.bm25 import BM25Index, documents_terms
from lean_memory.errors import SecretFound
from lean_memory.search import _indexed_body, _is_cached_bm25
from lean_memory.shown import read_shown

from .conftest import run_cli

# Built here (this file scans clean), and written below without a word such as "token" or
# "key" before them, so that only their own rule (github-pat, stripe-secret-key) finds them.
GITHUB = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dcXz"


def _config(mem: lean_memory.Memory, text: str) -> None:
    (mem.agents_dir / "config.toml").write_text(text, encoding="utf-8")


ALLOW_GITHUB = '[secrets]\nallow_rules = ["github-pat"]\n'


def test_allow_rules_from_the_config_lets_that_rule_through_a_put(
        mem: lean_memory.Memory) -> None:
    """Catches: `[secrets] allow_rules` ignored (Memory.allowlist built without the
    config's rules, or parse_config dropping the key): the put below is then refused."""
    with pytest.raises(SecretFound):
        mem.put_entry("quirks", f"the CI bot logs in with {GITHUB}", date="2026-01-02")
    _config(mem, ALLOW_GITHUB)
    fresh = lean_memory.Memory(mem.root)
    stored = fresh.put_entry("quirks", f"the CI bot logs in with {GITHUB}", date="2026-01-02")
    assert GITHUB in stored.text
    with pytest.raises(SecretFound):  # only the rule named is allowed
        fresh.put_entry("quirks", f"billing uses {STRIPE}", date="2026-01-03")


def test_allow_rules_from_the_config_shows_a_hand_typed_entry(mem: lean_memory.Memory) -> None:
    """The read side withholds an entry holding a credential, unless its rule is allowed.
    Catches: the verdicts ignoring the config's allow_rules (the entry stays withheld)."""
    shard = mem.shard_path("quirks")
    shard.write_text(shard.read_text(encoding="utf-8")
                     + f"\n## CI bot\nthe bot logs in with {GITHUB}\n", encoding="utf-8")
    text, withheld = read_shown(mem, "quirks")
    assert GITHUB not in text and withheld
    _config(mem, ALLOW_GITHUB)
    text, withheld = read_shown(lean_memory.Memory(mem.root), "quirks")
    assert GITHUB in text and not withheld


def test_allow_rules_from_the_config_applies_to_scan(mem: lean_memory.Memory) -> None:
    """Catches: `lean-memory scan` not reading the config's allow_rules."""
    (mem.root / "notes.txt").write_text(f"the bot logs in with {GITHUB}\n", encoding="utf-8")
    r = run_cli("scan", "notes.txt", cwd=mem.root)
    assert r.returncode == 1 and GITHUB.encode() not in r.stdout + r.stderr
    _config(mem, ALLOW_GITHUB)
    r = run_cli("scan", "notes.txt", cwd=mem.root)
    assert (r.returncode, r.stdout) == (0, b""), r.stderr
    (mem.root / "notes.txt").write_text(f"billing uses {STRIPE}\n", encoding="utf-8")
    assert run_cli("scan", "notes.txt", cwd=mem.root).returncode == 1


DOCS = [
    ("docker cache", "the docker build cache is lost on CI runners"),
    ("flaky windows", "docker on windows is flaky when the cache volume is slow and the "
                      "runner retries the whole build from a cold docker cache again"),
    ("lock timeout", "retry the deploy lock after a timeout"),
    ("cache keys", "cache keys include the lock file hash"),
]


def _expected(mem: lean_memory.Memory, query: str, k1: float, b: float) -> dict[str, float]:
    """The scores of one in-memory index with these parameters over the live entries."""
    entries = mem.entries("quirks")
    index = BM25Index.from_counts(documents_terms([(e.title, _indexed_body(e))
                                                   for e in entries]), k1=k1, b=b)
    return {entries[n].id: s for n, s in index.score(query).items()}


def _scores(mem: lean_memory.Memory, query: str) -> dict[str, float]:
    return {h.entry.id: h.score for h in mem.search(query, k=10)}


def test_bm25_k1_and_b_from_the_config_set_the_search_scores(mem: lean_memory.Memory) -> None:
    """Catches: bm25_k1 or bm25_b read from the config but not used by search (the scores
    stay those of the defaults 1.2 / 0.5, ADR 0049), whether the index is built now or its
    parts are read from disk (the second search), e.g. ``k1=1.2`` for ``k1=c.bm25_k1`` in
    search._build_part or in the parameters read_part gets."""
    for title, body in DOCS:
        mem.put_entry("quirks", body, title=title, date="2026-01-01")
    query = "docker cache lock"
    defaults = _expected(mem, query, 1.2, 0.5)
    assert _scores(mem, query) == pytest.approx(defaults, rel=1e-12)
    _config(mem, "[memory]\nbm25_k1 = 2.5\nbm25_b = 0.2\n")
    tuned = lean_memory.Memory(mem.root)
    assert (tuned.config.bm25_k1, tuned.config.bm25_b) == (2.5, 0.2)
    expected = _expected(tuned, query, 2.5, 0.2)
    assert expected != pytest.approx(defaults, rel=1e-6)  # the parameters matter here
    for _ in range(2):  # built now, then read from the parts on disk
        assert _scores(tuned, query) == pytest.approx(expected, rel=1e-12)
    # k1 alone, then b alone: each one is honoured
    for text, k1, b in (("[memory]\nbm25_k1 = 0.5\n", 0.5, 0.5),
                        ("[memory]\nbm25_b = 1.0\n", 1.2, 1.0)):
        _config(mem, text)
        again = lean_memory.Memory(mem.root)
        assert _scores(again, query) == pytest.approx(_expected(again, query, k1, b), rel=1e-12)
        assert _scores(again, query) != pytest.approx(defaults, rel=1e-6)


def test_bm25_parameters_out_of_range_are_a_config_error(tmp_path: Path) -> None:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for text, needle in (("[memory]\nbm25_b = 1.5\n", b"bm25_b must be between 0 and 1"),
                         ('[memory]\nbm25_k1 = "high"\n', b"bm25_k1 must be a number")):
        _config(mem, text)
        r = run_cli("get", "--query", "docker", cwd=tmp_path)
        assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_the_bm25_retriever_defaults_to_the_configs_parameters(mem: lean_memory.Memory) -> None:
    """Catches: the default ``bm25_b`` (or ``bm25_k1``) changed in the config but not in the
    ``BM25`` retriever (ADR 0049): ``Memory(retrievers=[BM25()])`` would then rank with other
    parameters than the default memory and miss the cached index."""
    retriever = lean_memory.BM25()
    assert (retriever.k1, retriever.b) == (mem.config.bm25_k1, mem.config.bm25_b)
    assert _is_cached_bm25(retriever, mem)
