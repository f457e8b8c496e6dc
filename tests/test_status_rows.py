"""The put state's rows record (``.cache/put-state.rows.marshal``): ``status`` reads it
instead of the whole put state while every shard file has the signature it records; a
missing, stale, damaged or foreign-sealed one falls back to the put state, then to the
shards, and the output stays what the shards say."""

from __future__ import annotations

import io
import itertools
import json
import marshal
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.cli import main
from lean_memory.fsutil import dump_record
from lean_memory.putstate import Summarized

ROWS = "put-state.rows.marshal"
_COUNTER = itertools.count()
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _cli(root: Path, *args: str) -> str:
    out = io.StringIO()
    assert main(["--root", str(root), "status", *args], out) == 0
    return out.getvalue()


def _answers(root: Path) -> tuple[str, str]:
    return _cli(root, "--json"), _cli(root)


def _slow(root: Path, tmp: Path) -> tuple[str, str]:
    """The oracle: the same memory copied without any cache, so status reads the shards."""
    copy = tmp / f"nocache{next(_COUNTER)}"
    shutil.copytree(root, copy, symlinks=True,
                    ignore=lambda folder, names: [".cache"] if ".cache" in names else [])
    return _answers(copy)


def _memory(tmp_path: Path) -> lean_memory.Memory:
    mem = lean_memory.Memory(tmp_path / f"m{next(_COUNTER)}")
    mem.init()
    mem.put_entry("conventions", "Always run ruff before a commit.")
    mem.put_entry("failures", "The deploy step failed on a stale cache.")
    assert (mem.cache_dir / ROWS).exists()  # each test starts from a rows record to judge
    return mem


def _no_put_state(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Summarized) -> None:
        raise AssertionError("the put state was read")

    monkeypatch.setattr(Summarized, "_load_state", refuse)  # readers' and the facade's


