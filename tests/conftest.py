from __future__ import annotations

import importlib.util
import os
import socketserver
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import settings

import lean_memory

# CI explores a fixed sequence of examples, so a green run stays green; locally every run
# explores new ones (and replays the failures it found, from .hypothesis/).
# No per-example deadline: it is a timed assert, and this machine is shared (speed is measured
# in bench/, never in tests).
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", derandomize=True, print_blob=True, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _private_data(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test (and the CLI it starts) keeps the global and session layers in a temporary
    folder: the prompt hook records asks, and no test may touch the real home."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    # Claude Code's user folder: a plugin enabled on this machine changes what init writes
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path_factory.mktemp("claude")))
    monkeypatch.delenv("LEAN_MEMORY_PLUGIN", raising=False)
    monkeypatch.delenv("LEAN_MEMORY_GLOBAL", raising=False)


@pytest.fixture
def mem(tmp_path: Path) -> lean_memory.Memory:
    m = lean_memory.Memory(tmp_path)
    m.init()
    return m


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` except the volatile cache, as bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts}


def git(repo: Path, *args: str, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run git in ``repo`` with a fixed identity and lean_memory importable."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_EDITOR": "true", **(env or {})}
    full.pop("LEAN_MEMORY_ROOT", None)
    r = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                       env=full, timeout=120, check=False)
    if check and r.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {r.stdout}\n{r.stderr}")
    return r


def run_cli(*args: str, cwd: Path, stdin: bytes | None = None,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full_env.pop("LEAN_MEMORY_ROOT", None)
    return subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=cwd, input=stdin,
                          capture_output=True, env=full_env, timeout=60)


def load_bench(relpath: str, name: str) -> ModuleType:
    """A script under bench/ (not a package), imported once as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / relpath)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:
        module = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return module


class Stuck:
    """Slow work that does not end until the test releases it (or two minutes pass): a test
    checks that its caller returned while this was still stuck, an order of events rather
    than a duration, so no load can change the verdict (ADR 0029)."""

    def __init__(self, result: Any = None) -> None:
        self.result = result
        self.release = threading.Event()
        self.finished = threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.release.wait(120)
        self.finished.set()
        return self.result


def cpu_seconds(work: Callable[[], object]) -> float:
    """The CPU time ``work`` takes in this thread: what a complexity guard (linear on
    hostile input) bounds. Other processes cannot move it, as they move the wall clock."""
    began = time.thread_time()
    work()
    return time.thread_time() - began


@contextmanager
def serving(server: socketserver.BaseServer, poll_interval: float = 0.5) -> Iterator[None]:
    """``server`` answering from a daemon thread for the ``with`` block, then shut down."""
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval},
                     daemon=True).start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A fake HTTP server on 127.0.0.1 for the ``with`` block: its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    # shutdown() waits for the next poll: 10 ms, not the default 0.5 s per test
    with serving(server, poll_interval=0.01):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def spy_quick(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What each ``Memory._put_quick`` returned from now on (None: the quick put declined and
    the general put ran)."""
    results: list[object] = []
    real = lean_memory.Memory._put_quick

    def spy(self: lean_memory.Memory, *args: object, **kwargs: object) -> object:
        out = real(self, *args, **kwargs)  # type: ignore[arg-type]
        results.append(out)
        return out

    monkeypatch.setattr(lean_memory.Memory, "_put_quick", spy)
    return results
