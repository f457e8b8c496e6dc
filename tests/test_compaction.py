"""Compaction (SPEC section 7, ADR 0005): budget, determinism, idempotence, the archive."""

from __future__ import annotations

import datetime
import json
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import Memory
from lean_memory import format as fmt
from lean_memory.compaction import LEVELS, CompactionReport, archive_piece, gist
from lean_memory.tokens import estimate_tokens

from .conftest import run_cli, snapshot

_WORDS = ("build cache windows linux path error retry timeout config deploy fixture pytest "
          "runner docker image flaky network proxy lockfile migration schema index query "
          "release branch rebase commit hook lint format")
WORDS = _WORDS.split()


def make(root: Path, *, budget: int = 2000, keep: int = 3, auto: bool = False) -> Memory:
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {budget}\nkeep_recent = {keep}\n"
        f"auto_compact = {'true' if auto else 'false'}\n", encoding="utf-8")
    mem = Memory(root)
    mem.init()
    return mem


def sentence(i: int, n: int = 18) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n))


def fill(mem: Memory, count: int, shards: tuple[str, ...] = ("failures", "insights", "quirks"),
         long: int = 2, start: int = 0) -> dict[str, str]:
    """``count`` distinct entries spread over ``shards``; returns id -> text."""
    texts: dict[str, str] = {}
    for i in range(start, start + count):
        shard = shards[i % len(shards)]
        text = (f"Entry {i}: {sentence(i)}. " + " ".join(sentence(i + k) for k in range(long))
                + f"\n\nDetail {i}: {sentence(i * 5)}.")
        day = datetime.date(2025, 1, 1) + datetime.timedelta(days=i)
        e = mem.put_entry(shard, text, date=day.isoformat(), new=True)
        texts[e.id] = text
    return texts


def protected(mem: Memory, keep: int) -> dict[str, str]:
    """id -> raw text of the newest ``keep`` entries of every shard.

    A hand-written entry (no metadata line yet) is identified by its text instead: when
    folding an older entry of the same title would renumber its derived id, compaction
    stamps the id in a metadata line, as every write that touches a shard does.
    """
    out: dict[str, str] = {}
    for name in mem.shards:
        entries = [e for e in mem.entries(name) if e.get("compacted") is None]
        order = sorted(range(len(entries)), key=lambda i: (entries[i].date or "", i))
        for i in order[max(len(order) - keep, 0):]:
            e = entries[i]
            out[e.id] = e.raw if e.has_meta else "text:" + e.text
    return out


def check_invariants(mem: Memory, before_texts: dict[str, str], kept: dict[str, str]) -> None:
    """Every original is live or archived with the same text (by id; a hand-written entry,
    whose id is only derived until a write stamps it, by title and text); the newest are
    untouched; at most one compacted entry per shard, within its size cap."""
    live = {e.id: e for e in mem.entries()}
    archived = {e.id: e for e in mem.entries(archive=True)}
    anywhere = {(e.title, e.text) for e in [*live.values(), *archived.values()]}
    for id_, text in before_texts.items():
        if id_.startswith("hand:"):  # "hand:<title>\0<text>"
            assert tuple(id_[5:].split("\0", 1)) in anywhere, id_
            continue
        where = live.get(id_) or archived.get(id_)
        assert where is not None, f"{id_} lost"
        assert where.text == text
    ids = [e.id for e in mem.entries(archive=True)]
    assert len(ids) == len(set(ids)), "an id twice in the archive"
    for id_, raw in kept.items():
        assert id_ in live
        assert (live[id_].raw if live[id_].has_meta and not raw.startswith("text:")
                else "text:" + live[id_].text) == raw
    for name in mem.shards:
        compacted = [e for e in mem.entries(name) if e.get("compacted") is not None]
        assert len(compacted) <= 1
        for e in compacted:  # folded again, more tersely, rather than grow past an entry's cap
            assert (estimate_tokens(e.raw) <= mem.config.max_entry_tokens
                    or e.get("detail") == "count")
            assert e.get("compacted") == str(len(mem.entries(name, archive=True)))


