"""A warm query and a warm ``get SHARD`` load no module they can do without (issue 24).

``re`` (and its compiler, ``enum``: ~8 ms) came with parsing the hits' Markdown and with
``dedup`` (their "Said again" part); ``contextvars``, ``unicodedata`` and ``fcntl`` are
shared libraries (~0.3-0.5 ms each) that only a time limit, non-ASCII text and a lock need.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import lean_memory
from lean_memory import dedup
from lean_memory import format as fmt

from .test_hot_imports import QUERY, _loaded

UNNEEDED = {"re", "enum", "lean_memory.dedup", "contextvars",
            "unicodedata", "fcntl", "lean_memory.secrets"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("query")
    mem = lean_memory.Memory(root)
    mem.init()
    for i in range(20):
        mem.put_entry("failures", f"The deploy {i} failed with ECONNREFUSED: port {8000 + i} "
                                  "was closed after the upgrade.\n\n```sh\nnc -z host "
                                  f"{8000 + i}\n```\n", date="2026-01-02", tags=["deploy", "ci"])
    for args in (("get", "--query", QUERY), ("get", "failures")):
        _loaded(root, *args)  # the caches a warm command expects
    return root


@pytest.mark.parametrize("args", [("get", "--query", QUERY), ("get", "-q", QUERY, "--json"),
                                  ("get", "failures")])
def test_a_warm_read_loads_no_regex_engine_nor_unneeded_libraries(
        root: Path, args: tuple[str, ...]) -> None:
    modules, out = _loaded(root, *args)
    assert "ECONNREFUSED" in out
    # --json writes with the json module, which imports re itself
    unneeded = UNNEEDED - {"re", "enum"} if "--json" in args else UNNEEDED
    assert not unneeded.intersection(modules), sorted(unneeded.intersection(modules))


def test_the_said_again_marker_is_dedups() -> None:
    """search tells a body with a "Said again" part by format's marker, then asks dedup."""
    assert fmt.SAID_AGAIN == dedup.MARKER
    from lean_memory.search import _main_text

    entry = fmt.Entry("a1", "notes", "T", "Body.")
    again = dedup.add_said_again(entry, "Body, said once more.", "2026-01-02")
    assert fmt.SAID_AGAIN in again.text
    assert _main_text(again.text) == dedup.main_text(again.text) == "Body."
    assert _main_text("plain text") == "plain text"


def test_the_command_line_ends_without_the_teardown(root: Path) -> None:
    """``python -m lean_memory`` (and the ``lean-memory`` script: both run ``cli.run``)
    flushes its output and ends the process at once (``os._exit``): the interpreter's
    teardown (~4 M instructions of a warm query) and atexit handlers are skipped, the output
    and the exit code are whole, the collector stays on. And it collects the youngest
    generation every 20,000 allocations, not 700: each collection walked the imported
    modules' objects again (~1 M instructions of a prompt's hook)."""
    import subprocess
    import sys

    from .test_hot_imports import PACKAGE_ROOT, WRAPPER

    gc_state = ('"\\nSTATE " + str(__import__("gc").isenabled()) + " " + '
                'str(__import__("gc").get_threshold()[0]) + ')
    wrapper = WRAPPER.replace('"\\nMODULES "', gc_state + '"\\nMODULES "').replace(
        "atexit.register(loaded)", "atexit.register(lambda: print('ATEXIT RAN', file=sys.stderr))")
    assert wrapper.count("ATEXIT RAN") == 1 and "STATE" in wrapper
    for args, code in ((("get", "--query", QUERY), 0), (("status",), 0),
                       (("get", "no-such-shard"), 2)):
        done = subprocess.run([sys.executable, "-S", "-c", wrapper.format(root=PACKAGE_ROOT),
                               *args], cwd=root, capture_output=True, text=True, check=False)
        assert done.returncode == code, done.stderr
        assert "ATEXIT RAN" not in done.stderr
        now, threshold = done.stderr.rpartition("\nSTATE ")[2].split()[:2]
        assert now == "True" and int(threshold) >= 10_000
        if code == 0:
            assert "failures" in done.stdout, done.stdout[-300:]
        else:
            assert done.stderr.startswith("lean-memory: ") and "no-such-shard" in done.stderr


def test_summaries_round_trip_through_pickle() -> None:
    import pickle

    from lean_memory.putstate import Summary

    s = Summary("d", 3, (("a", "", ""),))
    assert pickle.loads(pickle.dumps(s)) == s and s.costs == () and s.hand == 0
    assert s._replace(tokens=4).tokens == 4 and repr(s).startswith("Summary(description='d'")


def test_a_small_part_checks_only_the_chunks_a_query_reads(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A small part's body is read whole, but each chunk is hashed (checked against its
    digest) when first read: a query reads about half of them. A damaged chunk still fails
    its first read, however the body was read."""
    import io

    from lean_memory import index

    body = bytes(range(256)) * (3 * index.CHUNK // 256 + 7)  # three chunks and a bit
    digests = b"".join(index.blake2b(body[i:i + index.CHUNK], digest_size=16).digest()
                       for i in range(0, len(body), index.CHUNK))
    hashed: list[int] = []
    real = index.blake2b

    def counting(data: bytes | memoryview, **kwargs: int) -> object:
        hashed.append(len(data))
        return real(data, **kwargs)

    monkeypatch.setattr(index, "blake2b", counting)
    part = index._Body(io.BytesIO(b"head" + body), 4, len(body), digests)  # type: ignore[arg-type]
    assert part.read(10, 20) == body[10:20] and hashed == [index.CHUNK]
    assert part.read(index.CHUNK - 5, index.CHUNK + 5) == body[index.CHUNK - 5:index.CHUNK + 5]
    assert part.read(0, 30) == body[:30] and hashed == [index.CHUNK, index.CHUNK]
    damaged = bytearray(body)
    damaged[3 * index.CHUNK + 1] ^= 1
    bad = index._Body(io.BytesIO(b"head" + bytes(damaged)), 4, len(body), digests)  # type: ignore[arg-type]
    assert bad.read(0, 8) == body[:8]
    with pytest.raises(index.Corrupt):
        bad.read(3 * index.CHUNK, 3 * index.CHUNK + 2)


def test_superseded_ids_read_no_summary_when_nothing_is_superseded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``get SHARD`` marks superseded entries: with a valid put state that names no
    correction, nothing is superseded and no shard's summary is read (at 10k entries, the
    six summaries were 2/3 of a warm ``get SHARD``). With a correction: as before."""
    from lean_memory.putstate import Summarized
    from lean_memory.summaries import hidden_ids

    mem = lean_memory.Memory(tmp_path)
    mem.init()
    for i in range(5):
        mem.put_entry("failures", f"Failure {i}: the port {9000 + i} was closed.",
                      date="2026-01-02")
    mem.status()  # the put state
    reads: list[str] = []
    real = Summarized._stat

    def counted(self: Summarized, key: str) -> object:
        reads.append(key)
        return real(self, key)

    monkeypatch.setattr(Summarized, "_stat", counted)
    fresh = lean_memory.Memory(tmp_path)
    assert fresh.superseded_ids() == set() == hidden_ids(fresh._all_links())
    reads.clear()
    assert lean_memory.Memory(tmp_path).superseded_ids() == set() and reads == []
    old = mem.entries("failures")[0]
    mem.put_entry("failures", "Failure 0: the port was open; the firewall dropped it.",
                  date="2026-01-03", supersedes=old.id)
    mem.status()
    fresh = lean_memory.Memory(tmp_path)
    assert fresh.superseded_ids() == {old.id} == hidden_ids(fresh._all_links())
