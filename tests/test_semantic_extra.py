"""The semantic extra under the digest's rule (issue 22, ADR 0019, 0021): a cosine floor on
the nearest neighbours, one vector cache per model, the background embedder after a put,
and status and context saying when and why the extra was skipped."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import digest as dg
from lean_memory.config import Config
from lean_memory.embedcmd import embed_missing
from lean_memory.errors import ConfigError
from lean_memory.retrievers import Fusion, Job, fuse

from .test_gate import matches
from .test_hostile_exec import clone  # noqa: F401  (a fixture)
from .test_semantic import configure, fake, fill_memory, toy  # noqa: F401  (fake: a fixture)


def cosine(a: str, b: str) -> float:
    u, v = toy(a), toy(b)
    return sum(x * y for x, y in zip(u, v, strict=True)) / math.sqrt(
        sum(x * x for x in u) * sum(y * y for y in v))


CLOSE = "Automobile collision\nAutomobile collision in the parking lot report"
FAR = "Run the linters before every commit\nRun the linters before every commit"
PROMPT = "postgres vacuum after a car crash"


def _floor_between() -> tuple[float, float, float]:
    """A floor between the far neighbour's cosine and the close one's (computed, not
    assumed: the toy model decides)."""
    close, far = cosine(PROMPT, CLOSE), cosine(PROMPT, FAR)
    assert close > far
    return (close + far) / 2, close, far


def test_the_rescue_never_fills_with_a_neighbour_below_the_floor(
        mem: Memory, fake: Any) -> None:  # noqa: F811
    floor, _, _ = _floor_between()
    m = configure(mem, fake[1], ollama=f"min_cosine = {floor}")
    fill_memory(m)
    embed_missing(m)
    got = [h.entry.title for h in m.search(PROMPT, k=5)]
    assert got[:2] == ["postgres vacuum", "postgres at night"] or "postgres vacuum" in got
    assert "Automobile collision" in got  # above the floor: the paraphrase is rescued
    assert not any("linters" in t for t in got)  # below it: never
    configure(m, fake[1], ollama="min_cosine = -1")
    assert len(Memory(m.root).search(PROMPT, k=5)) == 4  # the reference: the floor cuts


def test_inside_an_open_gate_a_neighbour_below_the_floor_is_not_injected(
        mem: Memory, fake: Any) -> None:  # noqa: F811
    floor, _, _ = _floor_between()
    m = configure(mem, fake[1], ollama=f"min_cosine = {floor}")
    fill_memory(m)
    embed_missing(m)
    lines = matches(m.digest(PROMPT))
    assert any("postgres" in ln for ln in lines)  # the gate is open (lexical evidence)
    assert any("Automobile" in ln for ln in lines)
    assert not any("linters" in ln for ln in lines)
    # neighbours alone never open the gate, even above the floor
    assert [h.entry.title for h in m.search("car crash", k=1)] == ["Automobile collision"]
    assert matches(m.digest("car crash")) == []


class E(NamedTuple):
    id: str


def _fuse(mode: str, floor: float | None) -> list[int]:
    class Dense:
        name = "dense"

        def __init__(self) -> None:
            self.floor = floor

        def rank(self, query: str, entries: Any, k: int) -> list[tuple[str, float]]:
            scores = {"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.05}
            return sorted(((e.id, scores[e.id]) for e in entries), key=lambda t: -t[1])[:k]

    ids = ["a", "b", "c", "d"]
    fused, _ = fuse("q", 4, [("bm25", None), ("dense", Job("dense", lambda _d: Dense()))],
                    Fusion(mode, weights=(1.0, 1.0)),
                    bm25=lambda depth, among: [(3, 2.0)], numbers=lambda: [0, 1, 2, 3],
                    entries=lambda ns: [E(ids[n]) for n in ns], timeout_ms=5000)
    return [n for n, _ in fused]


@pytest.mark.parametrize("mode", ["rerank", "rrf"])
def test_fuse_keeps_neighbours_below_a_retrievers_floor_out_of_the_fill(mode: str) -> None:
    assert _fuse(mode, None)[0] in (0, 3) and set(_fuse(mode, None)) == {0, 1, 2, 3}
    assert set(_fuse(mode, 0.3)) == {3, 0, 1}  # c (0.1) is below, d is BM25's own hit


@pytest.mark.parametrize("value", ["2", "-1.5", '"high"', "true"])
def test_min_cosine_is_validated(value: str) -> None:
    from lean_memory.config import parse_config

    with pytest.raises(ConfigError, match=r"\[ollama\] min_cosine"):
        parse_config({"ollama": {"min_cosine": __import__("tomllib").loads(f"v = {value}")["v"]}})


def test_min_cosine_default_is_a_floor() -> None:
    assert 0 < Config().ollama_min_cosine < 1


# -- one vector cache per model, however its tag is spelt --------------------------------

def test_latest_tag_shares_one_vector_cache(mem: Memory, fake: Any) -> None:  # noqa: F811
    from lean_memory.ollama import vectors_path

    state, host = fake
    m = configure(mem, host, ollama='model = "all-minilm:latest"')
    fill_memory(m)
    assert embed_missing(m) == (4, 4)
    assert vectors_path(m, "all-minilm:latest") == vectors_path(m, "all-minilm")
    state.requests.clear()
    m = configure(m, host, ollama='model = "all-minilm"')
    assert embed_missing(m) == (0, 4)  # the same vectors: nothing sent again
    assert state.requests == []
    assert [p.name for p in m.cache_dir.glob("vectors-*.bin")] == [
        vectors_path(m, "all-minilm").name]


def test_an_old_latest_cache_is_adopted_then_removed(mem: Memory, fake: Any) -> None:  # noqa: F811
    """Before, ``all-minilm:latest`` kept its own file under its own keys: it is moved into
    the model's one file (no text sent again) and deleted, not left behind."""
    from hashlib import blake2b

    from lean_memory.embedding import content_key, document_text
    from lean_memory.vectors import Vectors

    state, host = fake
    m = configure(mem, host, ollama='model = "all-minilm:latest"')
    fill_memory(m)
    old = Vectors()
    for s in m.shards:
        for e in m.entries(s):
            old.add(content_key("all-minilm:latest", document_text(e)), toy(document_text(e)))
    tag = blake2b(b"all-minilm:latest", digest_size=4).hexdigest()
    m.cache_dir.mkdir(parents=True, exist_ok=True)
    legacy = m.cache_dir / f"vectors-{tag}.bin"
    old.save(legacy, m.agents_dir)
    assert embed_missing(m) == (0, 4)
    assert state.requests == [] and not legacy.exists()
    assert [h.entry.title for h in m.search("car crash", k=1)] == ["Automobile collision"]


