"""The memory folder is a boundary (ADR 0012): a hostile cloned repository, built in a temp
dir, run through the real CLI and both hooks as subprocesses. Nothing outside ``.agents/``
is read into the output or written, nothing hangs, memory stays bounded."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import LeanMemoryError, Memory
from lean_memory.config import RESERVED, parse_config
from lean_memory.errors import ConfigError, UnknownShard
from lean_memory.fsutil import (
    UnsafePath,
    append_line,
    atomic_write,
    boundary_of,
    file_lock,
    read_bounded,
    sweep,
    write_cache,
)

from .conftest import ROOT, git

POSIX = sys.platform != "win32"
posix_only = pytest.mark.skipif(not POSIX, reason="FIFOs, devices and rlimits are POSIX")
# Words of the prompt, so that a digest would pick the outside file if it were ever read.
PROMPT = "how do we deploy after the database migration"
ADDRESS_SPACE = 1 << 30  # a child that slurps /dev/zero dies here instead of eating the host


def _marker() -> str:
    return "OUTSIDE-" + "boundary-7f3a"  # built at run time: grep the repo, find no hit


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str
    peak_rss: int  # bytes, 0 where unknown


# The child is started by a small wrapper (isolated mode, stdlib only) that caps its address
# space, forks, execs the command and reports the command's own peak RSS. Forking straight
# from pytest would count pytest's pages: Linux keeps the pre-exec peak in ru_maxrss, and a
# long suite's pytest passes 200 MiB by itself.
_WRAPPER = """
import os, resource, signal, sys
limit, report = int(sys.argv[1]), sys.argv[2]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.execv(sys.argv[3], sys.argv[3:])
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as f:
    f.write(str(usage.ru_maxrss))
