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


def test_the_command_line_leaves_its_objects_to_the_exit(root: Path) -> None:
    """``python -m lean_memory`` freezes what it allocated before it exits: the final garbage
    collection (~5 ms of a warm query) is skipped; atexit handlers and output still run.
    A read runs without the collector at all; other commands keep it."""
    import subprocess
    import sys

    from .test_hot_imports import PACKAGE_ROOT, WRAPPER

    gc_state = ('"\\nFROZEN " + str(__import__("gc").get_freeze_count()) + " " + '
                'str(__import__("gc").isenabled()) + ')
    wrapper = WRAPPER.replace('"\\nMODULES "', gc_state + '"\\nMODULES "')
    for args, enabled in ((("get", "--query", QUERY), "False"), (("status",), "True")):
        done = subprocess.run([sys.executable, "-S", "-c", wrapper.format(root=PACKAGE_ROOT),
                               *args], cwd=root, capture_output=True, text=True, check=False)
        assert done.returncode == 0 and "failures" in done.stdout + done.stderr, done.stderr
        frozen, now = done.stderr.rpartition("\nFROZEN ")[2].split()[:2]
        assert int(frozen) > 1000 and now == enabled