# -- status and context say when and why the extra was skipped ---------------------------

def test_status_and_context_say_when_and_why_the_hook_went_without_the_extra(
        mem: Memory, fake: Any) -> None:  # noqa: F811
    """The hook fell back in silence (20 of 20 prompts while `embed` ran); and the note
    that entries lack a vector never reached the hook's log."""
    import json

    from .conftest import run_cli
    from .test_agents import claude_prompt, hook
    from .test_semantic import _closed_port

    m = configure(mem, fake[1])
    fill_memory(m)  # no vector yet
    status = run_cli("status", cwd=m.root).stdout.decode()
    assert "the prompt hook never searched without it" in status
    assert hook("user-prompt-submit", json.dumps(claude_prompt(m.root, "postgres slow")))[0] == 0
    status = run_cli("status", cwd=m.root).stdout.decode()
    assert "last searched without by the prompt hook (" in status
    assert "entries it ranked have no vector yet" in status
    embed_missing(m)
    m = configure(m, f"http://127.0.0.1:{_closed_port()}")
    hook("user-prompt-submit", json.dumps(claude_prompt(m.root, "postgres slow")))
    status = run_cli("status", cwd=m.root).stdout.decode()
    assert "cannot reach Ollama" in status.splitlines()[-1]
    shown = json.loads(run_cli("status", "--json", cwd=m.root).stdout)
    assert "cannot reach Ollama" in shown["vectors"]["last_skipped"]["why"]
    context = run_cli("context", "postgres slow", cwd=m.root).stdout.decode()
    assert "semantic extra skipped now: retriever 'ollama' failed (cannot reach" in context


# -- the background embedder after a put --------------------------------------------------

def _wait_embedded(m: Memory, n: int, seconds: float = 20.0) -> dict[str, Any]:
    import time

    from lean_memory.embedcmd import describe

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        shown = describe(m)
        if shown["embedded"] >= n and not (m.cache_dir / "embed.running").exists():
            return shown
        time.sleep(0.05)
    return describe(m)


def test_a_put_embeds_its_entry_in_the_background(mem: Memory, fake: Any) -> None:  # noqa: F811
    """Vectors came only from `lean-memory embed`: a new entry was found by BM25 alone
    until someone ran it."""
    from lean_memory.embedcmd import describe

    state, host = fake
    m = configure(mem, host, ollama="embed_on_put = true")
    state.gate.clear()  # the model answers nothing until the put has returned
    try:
        m.put_entry("failures", "Automobile collision in the parking lot report",
                    title="Automobile collision", date="2026-01-10")
        assert describe(m)["embedded"] == 0  # the put never waits for the model
    finally:
        state.gate.set()
    assert _wait_embedded(m, 1)["embedded"] == 1
    assert [h.entry.title for h in m.search("car crash", k=1)] == ["Automobile collision"]
    assert all(r["model"] == "nomic-embed-text" for r in state.requests)


