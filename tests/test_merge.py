"""The shard merge driver: unit cases, properties, and real git merges and rebases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import format as fmt
from lean_memory.merge import Unmergeable, merge_driver, merge_shards, setup_merge_driver

from .conftest import git

PRE = "# Failures\n\nWhat broke, why, and the fix that worked.\n\n"
MARKERS = ("<<<<<<<", ">>>>>>>", "=======\n")


def entry(i: int | str, text: str | None = None, date: str = "2026-01-01",
          title: str | None = None) -> str:
    e = fmt.Entry(id=f"e{i}", shard="failures", title=title or f"Entry {i}",
                  text=text or f"Body of entry {i}.", date=date)
    return fmt.render_entry(e)


def ids(text: str) -> list[str]:
    return [e.id for e in fmt.parse(text, "failures").entries]


# -- merge_shards ---------------------------------------------------------------------


def test_both_sides_add_keeps_everything_in_order() -> None:
    base = PRE + entry(1) + entry(2)
    ours = base + entry(3) + entry(4)
    theirs = base + entry(5)
    merged = merge_shards(base, ours, theirs, "failures")
    assert ids(merged) == ["e1", "e2", "e3", "e4", "e5"]
    assert merged.startswith(PRE)
    assert merged == merge_shards(base, ours, theirs, "failures")  # deterministic


def test_untouched_entries_keep_their_bytes() -> None:
    hand = "## Hand written\nno metadata here\r\n\r\n"
    base = PRE + entry(1) + hand
    ours = base + entry(2)
    theirs = base + entry(3)
    merged = merge_shards(base, ours, theirs, "failures")
    assert merged.startswith(PRE + entry(1) + hand)


def test_one_side_edits_the_other_adds() -> None:
    base = PRE + entry(1) + entry(2)
    ours = PRE + entry(1, "Edited on our side.") + entry(2)
    theirs = base + entry(3)
    merged = fmt.parse(merge_shards(base, ours, theirs, "failures"), "failures")
    assert [e.text for e in merged.entries] == ["Edited on our side.", "Body of entry 2.",
                                                "Body of entry 3."]


def test_same_entry_edited_on_both_sides_keeps_newer_and_records_other() -> None:
    from lean_memory.dedup import main_text, said_again_part

    base = PRE + entry(1)
    ours = PRE + entry(1, "Our wording of the fix: pin the toolchain.", date="2026-03-01")
    theirs = PRE + entry(1, "Their wording of the fix: pin it in CI.", date="2026-04-01")
    merged = fmt.parse(merge_shards(base, ours, theirs, "failures"), "failures").entries
    assert len(merged) == 1
    assert main_text(merged[0].text) == "Their wording of the fix: pin it in CI."
    assert "Our wording of the fix" in said_again_part(merged[0].text)
    # and from the other side, the same result
    swapped = fmt.parse(merge_shards(base, theirs, ours, "failures"), "failures").entries
    assert main_text(swapped[0].text) == main_text(merged[0].text)


def test_deletion_stands_unless_the_other_side_changed_it() -> None:
    base = PRE + entry(1) + entry(2)
    ours = PRE + entry(2)  # deleted e1 (e.g. compacted away)
    assert ids(merge_shards(base, ours, base, "failures")) == ["e2"]
    theirs = PRE + entry(1, "Said again, with more detail.") + entry(2)
    assert ids(merge_shards(base, ours, theirs, "failures")) == ["e2", "e1"]


def test_hand_written_twins_added_on_both_sides_are_both_kept() -> None:
    base = PRE
    ours = PRE + "## Flaky test\nours says the network\n"
    theirs = PRE + "## Flaky test\ntheirs says the clock\n"
    merged = fmt.parse(merge_shards(base, ours, theirs, "failures"), "failures").entries
    assert [e.text for e in merged] == ["ours says the network", "theirs says the clock"]


def test_entry_without_final_newline_stays_an_entry() -> None:
    base = PRE + entry(1)
    ours = base + "## Last\nno newline at the end"
    theirs = base + entry(2)
    merged = merge_shards(base, ours, theirs, "failures")
    assert [e.title for e in fmt.parse(merged).entries] == ["Entry 1", "Last", "Entry 2"]


def test_preamble_changed_on_both_sides_is_a_conflict() -> None:
    base = PRE + entry(1)
    with pytest.raises(Unmergeable):
        merge_shards(base, "# Ours\n\n" + entry(1), "# Theirs\n\n" + entry(1), "failures")
    # changed on one side only: that side wins
    assert merge_shards(base, "# Ours\n\n" + entry(1), base).startswith("# Ours\n\n")


def test_unclosed_fence_that_would_swallow_entries_is_a_conflict() -> None:
    base = PRE
    ours = PRE + "## Open fence\n```\nnever closed\n"
    theirs = PRE + entry(2)
    with pytest.raises(Unmergeable):
        merge_shards(base, ours, theirs, "failures")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_property_union_loses_nothing(data: st.DataObject) -> None:
    pool = list(range(12))
    base_ids = data.draw(st.lists(st.sampled_from(pool), unique=True, max_size=5))
    rest = [i for i in pool if i not in base_ids]
    ours_new = data.draw(st.lists(st.sampled_from(rest), unique=True, max_size=4))
    theirs_new = data.draw(st.lists(st.sampled_from([i for i in rest if i not in ours_new]),
                                    unique=True, max_size=4))
    crlf = data.draw(st.booleans())
    body = data.draw(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1,
                             max_size=40).filter(lambda t: t.strip()))

    def render(i: int) -> str:
        text = entry(i, f"{body} {i}")
        return text.replace("\n", "\r\n") if crlf and i % 2 else text

    base = PRE + "".join(render(i) for i in base_ids)
    ours = base + "".join(render(i) for i in ours_new)
    theirs = base + "".join(render(i) for i in theirs_new)
    merged = merge_shards(base, ours, theirs, "failures")
    want = [f"e{i}" for i in [*base_ids, *ours_new, *theirs_new]]
    assert ids(merged) == want
    assert fmt.parse(merged).render() == merged


# -- the driver on files ----------------------------------------------------------------


def write3(tmp: Path, base: str | bytes, ours: str | bytes,
           theirs: str | bytes) -> tuple[str, str, str]:
    paths = []
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        p = tmp / name
        p.write_bytes(data.encode() if isinstance(data, str) else data)
        paths.append(str(p))
    return paths[0], paths[1], paths[2]


def test_driver_writes_the_merge_into_ours(tmp_path: Path) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, base + entry(2), base + entry(3))
    assert merge_driver(*o, ".agents/memory/failures.md") == 0
    assert ids(Path(o[1]).read_text()) == ["e1", "e2", "e3"]


def test_driver_not_utf8_leaves_an_ordinary_conflict(tmp_path: Path) -> None:
    base = PRE + entry(1)
    o = write3(tmp_path, base, (base + entry(2)).encode() + b"\xff\n", base + entry(3))
    assert merge_driver(*o, ".agents/memory/failures.md") == 1
    assert b"<<<<<<<" in Path(o[1]).read_bytes()


def test_driver_keeps_index_clean(tmp_path: Path) -> None:
    o = write3(tmp_path, "# Memory index\nA\n", "# Memory index\nB\n", "# Memory index\nC\n")
    assert merge_driver(*o, ".agents/memory/INDEX.md") == 0
    assert Path(o[1]).read_text() == "# Memory index\nB\n"


# -- real git -------------------------------------------------------------------------

pytestmark_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")



@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "config", "commit.gpgsign", "false")
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("failures", "The build broke when the cache was stale; clear it.",
                  date="2026-01-01")
    lines = setup_merge_driver(tmp_path)
    assert any("registered" in ln for ln in lines), lines
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "memory")
    return tmp_path


def add(repo: Path, shard: str, texts: list[str], date: str) -> None:
    mem = lean_memory.Memory(repo)
    for t in texts:
        mem.put_entry(shard, t, date=date)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add to {shard}")


A = ["Alpha: the staging deploy needs VPN access first.",
     "Alpha: pytest must run with -p no:cacheprovider in CI.",
     "Alpha: the docs build uses mkdocs 1.5 exactly."]
B = ["Beta: the database migrations run in a single transaction.",
     "Beta: Windows runners need core.autocrlf false.",
     "Beta: the Redis container listens on port 6380 locally."]


def all_texts(repo: Path) -> list[str]:
    return [e.text for e in lean_memory.Memory(repo).entries()]


def no_markers(repo: Path) -> None:
    for p in (repo / ".agents" / "memory").rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        assert not any(m in text for m in MARKERS), p


@pytestmark_git
def test_real_merge_of_diverging_branches(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "a")
    add(repo, "failures", A, "2026-02-01")
    add(repo, "insights", A[:1], "2026-02-02")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    add(repo, "failures", B, "2026-02-03")
    add(repo, "insights", B[:1], "2026-02-04")
    r = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    assert git(repo, "status", "--porcelain").stdout == ""
    no_markers(repo)
    texts = all_texts(repo)
    for t in [*A, *B, *A[:1], *B[:1]]:
        assert t in texts
    assert len(texts) == 1 + len(A) + len(B) + 2
    # INDEX.md in the merge commit is the regenerated one (post-merge hook)
    committed = git(repo, "show", "HEAD:.agents/memory/INDEX.md").stdout
    assert committed == lean_memory.Memory(repo).index()


@pytestmark_git
def test_real_rebase_of_diverging_branches(repo: Path) -> None:
    git(repo, "checkout", "-q", "-b", "a")
    add(repo, "failures", A[:2], "2026-02-01")
    add(repo, "failures", A[2:], "2026-02-02")
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "b")
    add(repo, "failures", B[:1], "2026-02-03")
    add(repo, "failures", B[1:], "2026-02-04")
    r = git(repo, "rebase", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    no_markers(repo)
    texts = all_texts(repo)
    assert all(t in texts for t in [*A, *B]) and len(texts) == 1 + len(A) + len(B)
    # ours (a) first, then the rebased commits' entries
    assert texts[-len(B):] == B
    # post-rewrite regenerated INDEX.md into the rebased HEAD
    assert git(repo, "status", "--porcelain").stdout == ""
    committed = git(repo, "show", "HEAD:.agents/memory/INDEX.md").stdout
    assert committed == lean_memory.Memory(repo).index()


@pytestmark_git
def test_real_merge_same_entry_edited_on_both_branches(repo: Path) -> None:
    shard = repo / ".agents" / "memory" / "failures.md"
    original = shard.read_text(encoding="utf-8")
    git(repo, "checkout", "-q", "-b", "a")
    shard.write_text(original.replace("clear it.", "clear it with make clean."),
                     encoding="utf-8")
    git(repo, "commit", "-q", "-am", "edit a")
    git(repo, "checkout", "-q", "main")
    shard.write_text(original.replace("clear it.", "delete .cache by hand."), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "edit main")
    r = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    no_markers(repo)
    text = shard.read_text(encoding="utf-8")
    assert "make clean" in text and "delete .cache by hand" in text
    assert len(lean_memory.Memory(repo).entries("failures")) == 1


@pytestmark_git
def test_real_merge_unmergeable_leaves_an_ordinary_conflict(repo: Path) -> None:
    shard = repo / ".agents" / "memory" / "failures.md"
    original = shard.read_text(encoding="utf-8")
    git(repo, "checkout", "-q", "-b", "a")
    shard.write_text(original.replace("# Failures", "# Failures (branch a)"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a")
    git(repo, "checkout", "-q", "main")
    shard.write_text(original.replace("# Failures", "# Failures (main)"), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "main")
    r = git(repo, "merge", "-q", "--no-edit", "a", check=False)
    assert r.returncode != 0
    assert "<<<<<<<" in shard.read_text(encoding="utf-8")
    assert "UU .agents/memory/failures.md" in git(repo, "status", "--porcelain").stdout


def test_setup_is_idempotent_and_keeps_other_attributes(repo: Path) -> None:
    attrs = repo / ".gitattributes"
    attrs.write_text("*.png binary\n" + attrs.read_text(encoding="utf-8"), encoding="utf-8")
    before = attrs.read_text(encoding="utf-8")
    lines = setup_merge_driver(repo)
    assert attrs.read_text(encoding="utf-8") == before
    assert any("already" in ln for ln in lines)
    assert before.count("merge=lean-memory") == 3 and before.startswith("*.png binary\n")
    r = git(repo, "check-attr", "merge", "--", ".agents/memory/failures.md",
            ".agents/memory/archive/failures.md", ".agents/memory/INDEX.md")
    assert r.stdout.count("merge: lean-memory") == 3


def test_setup_outside_git(tmp_path: Path) -> None:
    assert "not a git repository" in setup_merge_driver(tmp_path)[0]
