"""The store API: init, put_entry, entries, get_memory, status, INDEX.md, bad input."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import (
    ConfigError,
    InvalidEntry,
    LeanMemoryError,
    Memory,
    ShardError,
    UnknownShard,
)

from .conftest import snapshot


def test_init_is_idempotent(tmp_path: Path) -> None:
    m = Memory(tmp_path)
    created = m.init()
    names = {p.name for p in created}
    assert {"INDEX.md", ".gitignore", "seed.md", "quirks.md", "archive"} <= names
    before = snapshot(tmp_path)
    assert m.init() == []
    assert snapshot(tmp_path) == before
    assert (m.dir / ".gitignore").read_text() == ".cache/\n.*.tmp\n"
    for shard in m.shards:
        assert m.read_shard(shard).description  # one line saying what belongs there


def test_put_returns_what_entries_give_back(mem: Memory) -> None:
    e = mem.put_entry("failures", "pytest hangs on Windows\n\nUse -p no:faulthandler.",
                      tags=["ci", "windows", "ci"], date="2026-03-04")
    assert e.title == "pytest hangs on Windows"
    assert e.tags == ("ci", "windows")
    assert mem.entries("failures") == [e]
    assert mem.entries() == [e]
    assert e.id in mem.get_memory("failures")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Any text put accepts: no control characters but tab, LF and CR.
@given(st.text(st.characters(exclude_categories=("Cc", "Cs")) | st.sampled_from("\t\n\r"),
               min_size=1).filter(lambda s: s.strip() != "" and len(s) < 2000))
@example("## heading inside\n```\nunclosed fence")
@example("line\r\nwith crlf\r\n\r\n")
@example("trailing blank lines\n\n\n")
@example("\\## escaped already\n~~~\n")
@example("unicode: ünïcødé 日本語 🚀\n")
def test_any_body_round_trips_through_put_entry(body: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        m = Memory(tmp)
        m.init()
        m.put_entry("insights", "first entry", date="2026-01-01")
        e = m.put_entry("insights", body, title="The body", date="2026-01-02")
        m.put_entry("insights", "an entry after it", date="2026-01-03")
        got = [x for x in m.entries("insights") if x.id == e.id]
        assert len(got) == 1 and got[0].text == body
        assert len(m.entries("insights")) == 3


def test_exact_repeat_is_said_again_not_copied(mem: Memory) -> None:
    a = mem.put_entry("quirks", "Docker on macOS needs   --platform linux/amd64",
                      date="2026-01-01")
    b = mem.put_entry("quirks", "docker on macos needs --platform LINUX/AMD64",
                      date="2026-02-01")
    assert b.id == a.id
    assert b.get("said_again") == "1" and b.get("last_said") == "2026-02-01"
    assert len(mem.entries("quirks")) == 1
    c = mem.put_entry("quirks", "docker on macos needs --platform LINUX/AMD64",
                      date="2026-02-01", new=True)
    assert c.id != a.id and len(mem.entries("quirks")) == 2


def test_ids_are_unique_across_the_memory(mem: Memory) -> None:
    ids = {mem.put_entry(s, "the same words", date="2026-01-01").id for s in mem.shards}
    assert len(ids) == len(mem.shards)


def test_supersedes_must_exist_and_hides_the_old_entry(mem: Memory) -> None:
    with pytest.raises(InvalidEntry, match="no entry has that id"):
        mem.put_entry("corrections", "x", supersedes="nope")
    old = mem.put_entry("conventions", "Use tabs for indentation", date="2026-01-01")
    new = mem.put_entry("corrections", "Use four spaces, not tabs", supersedes=old.id,
                        date="2026-02-01")
    assert new.supersedes == old.id
    assert old.id in mem.superseded_ids()
    assert [h.entry.id for h in mem.search("indentation tabs spaces")] == [new.id]
    status = {s.name: s for s in mem.status().shards}
    assert status["conventions"].superseded == 1 and status["conventions"].entries == 0
    assert old.id in mem.get_memory("conventions")  # never deleted


def test_newest_wins_when_two_entries_supersede_each_other(mem: Memory) -> None:
    a = mem.put_entry("insights", "cache is per user", date="2026-01-01")
    b = mem.put_entry("insights", "cache is per machine", supersedes=a.id, date="2026-02-01")
    text = mem.shard_path("insights").read_text()
    # a hand edit makes the old entry claim to supersede the new one
    mem.shard_path("insights").write_text(text.replace(f"id={a.id}; date=2026-01-01",
                                                       f"id={a.id}; date=2026-01-01; "
                                                       f"supersedes={b.id}"))
    assert mem.superseded_ids() == {a.id}


@pytest.mark.parametrize(("shard", "kwargs", "error", "message"), [
    ("../x", {}, UnknownShard, "invalid shard name"),
    ("nope", {}, UnknownShard, "unknown shard"),
    ("INDEX", {}, UnknownShard, "invalid shard name"),
    ("seed", {"text": "   \n\t"}, InvalidEntry, "empty"),
    ("seed", {"date": "yesterday"}, InvalidEntry, "YYYY-MM-DD"),
    ("seed", {"date": "2026-13-45"}, InvalidEntry, "no such day"),
    ("seed", {"title": "two\nlines"}, InvalidEntry, "one non-empty line"),
    ("seed", {"tags": ["ok", ""]}, InvalidEntry, "invalid tag"),
    ("seed", {"text": "x" * 10_000_000}, InvalidEntry, "far over the limit"),
    ("seed", {"text": "word " * 20_000}, InvalidEntry, "max_entry_tokens"),
])
def test_bad_input_is_refused_and_changes_nothing(mem: Memory, shard: str, kwargs: dict[str, str],
                                                  error: type[Exception], message: str) -> None:
    before = snapshot(mem.root)
    args = {"text": "some fact", **kwargs}
    text = args.pop("text")
    with pytest.raises(error, match=message) as info:
        mem.put_entry(shard, text, **args)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    assert snapshot(mem.root) == before


def test_non_utf8_shard_is_an_error_and_is_not_rewritten(mem: Memory) -> None:
    path = mem.shard_path("quirks")
    path.write_bytes(b"# Quirks\n\n## caf\xe9\n")
    before = snapshot(mem.root)
    with pytest.raises(ShardError, match="not valid UTF-8"):
        mem.put_entry("quirks", "anything")
    with pytest.raises(ShardError):
        mem.entries()
    assert snapshot(mem.root) == before


@pytest.mark.parametrize(("toml", "message"), [
    ("[memory\n", "not valid TOML"),
    ("[memory]\ntoken_budget = 'big'\n", "token_budget must be an integer"),
    ("[memory]\ntoken_budget = -5\n", "token_budget must be between"),
    ("[memory]\nshards = ['../etc']\n", "not a valid shard name"),
    ("[memory]\nshards = []\n", "at least one shard"),
    ("[memory]\nauto_compact = 'yes'\n", "auto_compact must be true or false"),
    ("[memory]\ntokens_budget = 5\n", "unknown key 'tokens_budget'"),
    ("memory = 3\n", "[memory] must be a table"),
])
def test_broken_config_names_the_key(mem: Memory, toml: str, message: str) -> None:
    (mem.agents_dir / "config.toml").write_text(toml)
    before = snapshot(mem.root)
    with pytest.raises(ConfigError) as info:
        Memory(mem.root).put_entry("seed", "x")
    assert message in str(info.value)
    assert snapshot(mem.root) == before


def test_configured_shards(tmp_path: Path) -> None:
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents" / "config.toml").write_text(
        '[memory]\nshards = ["seed", "api-notes"]\ntoken_budget = 500\n')
    m = Memory(tmp_path)
    m.init()
    assert sorted(p.name for p in m.dir.glob("*.md")) == ["INDEX.md", "api-notes.md", "seed.md"]
    m.put_entry("api-notes", "The v2 API paginates with cursors")
    with pytest.raises(UnknownShard):
        m.put_entry("failures", "x")


def test_hand_edits_survive_and_get_an_id(mem: Memory) -> None:
    path = mem.shard_path("insights")
    hand = "## Written by hand\n\nA person typed this paragraph.\nAnd this line.\n"
    path.write_text(path.read_text() + hand)
    [entry] = mem.entries("insights")
    assert entry.title == "Written by hand"
    assert entry.text == "A person typed this paragraph.\nAnd this line."
    mem.put_entry("insights", "machine entry", date="2026-05-05")
    text = path.read_text()
    assert "## Written by hand\n<!-- lean-memory: id=" in text
    assert "\n\nA person typed this paragraph.\nAnd this line.\n" in text
    again = mem.entries("insights")
    assert again[0].id == entry.id and again[0].text == entry.text
    # other shards were not touched
    assert "lean-memory:" not in mem.shard_path("seed").read_text()


def test_preamble_is_kept_verbatim(mem: Memory) -> None:
    path = mem.shard_path("seed")
    preamble = "# Seed\n\nCustom words   with  spacing.\n<!-- a comment -->"
    path.write_text(preamble)
    mem.put_entry("seed", "fact")
    assert path.read_text().startswith(preamble)


def test_index_is_deterministic_small_and_regenerated(mem: Memory) -> None:
    for i in range(30):
        mem.put_entry(mem.shards[i % 6], f"fact number {i} about the build", date="2026-01-01")
    first = mem.index_path.read_bytes()
    mem.index()
    assert mem.index_path.read_bytes() == first
    text = mem.get_memory()
    assert text == first.decode()
    assert lean_memory.estimate_tokens(text) < 400
    for shard in mem.shards:
        assert f"**{shard}** (5 entries" in text
    assert "`lean-memory get <shard>`" in text and "--query" in text
    copy = Memory(mem.root)
    mem.index_path.unlink()
    assert copy.index() == text


def test_status_counts(mem: Memory) -> None:
    mem.put_entry("failures", "one", date="2026-01-01")
    mem.put_entry("failures", "two", date="2026-01-02")
    st = mem.status()
    row = {s.name: s for s in st.shards}["failures"]
    assert row.entries == 2 and row.tokens > 0
    assert st.total_tokens == sum(s.tokens for s in st.shards)
    assert st.token_budget == 8000 and not st.compaction_due


def test_open_finds_the_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Memory(tmp_path).init()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    monkeypatch.delenv("LEAN_MEMORY_ROOT", raising=False)
    monkeypatch.chdir(deep)
    assert lean_memory.open().root == tmp_path.resolve()
    monkeypatch.setenv("LEAN_MEMORY_ROOT", str(deep))
    assert lean_memory.open().root == deep


def test_uninitialised_memory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LeanMemoryError, match="run `lean-memory init`"):
        Memory(tmp_path).put_entry("seed", "x")


def test_ids_never_reuse_an_archived_id(mem: Memory) -> None:
    from lean_memory import format as fmt

    archived = fmt.derived_id("insights", "Note", "A new note typed by hand.", 0)
    mem.shard_path("insights", archive=True).write_text(
        f"## Note\n<!-- lean-memory: id={archived}; date=2026-01-01 -->\n\nold note\n\n")
    path = mem.shard_path("insights")
    path.write_text(path.read_text() + "## Note\nA new note typed by hand.\n")
    assert mem.entries("insights")[0].id == archived  # derived, not yet stamped
    mem.put_entry("insights", "something else", date="2026-02-02")
    stamped = mem.entries("insights")[0]
    assert stamped.title == "Note" and stamped.id != archived
    assert stamped.text == "A new note typed by hand."


def test_a_correction_in_the_archive_still_hides_what_it_corrected(mem: Memory) -> None:
    old = mem.put_entry("quirks", "The cache lives in /tmp", date="2026-01-01")
    mem.shard_path("corrections", archive=True).write_text(
        f"## Fix\n<!-- lean-memory: id=abcd0001; date=2026-02-01; supersedes={old.id} -->"
        "\n\nThe cache lives in ~/.cache\n\n")
    assert old.id in mem.superseded_ids()
    assert {s.name: s.superseded for s in mem.status().shards}["quirks"] == 1
    # the old fact is hidden from search too; the archived correction is found (ADR 0018)
    assert [(h.entry.id, h.archived) for h in mem.search("cache lives")] == [("abcd0001", True)]
    assert mem.search("cache lives", include_archive=False) == []