def test_status_reads_the_rows_record_alone(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Bug: `status` decoded the whole put state (~2 MB at 100k entries) for six rows."""
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    assert (mem.cache_dir / ROWS).exists()  # written with the put state by the puts
    assert _cli(mem.root, "--json") == want[0]
    _no_put_state(monkeypatch)
    assert _cli(mem.root, "--json") == want[0]


def test_a_put_state_without_its_rows_record_writes_it(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A put state written before the rows record existed: status answers from it and
    records the rows, so the next status reads only them."""
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    (mem.cache_dir / ROWS).unlink()
    assert _answers(mem.root) == want
    assert (mem.cache_dir / ROWS).exists()
    _no_put_state(monkeypatch)
    assert _answers(mem.root) == want  # the context line's rules come from their own cache


def test_the_rules_after_a_put_read_the_links_from_the_rows_record(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a put the rules' cache holds old signatures: the correction links it compares
    came from the whole put state, at every `status` until a prompt refreshed it."""
    mem = _memory(tmp_path)
    rule = mem.put_entry("conventions", "Never push on a Friday.")
    mem.put_entry("corrections", "Pushing on a Friday is fine now.", supersedes=rule.id)
    _answers(mem.root)  # the rules' cache
    mem.put_entry("failures", "The lint step failed on a long line.")
    want = _slow(mem.root, tmp_path)
    _no_put_state(monkeypatch)
    assert _answers(mem.root) == want


def test_a_stale_rows_record_is_not_used(tmp_path: Path) -> None:
    """A shard edited by hand (or by git) after the record: its rows are not the file's."""
    mem = _memory(tmp_path)
    path = mem.shard_path("failures")
    extra = fmt.render_entry(fmt.Entry(id="h0000001", shard="failures", title="By hand",
                                       text="An entry typed by hand.", date="2026-03-04"))
    path.write_text(fmt.ensure_separated(mem.read_text(path)) + extra, encoding="utf-8")
    got = _answers(mem.root)
    assert got == _slow(mem.root, tmp_path)
    assert {r["name"]: r["entries"] for r in json.loads(got[0])["shards"]}["failures"] == 2


@pytest.mark.parametrize("junk", [b"", b"\x00garbage", b"lmc1" + bytes(40), b"[]"])
def test_a_damaged_rows_record_is_ignored(tmp_path: Path, junk: bytes) -> None:
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    (mem.cache_dir / ROWS).write_bytes(junk)
    assert _answers(mem.root) == want


def test_a_rows_record_sealed_by_someone_else_is_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record committed or planted under another key (false rows, right signatures)."""
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    s = Summarized(mem.root)
    sigs = tuple(lean_memory.fsutil.file_signature(p) for _, p in s._state_keys())
    false_rows = tuple(("forged", 999, 0, 1) for _ in s.shards)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "someone-else"))
    assert dump_record(mem.cache_dir / ROWS, "lean_memory.put-state-rows/1",
                       (s.shards, sigs, false_rows, ()))
    monkeypatch.undo()
    assert _answers(mem.root) == want


GOOD = tuple(("d", 1, 0, 1) for _ in range(6))


@pytest.mark.parametrize(("rows", "links"), [
    ("not rows", ()),
    ((("d", 1, 0, 1),), ()),  # one row for six shards
    (tuple(("d", "1", 0, 1) for _ in range(6)), ()),  # a count that is not a number
    (tuple(("d", True, 0, 1) for _ in range(6)), ()),
    (tuple(("d", 1, 0) for _ in range(6)), ()),
    (GOOD, "not links"),
    (GOOD, (("a", "2026-01-01"),)),
    (GOOD, (("a", "2026-01-01", 7),)),
])
def test_a_rows_record_of_another_shape_is_ignored(tmp_path: Path, rows: object,
                                                    links: object) -> None:
    """Our own seal on a record of another shape (another version's bug): never an
    internal error, never its rows."""
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    s = Summarized(mem.root)
    sigs = tuple(lean_memory.fsutil.file_signature(p) for _, p in s._state_keys())
    assert dump_record(mem.cache_dir / ROWS, "lean_memory.put-state-rows/1",
                       (s.shards, sigs, rows, links))
    assert _answers(mem.root) == want


def test_a_rows_record_of_other_shards_is_ignored(tmp_path: Path) -> None:
    mem = _memory(tmp_path)
    want = _slow(mem.root, tmp_path)
    s = Summarized(mem.root)
    sigs = tuple(lean_memory.fsutil.file_signature(p) for _, p in s._state_keys())
    rows = marshal.loads(marshal.dumps(tuple(("x", 5, 0, 9) for _ in s.shards)))
    assert dump_record(mem.cache_dir / ROWS, "lean_memory.put-state-rows/1",
                       (tuple(reversed(s.shards)), sigs, rows, ()))
    assert _answers(mem.root) == want


# Random memories: puts (quick and general), corrections, hand edits, between statuses.
OPS = st.lists(st.tuples(st.sampled_from(["fact", "rule", "correct", "hand", "drop"]),
                         st.integers(0, 99)), min_size=1, max_size=8)


@SETTINGS
@given(OPS)
def test_status_equals_the_slow_path_on_random_memories(
        tmp_path: Path, ops: list[tuple[str, int]]) -> None:
    """Whatever wrote the caches last, `status` (text and --json) says what the shards say."""
    mem = _memory(tmp_path)
    for kind, n in ops:
        rules = fmt.parse(mem.read_text(mem.shard_path("conventions")), "conventions").entries
        if kind == "fact":
            mem.put_entry("failures", f"The build step {n} failed on linux {n * 7}.")
        elif kind == "rule":
            mem.put_entry("conventions", f"Rule {n}: always test before release {n * 3}.")
        elif kind == "correct" and rules:
            mem.put_entry("corrections", f"Correction {n}: that rule no longer holds.",
                          supersedes=rules[n % len(rules)].id)
        elif kind == "hand":
            path = mem.shard_path("insights")
            path.write_text(fmt.ensure_separated(mem.read_text(path) or "# insights\n\n")
                            + f"## Hand note {n}\n\nWritten by hand, {n}.\n\n",
                            encoding="utf-8")
        elif kind == "drop" and rules:
            path = mem.shard_path("conventions")
            path.write_text(mem.read_text(path).replace(rules[n % len(rules)].raw, "", 1),
                            encoding="utf-8")
        assert _answers(mem.root) == _slow(mem.root, tmp_path)


SLOW_PATHS = ["status", "superseded_ids", "correction_links", "index", "summaries", "render"]


@pytest.mark.parametrize("path", SLOW_PATHS)
@pytest.mark.parametrize("cached", [True, False])
def test_a_reader_answers_its_slow_paths_as_the_facade(tmp_path: Path, path: str,
                                                       cached: bool) -> None:
    """A reader (``globalstore.reader_at``) holds none of the summaries' code (ADR 0055):
    its first slow path gives it that code (``Summaries._code``) and answers as the facade
    does, with and without the caches."""
    from lean_memory import summaries
    from lean_memory.globalstore import reader_at

    mem = _memory(tmp_path)
    old = mem.entries("failures")[0]
    mem.put_entry("failures", "The deploy step failed on a full disk.", supersedes=old.id)
    if not cached:
        shutil.rmtree(mem.cache_dir)

    def ask(m: lean_memory.Memory | summaries.Summaries) -> object:
        if path == "status":
            return m.status()
        if path == "superseded_ids":
            return m.superseded_ids()
        if path == "correction_links":
            return m.correction_links()
        if path == "index":
            return m.write_index({}), (m.index_path).read_text(encoding="utf-8")
        if path == "summaries":
            live = m._summaries({})
            return live, m._status_of(live)
        return m.render_index(m.status()), summaries.render_index(m.status(), 9999)

    reader = reader_at(mem.root)
    assert type(reader) is summaries.Summaries
    got = ask(reader)  # type: ignore[arg-type]
    assert type(reader) is Summarized
    assert got == ask(lean_memory.Memory(mem.root))
    if path == "superseded_ids":
        assert got == {old.id}
