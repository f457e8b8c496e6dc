"""The command line as a user meets it: real processes, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import run_cli, snapshot


@pytest.fixture
def root(tmp_path: Path) -> Path:
    assert run_cli("init", cwd=tmp_path).returncode == 0
    return tmp_path


def test_init_put_get_status(tmp_path: Path) -> None:
    r = run_cli("init", cwd=tmp_path)
    assert r.returncode == 0 and b"created .agents/memory/INDEX.md" in r.stdout.replace(b"\\", b"/")
    r = run_cli("init", cwd=tmp_path)
    assert r.returncode == 0 and b"already initialised" in r.stdout
    r = run_cli("put", "failures", "mypy crashes on the generated stubs", "--tag", "types",
                "--date", "2026-02-03", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"added ")
    r = run_cli("get", "failures", cwd=tmp_path)
    assert b"## mypy crashes on the generated stubs" in r.stdout
    r = run_cli("get", cwd=tmp_path)
    assert r.stdout.startswith(b"# Memory index") and b"**failures** (1 entry" in r.stdout
    r = run_cli("status", "--json", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert {s["name"]: s["entries"] for s in data["shards"]}["failures"] == 1
    assert set(data) == {"shards", "total_tokens", "token_budget", "compact_threshold",
                         "compaction_due", "retrievers", "unknown_retrievers"}


def test_put_reads_stdin_bytes_exactly(root: Path) -> None:
    body = "line one\r\n## not a heading\r\n```\r\ncode 日本\r\n\r\n".encode()
    r = run_cli("put", "quirks", "-", "--title", "CRLF body", "--json", cwd=root, stdin=body)
    assert r.returncode == 0, r.stderr
    entry = json.loads(r.stdout)
    r = run_cli("get", "quirks", "--json", cwd=root)
    [got] = json.loads(r.stdout)
    assert got["id"] == entry["id"] and got["text"].encode() == body
    # also when TEXT is omitted and stdin is not a terminal
    r = run_cli("put", "quirks", "--title", "piped", cwd=root, stdin=b"piped text\n")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("args", [
    ("put", "../x", "text"),
    ("put", "nope", "text"),
    ("put", "seed", ""),
    ("put", "seed", "text", "--date", "yesterday"),
    ("put", "seed", "text", "--date", "2026-13-45"),
    ("put", "seed", "text", "--supersedes", "missing"),
    ("get", "../../etc/passwd"),
    ("get", "--query", "the of and"),
    ("get", "-k", "0", "--query", "x"),
    ("frobnicate",),
    ("put",),
])
def test_bad_input_exits_2_with_one_line(root: Path, args: tuple[str, ...]) -> None:
    before = snapshot(root)
    r = run_cli(*args, cwd=root, stdin=b"")
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lean-memory: error: "), lines
    assert b"Traceback" not in r.stderr
    assert snapshot(root) == before


def test_non_utf8_input_and_shard(root: Path) -> None:
    r = run_cli("put", "seed", "-", cwd=root, stdin=b"caf\xe9\n")
    assert r.returncode == 2 and b"not valid UTF-8" in r.stderr
    shard = root / ".agents" / "memory" / "seed.md"
    shard.write_bytes(b"## bad \xff\n")
    before = snapshot(root)
    for args in (("put", "seed", "x"), ("get", "--query", "bad"), ("status",), ("index",)):
        r = run_cli(*args, cwd=root)
        assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, (args, r.stderr)
    assert snapshot(root) == before


def test_huge_entry_is_refused(root: Path) -> None:
    before = snapshot(root)
    r = run_cli("put", "seed", "-", cwd=root, stdin=b"x" * 10_000_000)
    assert r.returncode == 2 and b"far over the limit" in r.stderr
    assert snapshot(root) == before


def test_broken_config(root: Path) -> None:
    (root / ".agents" / "config.toml").write_text("[memory]\nkeep_recent = 'five'\n")
    before = snapshot(root)
    r = run_cli("put", "seed", "x", cwd=root)
    assert r.returncode == 2
    assert r.stderr.decode().strip() == (
        "lean-memory: error: config: [memory] keep_recent must be an integer, got 'five'")
    assert snapshot(root) == before


def test_index_twice_changes_nothing(root: Path) -> None:
    run_cli("put", "seed", "fact", cwd=root)
    first = run_cli("index", cwd=root)
    assert first.returncode == 0
    before = snapshot(root)
    second = run_cli("index", cwd=root)
    assert b"unchanged" in second.stdout and snapshot(root) == before


def test_query_json_shape(root: Path) -> None:
    run_cli("put", "failures", "ECONNREFUSED from postgres in CI: the service starts late",
            "--date", "2026-01-01", cwd=root)
    r = run_cli("get", "--query", "postgres ECONNREFUSED", "--json", cwd=root)
    [hit] = json.loads(r.stdout)
    assert set(hit) == {"id", "shard", "title", "date", "tags", "supersedes", "meta", "text",
                        "score", "archived", "layer"}
    assert hit["shard"] == "failures" and hit["score"] > 0 and hit["layer"] == "project"


def test_version_and_help(root: Path) -> None:
    assert run_cli("--version", cwd=root).returncode == 0
    r = run_cli("--help", cwd=root)
    assert r.returncode == 0 and b"put" in r.stdout and b"scan" in r.stdout


def test_query_without_a_match_says_so_and_succeeds(root: Path) -> None:
    run_cli("put", "seed", "the build uses make", cwd=root)
    r = run_cli("get", "--query", "zeppelin airship", cwd=root)
    assert r.returncode == 0 and r.stdout == b""
    assert r.stderr.decode().strip() == "lean-memory: no entry matches the query"


def test_demo_runs_end_to_end_and_never_shows_the_secret(tmp_path: Path) -> None:
    from lean_memory.demo import _fake_token

    r = run_cli("demo", cwd=tmp_path)
    out = r.stdout.decode()
    assert r.returncode == 0, r.stderr
    for step in ("$ lean-memory init", "added ", "# Memory index", "--query",
                 "refused: entry contains", "Compaction:", "(archive)"):
        assert step in out, step
    assert _fake_token() not in out and _fake_token() not in r.stderr.decode()
    assert list(tmp_path.iterdir()) == []  # the demo cleans up after itself