def test_the_background_embedder_is_bounded_and_newest_first(
        mem: Memory, fake: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    from lean_memory import embedcmd

    m = configure(mem, fake[1])  # embed_on_put off: the entries below wait for a backfill
    for i in range(5):
        m.put_entry("quirks", f"fact number {i} about postgres", date=f"2026-01-1{i}")
    monkeypatch.setattr(embedcmd, "BACKGROUND_LIMIT", 2)
    embedcmd.embed_in_background(m)  # what the child runs, in this process
    r = embedcmd._offline(m, lambda t: [])
    got = sorted(e.text for e in m.entries("quirks") if r.key(e) in r.vectors)
    assert got == ["fact number 3 about postgres", "fact number 4 about postgres"]
    assert embed_missing(m) == (3, 5)  # `embed` backfills the rest


def test_no_background_embedder_without_the_extra(mem: Memory) -> None:
    from lean_memory.spawn import embed_soon

    mem.put_entry("quirks", "postgres: vacuum weekly")
    assert not (mem.cache_dir / "embed.running").exists()
    assert embed_soon(mem) is False


def test_a_failed_background_embed_is_said_by_status(mem: Memory) -> None:
    from .conftest import run_cli
    from .test_semantic import _closed_port

    m = configure(mem, f"http://127.0.0.1:{_closed_port()}", ollama="embed_on_put = true")
    m.put_entry("quirks", "postgres: vacuum weekly")
    _wait_embedded(m, 99, seconds=10)  # until the child gave up and removed its marker
    status = run_cli("status", cwd=m.root).stdout.decode()
    assert "could not embed after a put (cannot reach Ollama" in status


def test_the_background_embedder_runs_no_code_from_a_cloned_repository(
        clone: Any, fake: Any) -> None:  # noqa: F811
    """ADR 0012: the child is ``python -P`` from the package's folder, never the clone's."""
    from .test_hostile_exec import run

    assert run(clone.root, "init").returncode == 0
    (clone.root / ".agents" / "config.toml").write_text(
        f'[memory]\nretrievers = ["bm25", "ollama"]\n[ollama]\nhost = "{fake[1]}"\n')
    assert run(clone.root, "put", "failures", "Automobile collision in the lot").returncode == 0
    assert _wait_embedded(Memory(clone.root), 1)["embedded"] == 1  # the child did its work
    assert clone.ran() == ""


def test_the_rescue_ranks_at_most_the_newest_rescue_cap_entries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The rescue scored every entry in pure Python (311-344 ms at 8,740 entries against
    the 400 ms deadline): it is bounded to the RESCUE_CAP newest."""
    from lean_memory import retrievers

    seen: list[int] = []

    class Dense:
        name = "dense"

        def rank(self, query: str, entries: Any, k: int) -> list[tuple[str, float]]:
            seen.append(len(entries))
            return [(e.id, 1.0 / (1 + i)) for i, e in enumerate(entries)][:k]

    monkeypatch.setattr(retrievers, "RESCUE_CAP", 3)
    newest_first = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    fused, _ = fuse("q", 5, [("bm25", None), ("dense", Job("dense", lambda _d: Dense()))],
                    Fusion(), bm25=lambda depth, among: [],
                    numbers=lambda: newest_first,
                    entries=lambda ns: [E(str(n)) for n in ns], timeout_ms=5000)
    assert seen == [3] and [n for n, _ in fused] == [9, 8, 7]


# -- the gate reads the first stage's evidence, not the fused score -------------------------

class Reversed:
    """A deterministic 'dense' retriever: the entries it is given, scored against their
    order (the last given is its best), so that the re-rank re-orders BM25's head."""

    name = "reversed"

    def rank(self, query: str, entries: Any, k: int) -> list[tuple[str, float]]:
        n = len(entries)
        return [(e.id, (i + 1) / n) for i, e in enumerate(entries)][::-1][:k]


def _many_matches(tmp_path: Any, n: int = 40) -> Memory:
    """``n`` entries that all hold the query's words, with BM25 scores close together
    (longer filler, slightly lower score): no tail cut on BM25's own scores."""
    m = Memory(tmp_path)
    m.init()
    for i in range(n):
        filler = " ".join(f"w{i}x{j}" for j in range(i % 7))
        m.put_entry(("quirks", "insights", "failures")[i % 3],
                    f"Kubernetes rollout note {i}: the rollout of service s{i} {filler}",
                    date="2026-11-02")
    return m


def test_with_the_extra_on_bm25s_25th_hit_still_reaches_the_digest(tmp_path: Any) -> None:
    """The fused score of a hit past the re-rank's depth is -1: the tail cut read it and
    no hit past the 20th ever reached the digest with the extra on (LoCoMo's recall fell
    from .727 to .662 at 1,200 tokens). It reads BM25's own score now."""
    from lean_memory.bm25 import BM25

    prompt = "kubernetes rollout"
    off = _many_matches(tmp_path)
    ranked = off.search(prompt, k=40)
    assert len(ranked) == 40 and ranked[24].score >= dg.GATE_RATIO * ranked[0].score
    evidence = ranked[24].entry.id  # BM25's 25th hit: past the re-rank's depth (20)
    on = Memory(off.root, retrievers=[BM25(), Reversed()])
    fused = on.search(prompt, k=40)
    assert [h.entry.id for h in fused] != [h.entry.id for h in ranked]  # re-ordered
    assert fused[24].entry.id == evidence  # past the depth, BM25's order
    lines_off = matches(off.digest(prompt, budget_tokens=4000))
    lines_on = matches(on.digest(prompt, budget_tokens=4000))
    marker = ranked[24].entry.text.split(":")[0]  # "Kubernetes rollout note <i>"
    assert sum(marker + ":" in ln for ln in lines_off) == 1
    assert sum(marker + ":" in ln for ln in lines_on) == 1
    assert sorted(lines_on) == sorted(lines_off)  # re-ordered, never shrunk
    assert lines_on != lines_off
    assert fused[24].base == ranked[24].score  # the evidence the gate reads


def _hit(i: int, score: float, base: float, text: str = "", rank: int = 0) -> Any:
    from lean_memory.format import Entry
    from lean_memory.search import Hit

    text = text or f"entry {i}"
    return Hit(Entry(f"e{i}", "quirks", text, text), "quirks", score, False, base, rank)


def _old_trimmed(hits: list[Any]) -> list[Any]:
    """The cut as ADR 0021 defines it, on a ranking in the first stage's order."""
    best = hits[0].base if hits else 0.0
    for i in range(dg.GATE_KEEP, len(hits)):
        if not (best > 0 and hits[i].base >= dg.GATE_RATIO * best):
            return hits[:i]
    return hits


@given(st.lists(st.floats(0.01, 30.0), max_size=45), st.randoms(use_true_random=False),
       st.integers(1, 30))
@example([1.0] * 12 + [3.0], __import__("random").Random(0), 13)  # ties at the cut
@settings(max_examples=200, deadline=None)
def test_a_rerank_reorders_what_the_tail_cut_keeps_never_how_much(
        scores: list[float], rnd: Any, depth: int) -> None:
    scores.sort(reverse=True)
    first = [_hit(i, s, s) for i, s in enumerate(scores)]  # the extra off: base == score
    head = first[:depth]
    rnd.shuffle(head)
    def again(h: Any, score: float) -> Any:  # as search does: the first stage's place
        return _hit(int(h.entry.id[1:]), score, h.base, rank=int(h.entry.id[1:]))

    fused = [again(h, 1.0 - j / 100) for j, h in enumerate(head)]
    fused += [again(h, -1.0) for h in first[depth:]]  # as rerank
    assert dg.trimmed(first)[0] == _old_trimmed(first)  # off: the cut is unchanged
    kept, cut = dg.trimmed(fused)
    assert {h.entry.id for h in kept} == {h.entry.id for h in _old_trimmed(first)}
    assert cut == dg.trimmed(first)[1]
    order = [h.entry.id for h in fused]
    assert [h.entry.id for h in kept] == [i for i in order if i in {h.entry.id for h in kept}]


def test_the_gate_reads_the_first_stages_best_hits_not_the_fused_top() -> None:
    """BM25's best hit holds the whole query; a re-rank that moves it past GATE_TOP must
    not close the gate (the fused top ten hold none of the query's words)."""
    words = "flaky pipeline"
    hits = [_hit(0, 0.0, 9.0, f"The {words} retries twice")]
    hits += [_hit(i, 0.0, 9.0 - i / 10, f"note {i} unrelated") for i in range(1, 20)]
    from lean_memory.bm25 import tokenize

    df = tuple((t, 1) for t in tokenize(words))
    assert dg.opens(hits, words, 30, df, 0.25)
    fused = hits[1:15] + hits[:1] + hits[15:]  # BM25's best now 15th
    assert dg.opens(fused, words, 30, df, 0.25)
