"""One detached background process per job and memory, off the caller's critical path.

A marker file in ``.cache/`` (created with ``O_EXCL``, never through a link: ADR 0012)
keeps it to one at a time; a marker older than ``stale_s`` is left over from a crash. Its
output goes nowhere; the caller never waits for it.

Every Python process lean_memory starts or writes a command for (hooks, merge driver, this
one) runs isolated (ADR 0033): ``python -I`` (no current folder or script folder on
``sys.path``, no ``PYTHON*`` variables, no user site) with this install's folder given
explicitly, from a neutral working folder. ``-P`` is not enough: an empty entry in
``PYTHONPATH`` still puts the current folder first, where a cloned repository's own
``lean_memory/`` or ``sitecustomize.py`` would run. :func:`argv` and :func:`sh_command`
build that command; nothing else should.
"""

from __future__ import annotations

import os
import sys
import time

from ._record import suppress
from .errors import LeanMemoryError
from .fsutil import ensure_dir

TYPE_CHECKING = False  # typing's own costs an import (this runs in the prompt hook)
if TYPE_CHECKING:
    from ._protocols import MemoryLike


# The folder holding this lean_memory package: the only one the processes we start import from.
HOME = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What an isolated process runs: sys.argv[1] is HOME (popped, so the CLI sees its own
# arguments), run() is the CLI's process entry. Only `sys` (built in) loads before our code.
ENTRY = ("import sys; sys.path.insert(0, sys.argv.pop(1)); "
         "from lean_memory.cli import run; sys.exit(run())")


def argv(*args: str, python: str | None = None, code: str = ENTRY) -> list[str]:
    """The isolated command line of ``lean-memory ARGS`` (or of ``code``, which then finds
    HOME in ``sys.argv[1]`` to pop) on ``python`` (this interpreter by default)."""
    return [python or sys.executable, "-I", "-c", code, HOME, *args]


_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-")


def sh_quote(value: str) -> str:
    """``value`` as one POSIX shell word: as it is when plain, else single-quoted
    (``shlex.quote``'s rule, without its regular expression)."""
    if value and all(c in _PLAIN for c in value):
        return value
    return "'" + value.replace("'", "'\"'\"'") + "'"


# This install's CLI module: a command we write runs our interpreter only while it and this
# file are there (a removed venv, an uninstall), else its fallback.
CLI_FILE = os.path.join(HOME, "lean_memory", "cli.py")


def sh_installed() -> str:
    """The ``sh`` test that this interpreter and this install are still there."""
    from pathlib import Path

    return (f"[ -x {sh_quote(Path(sys.executable).as_posix())} ] && "
            f"[ -f {sh_quote(Path(CLI_FILE).as_posix())} ]")


def sh_command(*args: str) -> str:
    """:func:`argv` as a POSIX shell command line (the interpreter as a forward-slash path;
    the hook files and git's config are read by ``sh``/``bash``, Git Bash on Windows)."""
    from pathlib import Path

    return " ".join(sh_quote(a) for a in argv(*args, python=Path(sys.executable).as_posix()))


# How a command we write runs pip's console script, its fallback where our interpreter or
# install is gone: that script is not isolated, so the variables that put folders on its
# sys.path go (`env -u`: GNU, BSD and busybox env have it).
PLAIN_ENV = "env -u PYTHONPATH -u PYTHONHOME -u PYTHONUSERBASE -u PYTHONPLATLIBDIR"


def clean_env() -> dict[str, str]:
    """The environment a started process gets: the caller's, every ``PYTHON*`` variable
    dropped (``-I`` ignores them; dropped so nothing the child starts inherits them). The
    rest stays on purpose: the product reads ``LEAN_MEMORY_*``, ``XDG_*``, ``HOME``,
    ``APPDATA``, ``OLLAMA_HOST`` to find the same global layer, cache and server."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("PYTHON")}


# Git run in a repository we do not trust names nothing its config could make it run (a
# file-system monitor) and keeps no untracked cache; git_env() adds no system or global
# config, no prompt, no optional locks, and C messages.
GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false")


def git_env() -> dict[str, str]:
    """The environment for git on a repository we do not trust (and parse the output of)."""
    env = {k: v for k, v in clean_env().items() if not k.upper().startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    return env


def git_argv(*args: str) -> list[str]:
    """The command line of ``git ARGS`` as we run it: :data:`GIT_SAFE` always."""
    return ["git", *GIT_SAFE, *args]


class Git:
    """What one ``git`` run gave: its exit ``code`` (None when git could not start or
    overran its time limit; ``error`` says which), its output and its error output."""

    __slots__ = ("code", "err", "error", "out")

    def __init__(self, code: int | None, out: bytes = b"", err: bytes = b"",
                 error: str = "") -> None:
        self.code, self.out, self.err, self.error = code, out, err, error

    @property
    def ok(self) -> bool:
        return self.code == 0

    @property
    def text(self) -> str:
        """The output as text (UTF-8, undecodable bytes replaced)."""
        return self.out.decode("utf-8", "replace")


def git(cwd: str, *args: str, timeout: float | None, cap: int | None = None,
        person: bool = False, stdin: bytes = b"") -> Git:
    """``git ARGS`` in ``cwd``: the one way lean_memory runs git (but for the scanner's
    streamed ``cat-file``, which uses :func:`git_argv` and :func:`git_config_env`).

    Every run has :data:`GIT_SAFE` (no program named by the repository's config) and
    ``stdin`` as its whole input (never the caller's terminal). By default git is isolated
    (:func:`git_env`: no system or global config, none of the caller's ``GIT_*``, C
    messages), for facts read from a repository (its history, its first commit).
    ``person=True`` keeps the caller's environment and git config, for what must see the
    repository as the person's git does: their global excludes file, their hooks path,
    the index a pre-commit hook is given (``GIT_INDEX_FILE``). Each caller names its time
    limit (``timeout``; None: none, git's time is the caller's) and ``cap``, the most
    output kept (bytes past it are dropped)."""
    import subprocess  # not at the top: this module is on the prompt hook's path, git never

    try:
        proc = subprocess.run(git_argv(*args), cwd=cwd, input=stdin, capture_output=True,
                              env=git_config_env(person), timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Git(None, error=f"git {_verb(args)} took over {timeout:g} s")
    except OSError as exc:
        return Git(None, error=f"cannot run git: {exc.strerror or exc}")
    return Git(proc.returncode, proc.stdout if cap is None else proc.stdout[:cap], proc.stderr)


def git_config_env(person: bool) -> dict[str, str] | None:
    """The environment of a :func:`git` run: the caller's (``person``) or :func:`git_env`."""
    return None if person else git_env()


def _verb(args: tuple[str, ...]) -> str:
    """The git command among ``args`` (past the global options and their values)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-c", "-C") else 1
    return args[i] if i < len(args) else "command"


def detached(mem: MemoryLike, marker: str, code: str, *args: str, stale_s: float = 600.0) -> bool:
    """Start ``python -I -c code`` detached, unless ``.cache/<marker>`` says one runs; True
    if started. ``code`` runs in the package's parent folder with ``sys.argv[1:]`` = the
    memory's root and ``args``, ``sys`` imported, and must remove the marker when it ends."""
    marker_path = os.path.join(mem._cache, marker)  # strings: no pathlib on the hook's path
    try:
        ensure_dir(mem._cache, mem._agents)
        try:
            if time.time() - os.lstat(marker_path).st_mtime < stale_s:
                return False
            os.unlink(marker_path)
        except FileNotFoundError:
            pass
        # O_EXCL: one winner among racing callers, and never through a link (ADR 0012).
        os.close(os.open(marker_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
    except (OSError, LeanMemoryError):
        return False
    env = clean_env()
    # Isolated (ADR 0033), started in our own folder (HOME), the caller's cwd (the repository)
    # left behind; our folder comes first on sys.path, by argument, not by PYTHONPATH.
    # (posix_spawn takes no cwd: the child moves there first; `os` is frozen, loaded anyway.)
    line = argv(os.path.abspath(mem._root), *args,  # a string: no pathlib on the hook path
                code="import os, sys; os.chdir(sys.argv[1]); sys.path.insert(0, sys.argv.pop(1)); "
                + code)
    try:
        if os.name == "nt":
            import subprocess

            subprocess.Popen(line, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=HOME, env=env,
                             creationflags=0x00000008)  # DETACHED_PROCESS
        else:
            # posix_spawn, not subprocess: subprocess imports threading, and threading first
            # imported in the prompt hook's worker thread takes it for the main thread, so
            # the hook would not exit at its time limit but wait for the worker (seconds at
            # 100k entries). Its own session, and nothing of the caller's stdout: a harness
            # reads that pipe to its end.
            _reap()
            null = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_RDWR, 0) for fd in (0, 1, 2)]
            _SPAWNED.append(os.posix_spawn(sys.executable, line, env, file_actions=null,
                                           setsid=True))
    except OSError:
        with suppress(OSError):
            os.unlink(marker_path)
        return False
    return True


_SPAWNED: list[int] = []  # processes this process started and has not reaped yet


def _reap() -> None:
    """Collect the children that ended (a long-lived caller would keep them as zombies)."""
    for pid in list(_SPAWNED):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == 0:
                continue
        except ChildProcessError:
            pass
        _SPAWNED.remove(pid)


EMBEDDING = "embed.running"  # the marker of the background embedder
_EMBED = ("import sys; from lean_memory.embedcmd import embed_in_background; "
          "from lean_memory.store import Memory; embed_in_background(Memory(sys.argv[1]))")


def embed_soon(mem: MemoryLike) -> bool:
    """After a put, when the semantic extra is on: give the new entries their vectors in
    a background process (bounded; ``lean-memory embed`` does the rest)."""
    c = mem.config
    if "ollama" not in c.retrievers or not c.ollama_embed_on_put:
        return False
    return detached(mem, EMBEDDING, _EMBED)