# -- behaviour --------------------------------------------------------------------------------


def test_not_due_changes_nothing(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100_000)
    fill(mem, 12)
    before = snapshot(tmp_path)
    report = mem.compact()
    assert not report.due and not report.changed and report.shards == ()
    assert snapshot(tmp_path) == before
    assert report.describe().endswith("\n") and "not due" in report.describe()


def test_over_budget_compacts_under_target(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2500, keep=3)
    texts = fill(mem, 45)
    assert mem.status().compaction_due
    kept = protected(mem, 3)
    report = mem.compact()
    assert report.due and report.changed and report.reached_target
    st_ = mem.status()
    assert st_.total_tokens <= st_.compact_threshold == report.target
    assert report.tokens_after == st_.total_tokens
    check_invariants(mem, texts, kept)
    index = (tmp_path / ".agents" / "memory" / "INDEX.md").read_text(encoding="utf-8")
    assert "Over the compaction threshold" not in index
    # the archive is never loaded by default, but is searchable on request
    folded = report.shards[0].folded[0]
    assert folded not in {e.id for e in mem.entries()}
    assert folded in {e.id for e in mem.entries(archive=True)}


def test_compacted_entry_lists_titles_gists_ids_and_dates(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=6000, keep=2)
    fill(mem, 30, shards=("failures",), long=6)
    report = mem.compact()
    (row,) = report.shards
    assert row.detail == "gists"
    (summary,) = [e for e in mem.entries("failures") if e.get("compacted")]
    assert summary.id == row.compacted_id
    assert summary.get("compacted") == str(len(row.folded))
    first = mem.entries("failures", archive=True)[0]
    assert f"`{first.id}`" in summary.text and first.title in summary.text
    assert gist(first, 200)[:40] in summary.text
    dates = sorted(e.date for e in mem.entries("failures", archive=True) if e.date)
    assert summary.date == dates[-1] and f"{dates[0]} to {dates[-1]}" in summary.title
    assert "archive/failures.md" in summary.text


def test_same_files_same_bytes_and_idempotent(tmp_path: Path) -> None:
    a = make(tmp_path / "a", budget=2000)
    fill(a, 40)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    ra = a.compact()
    rb = Memory(tmp_path / "b").compact()
    assert ra.to_json() == rb.to_json()
    assert snapshot(tmp_path / "a") == snapshot(tmp_path / "b")
    once = snapshot(tmp_path / "a")
    again = a.compact()
    assert not again.changed and snapshot(tmp_path / "a") == once


def test_no_wall_clock_in_output(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2000)
    fill(mem, 40)
    mem.compact()
    today = datetime.date.today().isoformat()
    for name, data in snapshot(tmp_path).items():
        assert today.encode() not in data, name


def test_dry_run_writes_nothing_and_matches_the_real_run(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2000)
    fill(mem, 40)
    before = snapshot(tmp_path)
    plan = mem.compact(dry_run=True)
    assert snapshot(tmp_path) == before
    assert plan.dry_run and plan.folded > 0 and "dry run" in plan.describe()
    done = mem.compact()
    assert {**plan.to_json(), "dry_run": False} == done.to_json()


