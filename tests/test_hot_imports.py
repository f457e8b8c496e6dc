"""The hot commands load no heavy module they do not need (issue 24): the values they build
are plain classes with slots (``lean_memory._record``), not dataclasses (which import
``inspect``, ``ast``, ``dis``), and ``typing`` is imported for the type checker only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import lean_memory

PACKAGE_ROOT = str(Path(lean_memory.__file__).resolve().parent.parent)
# Runs ``python -m lean_memory ARGS`` and prints the modules it loaded, as the process exits.
WRAPPER = """
import atexit, os, runpy, sys
sys.path.insert(0, {root!r})
def loaded():
    sys.stderr.write("\\nMODULES " + " ".join(sys.modules) + "\\n")  # in load order
    sys.stderr.flush()
atexit.register(loaded)  # an error's exit
end = os._exit  # cli.run's: the process ends there, without atexit (ADR 0054)
os._exit = lambda code: (loaded(), end(code))
sys.argv = ["lean_memory", *sys.argv[1:]]
runpy.run_module("lean_memory", run_name="__main__", alter_sys=True)
"""
HEAVY = {"dataclasses", "inspect", "ast", "dis", "typing"}
QUERY = "why does the deploy fail with ECONNREFUSED after the upgrade"


def _loaded(root: Path, *args: str, stdin: str = "") -> tuple[list[str], str]:
    # -S: no site (its .pth files import what they like); the package from its own folder
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LEAN_MEMORY"))}
    env["XDG_DATA_HOME"] = str(root / "data")  # the session layer's asks: kept in the test
    done = subprocess.run([sys.executable, "-S", "-c", WRAPPER.format(root=PACKAGE_ROOT), *args],
                          cwd=root, capture_output=True, text=True, env=env, check=False,
                          input=stdin)
    assert done.returncode == 0, done.stderr
    _, _, modules = done.stderr.rpartition("\nMODULES ")
    return modules.split(), done.stdout


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hot")
    mem = lean_memory.Memory(root)
    mem.init()
    for i in range(30):
        mem.put_entry("failures", f"The deploy {i} failed with ECONNREFUSED: port {8000 + i} "
                                  "was closed after the upgrade.", date="2026-01-02")
        mem.put_entry("quirks", f"Tool number {i} needs the --frozen-lockfile flag in CI.",
                      date="2026-01-03")
    for args in (("get", "--query", QUERY), ("get", "failures"), ("status",)):
        _loaded(root, *args)  # the caches a warm command expects
    return root


@pytest.mark.parametrize("args", [("get", "--query", QUERY), ("get", "-q", QUERY, "--json"),
                                  ("get", "failures")])
def test_hot_reads_load_no_dataclasses_nor_typing(root: Path, args: tuple[str, ...]) -> None:
    modules, out = _loaded(root, *args)
    assert "ECONNREFUSED" in out
    assert not HEAVY.intersection(modules), sorted(HEAVY.intersection(modules))
    # the built-in BM25 alone: the retriever plugins' machinery stays unloaded
    assert "lean_memory.retrievers" not in modules
    assert "lean_memory.secrets" not in modules


@pytest.mark.parametrize("args", [("get", "--query", QUERY), ("get", "-q", QUERY, "--json"),
                                  ("get", "failures"), ("get", "--query", "needs_frozen lockfile"),
                                  ("put", "insights", "Pin the lockfile before the upgrade.")])
def test_hot_commands_load_no_pathlib(root: Path, args: tuple[str, ...]) -> None:
    """Paths are os.path strings inside the package: ``pathlib`` (which imports ``re``,
    ``fnmatch``, ``urllib.parse``, ``ipaddress``: ~8 ms) only at the API's edge, on demand."""
    modules, out = _loaded(root, *args)
    assert out.strip()
    assert not {"pathlib", "fnmatch", "urllib.parse"}.intersection(modules), modules


def _prompt(root: Path, session: str) -> str:
    return json.dumps({"session_id": session, "prompt": QUERY, "cwd": str(root),
                       "hook_event_name": "UserPromptSubmit"})


@pytest.mark.parametrize("args", [("hook", "user-prompt-submit"), ("status",)])
def test_the_prompt_hook_and_status_load_no_pathlib_nor_dataclasses(
        root: Path, args: tuple[str, ...]) -> None:
    """The learning loop's modules (asks kept per prompt, the session layer, the context
    line of ``status``) are light too: plain values, ``os.path`` strings, no clock types."""
    _loaded(root, "hook", "user-prompt-submit", stdin=_prompt(root, "s-1"))  # an ask kept
    modules, out = _loaded(root, *args, stdin=_prompt(root, "s-2"))
    if args[0] == "hook":
        assert "ECONNREFUSED" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
        assert "lean_memory.prompthook" in modules  # the prompt was kept as an ask
        asks = root / "data" / "lean-memory" / "projects"
        assert len(list(asks.glob("*/asks/s-2.jsonl"))) == 1
    else:
        assert "failures" in out
    light = HEAVY | {"pathlib", "fnmatch", "urllib.parse", "ipaddress", "datetime"}
    assert not light.intersection(modules), sorted(light.intersection(modules))


def test_a_memory_builds_its_path_attributes_on_demand(root: Path) -> None:
    mem = lean_memory.Memory(str(root))
    assert mem.dir == root / ".agents" / "memory" and isinstance(mem.cache_dir, Path)
    assert mem.shard_path("failures") == mem.dir / "failures.md"
    assert (mem.agents_dir, mem.archive_dir, mem.index_path) == (
        root / ".agents", mem.dir / "archive", mem.dir / "INDEX.md")
    assert mem.root == root and mem.dir is mem.dir  # built once


def _importers(stderr: str) -> dict[str, list[str]]:
    """From ``-X importtime``'s tree: each module's importers, outermost first."""
    out: dict[str, list[str]] = {}
    stack: list[tuple[int, str]] = []
    for line in reversed(stderr.splitlines()):  # a module is logged after what it imports
        if not line.startswith("import time:") or line.endswith("| package"):
            continue
        field = line.rsplit("|", 1)[1]
        name = field.strip()
        depth = (len(field) - len(field.lstrip(" "))) // 2
        while stack and stack[-1][0] >= depth:
            stack.pop()
        out[name] = [n for _, n in stack]
        stack.append((depth, name))
    return out


def test_a_put_loads_nothing_heavy_but_the_scanner(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "LEAN_MEMORY"))}
    done = subprocess.run([sys.executable, "-S", "-X", "importtime", "-c",
                           WRAPPER.format(root=PACKAGE_ROOT), "put", "insights",
                           "Restart the cache after the upgrade."],
                          cwd=root, capture_output=True, text=True, env=env, check=True)
    assert done.stdout.startswith("added ")
    importers = _importers(done.stderr)
    assert "lean_memory.store" in importers and "lean_memory.retrievers" not in importers
    # The store's own path is light; what the secret scanner imports is its own (issue 24's
    # direction 5 makes it light too, and then this can say: no heavy module at all).
    scanner = {"lean_memory.secrets", "lean_memory._secret_rules"}
    heavy = sorted(m for m in HEAVY & importers.keys() if not scanner & set(importers[m]))
    assert not heavy, {m: importers[m] for m in heavy}