if os.WIFSIGNALED(status):
    signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
    os.kill(os.getpid(), os.WTERMSIG(status))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def lm(root: Path, *args: str, stdin: bytes = b"", timeout: float = 30) -> Run:
    """``python -m lean_memory ARGS`` in ``root``: exit code, output, peak memory."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    cmd = [sys.executable, "-m", "lean_memory", *args]
    if not POSIX:
        r = subprocess.run(cmd, cwd=root, input=stdin, capture_output=True, env=env,
                           timeout=timeout, check=False)
        return Run(r.returncode, r.stdout.decode(), r.stderr.decode(), 0)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "maxrss")
        p = subprocess.Popen([sys.executable, "-I", "-c", _WRAPPER, str(ADDRESS_SPACE), report,
                              *cmd], cwd=root, stdin=subprocess.PIPE, stdout=out, stderr=err,
                             env=env, start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
        timer.start()
        try:
            assert p.stdin is not None
            p.stdin.write(stdin)
            p.stdin.close()
            code = p.wait()
        finally:
            timer.cancel()
        assert code != -9, f"lean_memory {' '.join(args)} hung (killed after {timeout} s)"
        out.seek(0)
        err.seek(0)
        with open(report) as f:
            peak = int(f.read() or 0)
        scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes there, KiB here
        return Run(code, out.read().decode(), err.read().decode(), peak * scale)


def hook(root: Path, event: str) -> Run:
    name = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}[event]
    payload = {"hook_event_name": name, "prompt": PROMPT, "cwd": str(root),
               "source": "startup"}
    return lm(root, "hook", event, stdin=json.dumps(payload).encode())


@dataclass
class Outside:
    """A file outside the repository that the user can write."""

    path: Path

    def __post_init__(self) -> None:
        self.path.write_text(f"# {_marker()}\n\n## Deploy after the database migration\n"
                             f"{_marker()} deploy migration database\n")
        os.utime(self.path, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
        self.before = self.path.read_bytes(), os.stat(self.path).st_mtime_ns

    def untouched(self) -> bool:
        return (self.path.read_bytes(), os.stat(self.path).st_mtime_ns) == self.before


@pytest.fixture
def repo(tmp_path: Path) -> Memory:
    root = tmp_path / "repo"
    root.mkdir()
    m = Memory(root)
    m.init()
    m.put_entry("quirks", "The staging deploy needs the VPN up first.", date="2026-01-02")
    return m


@pytest.fixture
def outside(tmp_path: Path) -> Outside:
    return Outside(tmp_path / "outside.md")


def _link(link: Path, target: Path | str) -> None:
    """``link`` -> ``target``; skipped where the user may not make links (Windows)."""
    try:
        os.symlink(target, link, target_is_directory=os.path.isdir(target))
    except OSError:
        if POSIX:
            raise
        pytest.skip("symbolic links need a privilege here")


def _refused(run: Run, what: str = "symbolic link") -> None:
    assert run.code == 2, run
    assert _marker() not in run.out + run.err
    assert what in run.err and run.err.count("\n") == 1, run.err  # one line
    assert "Traceback" not in run.err


def _hooks_silent(root: Path) -> None:
    for event in ("session-start", "user-prompt-submit"):
        r = hook(root, event)
        assert r.code == 0, r
        assert _marker() not in r.out + r.err
        assert r.err == ""


# -- reads --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["INDEX.md", "quirks.md"])
def test_a_file_linked_outside_is_never_read_into_context(
        repo: Memory, outside: Outside, name: str) -> None:
    target = repo.dir / name
    target.unlink()
    _link(target, outside.path)
    _hooks_silent(repo.root)
    for args in (("get",), ("get", "quirks"), ("get", "--digest", PROMPT),
                 ("get", "--query", "deploy migration"), ("status",), ("index",),
                 ("put", "quirks", "A new fact about deploys.")):
        r = lm(repo.root, *args)
        if r.code == 0:  # a command that never needs this file may succeed
            assert _marker() not in r.out
        else:
            _refused(r)
    _refused(lm(repo.root, "get") if name == "INDEX.md" else lm(repo.root, "get", "quirks"))
    _refused(lm(repo.root, "put", "quirks", "Another fact."))  # refused before any write
    assert target.is_symlink()  # never replaced by a regular file
    assert outside.untouched()


def test_a_config_linked_outside_is_refused(repo: Memory, outside: Outside) -> None:
    _link(repo.agents_dir / "config.toml", outside.path)
    _refused(lm(repo.root, "status"))
    _hooks_silent(repo.root)
    assert outside.untouched()


@posix_only
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_shard_linked_to_a_device_is_refused_with_bounded_memory(
        repo: Memory, device: str) -> None:
    shard = repo.dir / "quirks.md"
    shard.unlink()
    _link(shard, device)
    for args in (("status",), ("get", "quirks"), ("get", "--query", "deploy")):
        r = lm(repo.root, *args)
        _refused(r)
        assert r.peak_rss < 200 << 20, r.peak_rss
    _hooks_silent(repo.root)


@posix_only
@pytest.mark.parametrize("name", ["quirks.md", "INDEX.md", "../config.toml"])
def test_a_fifo_never_hangs_a_command(repo: Memory, name: str) -> None:
    fifo = repo.dir / name
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)
    for args in (("status",), ("get",), ("get", "quirks"), ("get", "--query", "deploy"),
                 ("put", "quirks", "Another fact.")):
        r = lm(repo.root, *args)  # asserts it was not killed by the timeout
        assert r.code in (0, 2), r
        if r.code == 2:
            assert "not a regular file" in r.err, r.err
    _refused(lm(repo.root, "put", "quirks", "Another fact."), "not a regular file")
    _hooks_silent(repo.root)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_an_oversized_shard_is_refused_unread(repo: Memory) -> None:
    shard = repo.dir / "quirks.md"
    with open(shard, "r+b") as fh:
        fh.truncate(65 << 20)  # sparse: costs no disk, only the size tells
    r = lm(repo.root, "get", "quirks")
    _refused(r, "over 64 MiB")
    assert r.peak_rss < 200 << 20 or not POSIX


# -- writes -------------------------------------------------------------------------------


def test_a_linked_hook_log_is_never_written(repo: Memory, outside: Outside) -> None:
    (repo.agents_dir / "config.toml").write_text("[memory\nbroken = \n")  # so the hook logs
    log = repo.cache_dir / "hook.log"
    log.unlink(missing_ok=True)
    _link(log, outside.path)
    _hooks_silent(repo.root)
    assert outside.untouched()
    assert log.is_symlink()


def test_the_hook_log_is_written_where_it_is_safe(repo: Memory) -> None:
    (repo.agents_dir / "config.toml").write_text("[memory\n")
    log = repo.cache_dir / "hook.log"
    log.write_bytes(b"x" * (300 * 1024) + b"\n")
    assert hook(repo.root, "user-prompt-submit").code == 0
    text = log.read_text()
    assert "failed open" in text and len(text) < 200 * 1024  # logged, and cut to its tail


@pytest.mark.parametrize("link", [".agents", ".agents/memory", ".agents/memory/.cache",
                                  ".agents/memory/archive"])
def test_a_linked_folder_is_never_written_through(
        tmp_path: Path, repo: Memory, link: str) -> None:
    real = repo.root / link
    elsewhere = tmp_path / "elsewhere"
    real.rename(elsewhere)
    _link(real, elsewhere)
    before = _tree(elsewhere)
    for args in (("put", "quirks", "A new fact."), ("index",), ("compact",), ("init",)):
        _refused(lm(repo.root, *args))
    for reads in (("get",), ("get", "quirks"), ("status",)):
        r = lm(repo.root, *reads)
        if link.endswith(".cache"):  # only the cache, ignored: reads work, without it
            assert r.code == 0, r
        elif link.endswith("archive"):  # what needs no archive file works
            assert r.code in (0, 2), r
        else:
            _refused(r)
    _hooks_silent(repo.root)
    assert _tree(elsewhere) == before
    config = (elsewhere if link == ".agents" else repo.agents_dir) / "config.toml"
    config.write_text("[memory\n")  # now the hooks fail, and log where it is safe
    before = _tree(elsewhere)
    _hooks_silent(repo.root)
    assert _tree(elsewhere) == before
    assert real.is_symlink()


@posix_only
def test_cache_files_linked_to_a_device_are_ignored_with_bounded_memory(repo: Memory) -> None:
    # .cache is not committed, but a hostile clone can add it: every cache a command reads
    repo.put_entry("conventions", "Deploy only after the migration.", date="2026-01-03")
    for args in (("status",), ("get", "quirks"), ("get", "--query", "deploy"), ("index",)):
        assert lm(repo.root, *args).code == 0
    lm(repo.root, "hook", "user-prompt-submit",
       stdin=json.dumps({"prompt": PROMPT, "cwd": str(repo.root)}).encode())
    caches = sorted(p for p in repo.cache_dir.iterdir()
                    if p.is_file() and p.name not in ("lock", "hook.log"))
    assert len(caches) > 20  # the index parts, stats, verdicts, put state, rules, config
    for path in caches:
        path.unlink()
        _link(path, "/dev/zero")
    for args in (("status",), ("get", "quirks"), ("get", "--query", "deploy"),
                 ("put", "quirks", "Deploys wait for the migration to finish.")):
        r = lm(repo.root, *args)
        assert r.code == 0, (args, r.err)
        assert r.peak_rss < 200 << 20, (args, r.peak_rss)
    assert "Deploys wait" in lm(repo.root, "get", "--query", "deploy migration").out
    # none replaced by a file written through or over the link (a void tail may be removed)
    assert [p.name for p in caches if os.path.lexists(p) and not p.is_symlink()] == []


@pytest.mark.parametrize("name", ["lock", "stats-live-quirks.marshal", "search.marshal",
                                  "search-live-quirks.idx", "config.marshal"])
def test_a_linked_lock_or_cache_file_is_never_written(
        repo: Memory, outside: Outside, name: str) -> None:
    path = repo.cache_dir / name
    path.unlink(missing_ok=True)
    _link(path, outside.path)
    r = lm(repo.root, "put", "quirks", "Deploys wait for the migration to finish.")
    if name == "lock":
        _refused(r)
    else:  # a cache is only speed: ignored, rebuilt in memory, not written
        assert r.code == 0, r
        r = lm(repo.root, "get", "--query", "deploy migration")
        assert r.code == 0 and "Deploys wait" in r.out and _marker() not in r.out
    _hooks_silent(repo.root)
    assert outside.untouched()
    assert path.is_symlink()


def test_a_linked_temp_file_name_is_neither_followed_nor_removed(
        repo: Memory, outside: Outside) -> None:
    link = repo.dir / ".quirks.md.abcdefgh.tmp"
    _link(link, outside.path)
    assert lm(repo.root, "put", "quirks", "A new fact.").code == 0
    assert link.is_symlink() and outside.untouched()


def _tree(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


# -- modes, temp files, names -------------------------------------------------------------


@posix_only
def test_a_rewritten_shard_keeps_its_mode(repo: Memory) -> None:
    shard = repo.shard_path("quirks")
    os.chmod(shard, 0o640)
    repo.put_entry("quirks", "Another fact worth keeping.", date="2026-01-03")
    repo.put_entry("quirks", "The staging deploy needs the VPN up first.", date="2026-01-04")
    assert stat.S_IMODE(os.stat(shard).st_mode) == 0o640
    old = os.umask(0o027)
    try:
        fresh = repo.cache_dir / "fresh.bin"
        atomic_write(fresh, b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o640  # 0644 less the umask


def test_stale_temp_files_are_swept_under_the_lock_and_ignored_by_git(repo: Memory) -> None:
    stale = [repo.dir / ".quirks.md.k2j4h5g6.tmp", repo.archive_dir / ".seed.md.a_b3c4d5.tmp",
             repo.dir / ".INDEX.md.zzzzzzzz.tmp"]
    keep = [repo.dir / ".quirks.md.tmp", repo.dir / "notes.k2j4h5g6.tmp"]
    for p in (*stale, *keep):
        p.write_text("half written")
    young = repo.cache_dir / ".stats.marshal.abcdefgh.tmp"  # a reader may be writing it
    young.write_bytes(b"")
    git(repo.root, "init", "-q")
    shown = git(repo.root, "status", "--porcelain", "--untracked-files=all").stdout
    assert "notes.k2j4h5g6.tmp" in shown  # not our pattern: neither ignored nor swept
    assert not any(p.name in shown for p in stale)
    repo.put_entry("quirks", "A fact after a crash.", date="2026-01-03")
    assert not any(p.exists() for p in stale)
    assert all(p.exists() for p in keep) and young.exists()


def test_an_older_generated_gitignore_gains_the_temp_pattern_once(repo: Memory) -> None:
    ignore = repo.dir / ".gitignore"
    ignore.write_text(".cache/")  # as an older version wrote it, less its newline
    repo.init()
    assert ignore.read_text() == ".cache/\n.*.tmp\n"
    assert repo.init() == []
    assert ignore.read_text() == ".cache/\n.*.tmp\n"


@pytest.mark.parametrize("name", ["con", "prn", "aux", "nul", "com1", "com9", "lpt1", "lpt9"])
def test_windows_device_names_are_not_shard_names(repo: Memory, name: str) -> None:
    assert name in RESERVED
    with pytest.raises(ConfigError):
        parse_config({"memory": {"shards": ["seed", name]}})
    with pytest.raises(UnknownShard):
        repo.put_entry(name, "text")
    for variant in (name.upper(), f"{name}.md", f"{name}.txt"):
        with pytest.raises(ConfigError):
            parse_config({"memory": {"shards": [variant]}})
    parse_config({"memory": {"shards": [f"{name}x", f"x{name}"]}})  # only the bare names


# -- the mechanism, directly -------------------------------------------------------------


def test_read_bounded_reads_exactly_what_is_there(tmp_path: Path) -> None:
    path = tmp_path / ".agents" / "memory" / "x.md"
    path.parent.mkdir(parents=True)
    for size in (0, 1, 4095, 1 << 20, (1 << 20) + 7):
        data = os.urandom(size)
        path.write_bytes(data)
        assert read_bounded(path, 2 << 20) == data
    with pytest.raises(UnsafePath, match="over"):
        read_bounded(path, 1 << 20)
    with pytest.raises(FileNotFoundError):
        read_bounded(path.with_name("missing.md"), 10)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=3000), limit=st.integers(0, 4000))
def test_read_bounded_returns_the_file_or_refuses_it_whole(
        tmp_path: Path, data: bytes, limit: int) -> None:
    path = tmp_path / ".agents" / "memory" / "x.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if len(data) <= limit:
        assert read_bounded(path, limit) == data
    else:
        with pytest.raises(UnsafePath):
            read_bounded(path, limit)


@given(st.lists(st.sampled_from(["a", "b", ".agents", "memory", ".cache", "x.md"]),
                min_size=1, max_size=8))
def test_the_boundary_is_the_nearest_agents_folder(parts: list[str]) -> None:
    path = Path("/", *parts)
    found = boundary_of(path)
    if ".agents" not in parts:
        assert found is None
    else:
        last = len(parts) - 1 - parts[::-1].index(".agents")
        assert found == str(Path("/", *parts[: last + 1]))  # a string: no pathlib inside


def test_every_refusal_is_a_lean_memory_error_of_one_line(tmp_path: Path,
                                                          outside: Outside) -> None:
    agents = tmp_path / ".agents"
    (agents / "memory" / ".cache").mkdir(parents=True)
    link = agents / "memory" / "x.md"
    _link(link, outside.path)
    calls: list[Callable[[], object]] = [
        lambda: read_bounded(link, 100),
        lambda: atomic_write(link, "x"),
        lambda: append_line(link, "x\n", limit=100),
        lambda: sweep(agents / "memory", {"x.md"}),
    ]
    lock = agents / "memory" / ".cache" / "lock"
    _link(lock, outside.path)
    calls.append(lambda: file_lock(lock).__enter__())
    for call in calls:
        with pytest.raises(LeanMemoryError) as info:
            call()
        assert "\n" not in str(info.value) and _marker() not in str(info.value)
        assert ".agents/memory/" in str(info.value)
    assert not write_cache(link, b"x")
    assert outside.untouched() and link.is_symlink()