def test_superseded_entries_go_first(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100_000, keep=2)
    fill(mem, 10, shards=("corrections",))
    newest = mem.entries("corrections")[-3]  # newer than the other candidates but one
    mem.put_entry("corrections", "The right way, with words enough to count as text.",
                  date="2026-06-01", supersedes=newest.id)
    (tmp_path / ".agents" / "config.toml").write_text(
        "[memory]\ntoken_budget = 100\ncompact_at_percent = 100\nkeep_recent = 2\n")
    mem = Memory(tmp_path)
    total = mem.status().total_tokens
    # a budget that one fold fixes: the superseded entry must be the first folded
    cost = estimate_tokens(newest.raw)
    (tmp_path / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {total - cost // 3}\ncompact_at_percent = 100\n"
        "keep_recent = 2\n")
    report = Memory(tmp_path).compact(dry_run=True)
    newest_candidate = mem.entries("corrections")[-3 + 1]
    assert newest.id in report.shards[0].folded
    assert newest_candidate.id not in report.shards[0].folded
    assert report.shards[0].superseded >= 1


def test_compacted_entry_is_compacted_again_with_the_trail(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2000, keep=3)
    texts = fill(mem, 30)
    mem.compact()
    texts.update(fill(mem, 30, start=30))  # more, dated later
    earlier = {n: {e.id for e in mem.entries(n) if e.get("compacted")} for n in mem.shards}
    earlier = {n: ids for n, ids in earlier.items() if ids}
    assert earlier
    kept = protected(mem, 3)
    report = mem.compact()
    assert report.changed and report.reached_target
    check_invariants(mem, texts, kept)
    for row in report.shards:
        archive_ids = [e.id for e in mem.entries(row.shard, archive=True)]
        assert row.summarised == len(archive_ids) == len(set(archive_ids))
        assert set(row.replaced) == earlier.get(row.shard, set())  # they gave way
        (summary,) = [e for e in mem.entries(row.shard) if e.get("compacted")]
        assert summary.get("compacted") == str(len(archive_ids))


def test_terser_levels_reach_the_target(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=1200, keep=1)
    texts = fill(mem, 60, long=0)
    kept = protected(mem, 1)
    report = mem.compact()
    assert report.reached_target, report.describe()
    assert {r.detail for r in report.shards} - {"gists"}  # some shard had to go terser
    check_invariants(mem, texts, kept)


def test_a_compacted_entry_too_large_is_folded_more_tersely(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100_000, keep=1)
    texts = fill(mem, 40, shards=("insights",), long=4)
    kept = protected(mem, 1)
    (tmp_path / ".agents" / "config.toml").write_text(
        "[memory]\ntoken_budget = 6000\nkeep_recent = 1\nmax_entry_tokens = 400\n")
    mem = Memory(tmp_path)
    report = mem.compact()
    (row,) = report.shards
    assert row.detail in {"titles", "ids", "count"}, row  # gists of 39 entries: too large
    (summary,) = [e for e in mem.entries("insights") if e.get("compacted")]
    assert estimate_tokens(summary.raw) <= 400
    check_invariants(mem, texts, kept)


def test_unreachable_target_folds_all_and_says_so(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100, keep=4)
    texts = fill(mem, 24)
    kept = protected(mem, 4)
    report = mem.compact()
    assert not report.reached_target and "not reached" in report.describe()
    short = report.shortfall
    assert short is not None
    assert short.kept_tokens + short.preamble_tokens + short.other_tokens == report.tokens_after
    assert "keep_recent=4" in short.reason and "token_budget" in short.advice[0]
    live = [e for e in mem.entries() if e.get("compacted") is None]
    assert {e.id for e in live} == set(kept)
    check_invariants(mem, texts, kept)
    once = snapshot(tmp_path)
    assert not mem.compact().changed and snapshot(tmp_path) == once


def test_hand_written_entries_keep_their_ids_and_text(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100_000, keep=1)
    path = mem.shard_path("quirks")
    body = "".join(f"## Note\n\n\n{sentence(i, 60)}\r\n\n" for i in range(6))
    path.write_text(path.read_text(encoding="utf-8") + body, encoding="utf-8", newline="")
    before = {e.id: e.text for e in mem.entries("quirks")}
    (tmp_path / ".agents" / "config.toml").write_text("[memory]\ntoken_budget = 400\n"
                                                      "keep_recent = 2\n")
    mem = Memory(tmp_path)
    report = mem.compact()
    assert report.changed
    live = {e.id: e.text for e in mem.entries("quirks") if e.get("compacted") is None}
    archived = {e.id: e.text for e in mem.entries("quirks", archive=True)}
    assert set(live) | set(archived) == set(before)
    assert not set(live) & set(archived)
    for id_, text in before.items():
        assert (live.get(id_) or archived[id_]) == text


def test_hand_written_entry_with_an_archived_id_gets_a_fresh_one(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=100_000, keep=0)
    path = mem.shard_path("quirks")
    preamble = path.read_text(encoding="utf-8")
    path.write_text(preamble + f"## Note\n\n{sentence(1, 80)}\n", encoding="utf-8")
    set_config(tmp_path, 100, 0).compact()
    (first,) = Memory(tmp_path).entries("quirks", archive=True)
    path.write_text(path.read_text(encoding="utf-8") + f"## Note\n\n{sentence(2, 80)}\n",
                    encoding="utf-8")
    # a derived id includes the text: the new namesake does not take the archived id
    assert [e.id for e in mem.entries("quirks") if not e.get("compacted")] != [first.id]
    set_config(tmp_path, 100, 0).compact()
    archived = Memory(tmp_path).entries("quirks", archive=True)
    assert [e.text for e in archived] == [sentence(1, 80), sentence(2, 80)]
    assert archived[0].id == first.id and archived[1].id != first.id
    (summary,) = Memory(tmp_path).entries("quirks")
    assert summary.get("compacted") == "2"


@pytest.mark.parametrize("body", [
    "plain", "crlf\r\nline\r\n", "## not a heading\n```\nfenced\n", "unicode é 漢字 🙂\n\n",
    "ends with blank lines\n\n\n", "~~~\nunclosed tilde fence",
])
def test_archive_keeps_bodies_byte_for_byte(tmp_path: Path, body: str) -> None:
    mem = make(tmp_path, budget=100_000, keep=0)
    e = mem.put_entry("seed", body + " " + sentence(3, 200), date="2025-02-02", new=True)
    piece = archive_piece(e)
    assert fmt.parse(piece, "seed").entries[0].text == e.text
    (tmp_path / ".agents" / "config.toml").write_text("[memory]\ntoken_budget = 100\n"
                                                      "keep_recent = 0\n")
    Memory(tmp_path).compact()
    (back,) = Memory(tmp_path).entries("seed", archive=True)
    assert back.id == e.id and back.text == e.text and back.raw == e.raw


def test_auto_compact_after_a_put(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=3000, auto=True)
    fill(mem, 40)
    st_ = mem.status()
    assert st_.total_tokens <= st_.compact_threshold
    assert mem.entries(archive=True)


def test_cli_compact_dry_run_json_and_text(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2000)
    fill(mem, 40)
    before = snapshot(tmp_path)
    r = run_cli("compact", "--dry-run", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["dry_run"] and data["due"] and data["folded"] > 0
    assert set(data) == {"dry_run", "due", "changed", "reached_target", "tokens_before",
                         "tokens_after", "target", "token_budget", "keep_recent", "folded",
                         "shortfall", "shards"}
    assert data["shards"][0]["detail"] in LEVELS
    assert snapshot(tmp_path) == before
    r = run_cli("compact", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.decode().endswith("\n")
    r = run_cli("get", "failures", "--archive", cwd=tmp_path)
    assert r.returncode == 0 and b"Entry 0:" in r.stdout


def test_report_shape_when_not_due() -> None:
    report = CompactionReport(False, False, False, 10, 10, 100, 125, 5)
    assert report.to_json()["shards"] == [] and report.reached_target
    assert report.shortfall is None and report.to_json()["shortfall"] is None


# -- properties -------------------------------------------------------------------------------

entry_st = st.tuples(
    st.sampled_from(("failures", "insights", "quirks")),
    st.integers(min_value=0, max_value=365),  # day offset
    st.integers(min_value=3, max_value=80),  # words
    st.integers(min_value=0, max_value=10_000),  # seed of the words
    st.sampled_from(("put", "put", "hand", "supersede")),
)


def add_random(root: Path, entries: list[tuple[str, int, int, int, str]], year: int) -> None:
    """Add entries with puts (some superseding the shard's previous put) and hand edits.

    Hand-written titles repeat across rounds on purpose: an archived hand-written entry
    carries the derived id a new one with the same title would get, and the store must
    give the new one an id of its own.
    """
    mem = Memory(root)
    last: dict[str, str] = {}
    for shard, day, n, seed, how in entries:
        text = " ".join(WORDS[(seed * 13 + k * (seed % 7 + 1)) % len(WORDS)]
                        for k in range(n)) + f" #{seed}"
        if how == "hand":  # no metadata: undated, derived id
            path = mem.shard_path(shard)
            old = fmt.ensure_separated(path.read_text(encoding="utf-8"))
            path.write_text(old + f"## Note {seed % 3}\n\n{text}\n", encoding="utf-8")
            continue
        date = (datetime.date(year, 1, 1) + datetime.timedelta(days=day)).isoformat()
        sup = last.get(shard) if how == "supersede" else None
        last[shard] = mem.put_entry(shard, text, date=date, new=True, supersedes=sup).id


def set_config(root: Path, budget: int, keep: int) -> Memory:
    (root / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {budget}\nkeep_recent = {keep}\n")
    return Memory(root)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(entries=st.lists(entry_st, min_size=1, max_size=30),
       more=st.lists(entry_st, max_size=12),
       budget=st.integers(min_value=100, max_value=3000),
       keep=st.integers(min_value=0, max_value=4))
def test_properties_over_random_memories(entries: list[tuple[str, int, int, int, str]],
                                         more: list[tuple[str, int, int, int, str]],
                                         budget: int, keep: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, twin = Path(tmp) / "a", Path(tmp) / "b"
        make(root, budget=10_000_000, keep=keep)
        add_random(root, entries, 2024)
        texts: dict[str, str] = {}
        for batch in range(2):  # compact, add more, compact again (the archive trail)
            mem = set_config(root, budget, keep)
            texts.update({(e.id if e.has_meta else f"hand:{e.title}\0{e.text}"): e.text
                          for e in mem.entries() if e.get("compacted") is None})
            kept = protected(mem, keep)
            if twin.exists():
                shutil.rmtree(twin)
            shutil.copytree(root, twin)
            report = mem.compact()
            check_invariants(mem, texts, kept)
            # under the target whenever the untouchable entries alone fit (room to spare)
            floor = sum(estimate_tokens(mem.read_shard(n).preamble) for n in mem.shards) + sum(
                estimate_tokens(raw) for raw in kept.values())
            if floor <= report.target * 0.9 - 10:
                assert report.reached_target, report.describe()
            if report.reached_target:
                st_ = mem.status()
                assert st_.total_tokens <= st_.compact_threshold
            # same files, same bytes; and idempotent
            other = Memory(twin).compact()
            assert other.to_json() == report.to_json()
            assert snapshot(root) == snapshot(twin)
            once = snapshot(root)
            assert not mem.compact().changed
            assert snapshot(root) == once
            assert report.tokens_after <= report.tokens_before
            if batch == 0:
                set_config(root, 10_000_000, keep)
                add_random(root, more, 2025)


# -- all or nothing, safe to repeat (ADR 0015) --------------------------------------------------


def test_a_note_typed_into_a_compacted_entry_is_archived_byte_for_byte(tmp_path: Path) -> None:
    mem = make(tmp_path, budget=2000, keep=3)
    fill(mem, 30)
    mem.compact()
    path = mem.shard_path("failures")
    text = path.read_text(encoding="utf-8")
    (summary,) = [e for e in mem.entries("failures") if e.get("compacted")]
    note = "Team note: the CI cache key changed in March; see the runbook."
    edited = summary.raw.rstrip("\n") + "\n\n" + note + "\n\n"
    path.write_text(text.replace(summary.raw, edited), encoding="utf-8")
    fill(mem, 30, start=30)
    report = mem.compact()
    assert "failures" in {r.shard for r in report.shards}
    live = [e for e in mem.entries("failures") if e.get("compacted")]
    assert len(live) == 1 and live[0].id != summary.id
    archive = mem.shard_path("failures", archive=True).read_text(encoding="utf-8")
    assert edited in archive  # its bytes, note included
    assert [e.id for e in mem.entries("failures", archive=True)].count(summary.id) == 1
    # what compaction wrote itself is not archived: the next round leaves it be
    fill(mem, 30, start=60)
    mem.compact()
    archived = [e for e in mem.entries("failures", archive=True) if e.get("compacted")]
    assert [e.id for e in archived] == [summary.id]


def _over_budget(root: Path) -> Memory:
    mem = make(root, budget=2000, keep=3)
    fill(mem, 24)
    mem.compact()  # a compacted entry per shard already, so the next run replaces them
    fill(mem, 24, start=24)
    assert mem.status().compaction_due
    return mem


@pytest.mark.parametrize("mode", ["kill", "full"])
def test_compaction_interrupted_at_any_write_converges_on_the_next_run(
        tmp_path: Path, mode: str) -> None:
    from .crashpoints import COMPLETED, copy, memory_files, run

    base = _over_budget(tmp_path / "base").root
    clean = copy(base, tmp_path / "clean")
    assert run(clean, 10_000, mode, "compact") == COMPLETED
    want = memory_files(clean)
    assert want != memory_files(base)
    limit = 0
    while True:
        limit += 1
        trial = copy(base, tmp_path / f"{mode}{limit}")
        code = run(trial, limit, mode, "compact")
        if code == COMPLETED:
            break
        assert code == (137 if mode == "kill" else 2)
        again = run_cli("compact", cwd=trial)
        assert again.returncode == 0, again.stderr
        assert memory_files(trial) == want, f"crash point {limit}"
        ids = [e.id for e in Memory(trial).entries(archive=True)]
        assert len(ids) == len(set(ids))
        shutil.rmtree(trial)
    assert limit > 6  # journal, archives, shards and the index were all crash points


def test_an_archived_copy_of_a_live_entry_is_not_archived_twice(tmp_path: Path) -> None:
    """A crash between the archive and the shard write, with no journal to finish it (the
    cache deleted): the next compaction still writes what a clean run writes."""
    from .crashpoints import COMPLETED, copy, memory_files, run

    base = _over_budget(tmp_path / "base").root
    clean = copy(base, tmp_path / "clean")
    assert run(clean, 10_000, "kill", "compact") == COMPLETED
    want = memory_files(clean)
    for limit in range(3, 12):
        trial = copy(base, tmp_path / f"t{limit}")
        if run(trial, limit, "kill", "compact") == COMPLETED:
            break
        shutil.rmtree(trial / ".agents" / "memory" / ".cache")
        assert run_cli("compact", cwd=trial).returncode == 0
        assert memory_files(trial) == want, f"crash point {limit}"


def test_unreachable_target_says_why_and_the_advice_works(tmp_path: Path) -> None:
    """The CLI text, --json and the API carry the reason; each remedy named is real."""
    mem = make(tmp_path, budget=100, keep=4)
    fill(mem, 24)
    r = run_cli("compact", "--dry-run", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    short = json.loads(r.stdout)["shortfall"]
    assert set(short) == {"reason", "advice", "kept_tokens", "preamble_tokens",
                          "other_tokens", "needed_budget", "largest"}
    assert short["kept_tokens"] > 0 and short["needed_budget"] > 100
    text = run_cli("compact", "--dry-run", cwd=tmp_path).stdout.decode()
    assert "Target not reached: what compaction may not fold" in text
    assert f"To fix: raise token_budget to at least {short['needed_budget']:,}" in text
    assert "lower keep_recent (now 4)" in text and "lean-memory forget ID" in text
    # forget the largest kept entry: what stays shrinks by its size
    big = short["largest"][0]
    r = run_cli("forget", big["id"], "--reason", "obsolete", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    after = Memory(tmp_path).compact(dry_run=True).shortfall
    assert after is not None and after.kept_tokens < short["kept_tokens"]
    # the budget it names is enough
    (tmp_path / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {after.needed_budget}\nkeep_recent = 4\n")
    report = Memory(tmp_path).compact()
    assert report.reached_target and report.shortfall is None, report.describe()
