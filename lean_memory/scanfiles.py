"""Scanning files, folders and git's index for secrets: the gate in front of a commit.

The gate fails closed (ADR 0010): every regular file is scanned whatever its size (in
overlapping chunks, read in blocks, so memory stays bounded); binaries are recognised as git
does (a NUL in the first 8,000 bytes) and counted; what cannot be scanned (unreadable, not a
regular file, gone) is an error, never a silent skip. Nothing that is not a regular file is
ever opened for reading, so a FIFO or a device cannot make a scan hang, and symlinks are
reported, never followed. A folder in a git work tree may be scanned as git sees it
(``.gitignore`` followed, by ``git ls-files``, with no program from the repository's config
run): a tracked file deleted from the work tree then has nothing to scan. Reported paths are
redacted, since a cloned repository may name a file after a credential.
:mod:`lean_memory.secrets` stays the pure text scanner.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import subprocess

from ._record import Record, replace
from .errors import LeanMemoryError
from .secrets import Allowlist, Finding, redact_path, scan_text
from .secrets import _path_allowed as path_allowed
from .spawn import git, git_argv, git_config_env

# Not typing.TYPE_CHECKING: see secrets.py.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import IO

__all__ = ["BINARY_PROBE", "ScanResult", "scan_paths", "scan_staged", "scan_stream"]

BINARY_PROBE = 8000  # git's own rule: a NUL in the first 8,000 bytes makes a file binary
CHUNK = 1 << 20  # characters scanned at once
# Re-scanned at the start of each chunk: longer than any secret we look for, a 16k-bit PEM
# key block included, so none is only ever seen cut in two.
OVERLAP = 1 << 16
_BLOCK = 1 << 16  # bytes per read
_SKIP_DIRS = frozenset({
    ".git", ".hg", ".svn", ".cache", "__pycache__", ".mypy_cache", ".pytest_cache",
    ".ruff_cache",
})  # fmt: skip
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"), (stat.S_ISDIR, "a folder"),
)  # fmt: skip
SYMLINK = "symlink, not followed"


class ScanResult(Record):
    """What a file scan found, and what it did not scan.

    ``skipped``: (path, reason) not scanned on purpose (symlinks); ``errors``: (path, reason)
    that could not be scanned, which fails the gate; ``binary``: how many binary files were
    recognised and not scanned; ``scanned``: how many files were scanned.
    """

    _fields = ("findings", "skipped", "errors", "binary", "scanned")
    __slots__ = _fields
    findings: tuple[Finding, ...]
    skipped: tuple[tuple[str, str], ...]
    errors: tuple[tuple[str, str], ...]
    binary: int
    scanned: int

    def __init__(self, findings: tuple[Finding, ...], skipped: tuple[tuple[str, str], ...] = (),
                 errors: tuple[tuple[str, str], ...] = (), binary: int = 0,
                 scanned: int = 0) -> None:
        self._init(findings, skipped, errors, binary, scanned)


class _Tally:
    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.skipped: list[tuple[str, str]] = []
        self.errors: list[tuple[str, str]] = []
        self.binary = 0
        self.scanned = 0

    def result(self) -> ScanResult:
        return ScanResult(tuple(self.findings), tuple(self.skipped), tuple(self.errors),
                          self.binary, self.scanned)

    def content(self, read: Callable[[int], bytes], path: str, allow: Allowlist | None) -> None:
        """Probe for a binary, then scan the rest as text."""
        head = _read_upto(read, BINARY_PROBE)
        if b"\0" in head:
            self.binary += 1
        else:
            self.scanned += 1
            found = scan_stream(read, path, allow=allow, head=head)
            if found:  # only then: redacting every path would cost more than most scans
                shown = redact_path(path)
                self.findings.extend(replace(f, path=shown) for f in found)

    def error(self, path: str, reason: str) -> None:
        self.errors.append((redact_path(path), reason))


def _read_upto(read: Callable[[int], bytes], n: int) -> bytes:
    parts: list[bytes] = []
    got = 0
    while got < n:
        data = read(n - got)
        if not data:
            break
        parts.append(data)
        got += len(data)
    return b"".join(parts)


def scan_stream(read: Callable[[int], bytes], path: str | None = None, *,
                allow: Allowlist | None = None, head: bytes = b"") -> list[Finding]:
    """Scan UTF-8 text of any length from ``read`` (called with a byte count, ``b""`` at the
    end; ``head`` is what was read already) in overlapping chunks; line numbers are the
    stream's own."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    findings: list[Finding] = []
    seen: set[tuple[str, int, str]] = set()
    seen_lines: set[tuple[str, int]] = set()
    buf = decoder.decode(head)
    line = 1  # the line number of buf[0]
    fresh = 0  # buf[:fresh] is the overlap, scanned with the previous chunk already
    eof = False
    while True:
        parts = [buf]
        size = len(buf)
        while not eof and size < CHUNK:
            data = read(_BLOCK)
            eof = not data
            text = decoder.decode(data, final=eof)
            parts.append(text)
            size += len(text)
        buf = "".join(parts)
        cut = len(buf)
        if not eof:
            cut = buf.rfind("\n") + 1  # whole lines, when there are
            if cut < len(buf) // 2:  # one huge line: cut it anywhere (windows overlap)
                cut = len(buf)
        overlap_end = line + buf.count("\n", 0, fresh)
        for f in scan_text(buf[:cut], allow=allow, path=path):
            at = f.line + line - 1
            key = (f.rule, at, f.fingerprint)
            if key in seen or (at <= overlap_end and (f.rule, at) in seen_lines):
                continue  # seen before, whole or cut short at the previous chunk's end
            seen.add(key)
            seen_lines.add((f.rule, at))
            findings.append(replace(f, line=at))
        if eof:
            return findings
        start = max(cut - OVERLAP, 0)
        nl = buf.find("\n", start, cut)
        if 0 <= nl < cut - 1:
            start = nl + 1  # the overlap starts a line, so its line numbers stay right
        line += buf.count("\n", 0, start)
        fresh = cut - start
        buf = buf[start:]


# -- files and folders ----------------------------------------------------------------------


def _reason(exc: OSError) -> str:
    if isinstance(exc, FileNotFoundError):
        return "no such file or directory"
    return f"unreadable ({exc.strerror or type(exc).__name__})"


def _not_regular(mode: int) -> str | None:
    """Why a file of this mode is not scanned, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return SYMLINK
    kind = next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")
    return f"not a regular file ({kind})"


def _walk(paths: Sequence[str | os.PathLike[str]],
          git_listing: bool = False) -> Iterator[tuple[str, str | None]]:
    """(path, None) for each regular file, (path, reason) for everything else met, in a
    stable order; symlinks are never followed (lstat only). With ``git_listing``, a folder
    in a git work tree yields what git would commit (``.gitignore`` followed)."""
    for p in paths:
        top = os.fspath(p)
        try:
            st = os.lstat(top)
        except OSError as exc:
            yield top, _reason(exc)
            continue
        if not stat.S_ISDIR(st.st_mode):
            yield top, _not_regular(st.st_mode)
            continue
        listed = _git_listing(top) if git_listing else None
        yield from _walk_dir(top) if listed is None else _walk_listed(top, listed)


# Git runs nothing from a repository's own config here (spawn.GIT_SAFE): a hostile clone (or
# an unpacked archive holding a .git folder) could name a program as its file-system
# monitor. The person's own git config and environment stay: core.excludesFile decides what
# is ignored, and a pre-commit hook is given the index to scan (GIT_INDEX_FILE). No time
# limit: the scan is what the person asked for, git's time is its time.
_PERSON = True


def _git_listing(folder: str) -> list[str] | None:
    """The files under ``folder`` that git tracks or would add (``.gitignore`` followed), as
    paths relative to it; None when git is absent, ``folder`` is not in a work tree, or the
    folder itself is ignored (it was named explicitly: walk it whole)."""
    try:
        inside = _git(["rev-parse", "--is-inside-work-tree"], folder)
        if inside.strip() != b"true" or _git_ignored(folder):
            return None
        raw = _git(["ls-files", "--cached", "--others", "--exclude-standard",
                    "-z", "--", "."], folder)
    except LeanMemoryError:
        return None
    names = {n.decode("utf-8", "surrogateescape") for n in raw.split(b"\0") if n}
    return sorted(names)


def _git_ignored(folder: str) -> bool:
    return git(folder, "check-ignore", "-q", "--", ".", timeout=None, person=_PERSON).ok


def _walk_listed(top: str, names: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """Each path git listed; a folder among them (a submodule, a nested repository) is
    listed by its own git in turn, and a tracked file deleted from the work tree has
    nothing to scan."""
    for name in names:
        if os.path.normpath(name) == ".":
            continue  # an empty submodule lists itself: nothing checked out, nothing to scan
        path = os.path.join(top, name.rstrip("/"))
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            yield path, _reason(exc)
            continue
        if stat.S_ISDIR(mode):
            yield from _walk([path], git_listing=True)
        else:
            yield path, _not_regular(mode)


def _walk_dir(top: str) -> Iterator[tuple[str, str | None]]:
    """A folder's files before its subfolders, each in name order (as ``os.walk``), without
    recursion: any depth of folders is fine."""
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            yield folder, _reason(exc)
            continue
        folders = []
        for e in entries:
            try:
                mode = e.stat(follow_symlinks=False).st_mode
            except OSError as exc:
                yield e.path, _reason(exc)
                continue
            if stat.S_ISDIR(mode):
                if e.name not in _SKIP_DIRS:
                    folders.append(e.path)
            else:
                yield e.path, _not_regular(mode)
        stack.extend(reversed(folders))


def _open_regular(path: str) -> int:
    """A descriptor on ``path`` if it still is a regular file: never blocks on a FIFO (it
    was swapped in after the walk looked) and never follows a symlink."""
    flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_BINARY", 0))
    fd = os.open(path, flags)
    why = _not_regular(os.fstat(fd).st_mode)
    if why is not None:
        os.close(fd)
        raise LeanMemoryError(why)
    return fd


def scan_paths(paths: Sequence[str | os.PathLike[str]], *,
               allow: Allowlist | None = None, all_files: bool = True) -> ScanResult:
    """Scan files and folders (recursively; VCS and cache folders left out).

    With ``all_files=False`` a folder inside a git work tree is scanned as git sees it
    (tracked files and untracked ones ``.gitignore`` does not exclude, as gitleaks and
    ripgrep do); outside one, or without git, it is walked whole. A file named in
    ``paths`` is always scanned. Reported paths are redacted (a file may be named after a
    credential).
    """
    tally = _Tally()
    for path, why in _walk(paths, git_listing=not all_files):
        shown = path.replace(os.sep, "/")
        if allow is not None and allow.paths and path_allowed(shown, allow):
            continue
        if why == SYMLINK:
            tally.skipped.append((redact_path(shown), why))
            continue
        if why is not None:
            tally.error(shown, why)
            continue
        try:
            with open(_open_regular(path), "rb", closefd=True) as fh:
                tally.content(fh.read, shown, allow)
        except LeanMemoryError as exc:
            tally.error(shown, str(exc))
        except OSError as exc:
            tally.error(shown, _reason(exc))
    return tally.result()


# -- git's index ----------------------------------------------------------------------------


def _git(args: Sequence[str], cwd: str) -> bytes:
    r = git(cwd, *args, timeout=None, person=_PERSON)
    if r.code is None:
        raise LeanMemoryError(r.error)
    if not r.ok:
        msg = r.err.decode("utf-8", "replace").strip().splitlines()
        raise LeanMemoryError(f"git {args[0]} failed: {msg[0] if msg else 'unknown error'}")
    return r.out


def _staged(top: str) -> list[tuple[str, str]]:
    """(path, blob id) of what the next commit adds or changes; submodules left out."""
    raw = _git(["diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev",
                "--diff-filter=ACMRT", "--no-ext-diff", "--no-color"], top)
    fields = raw.split(b"\0")
    out = []
    for meta, name in zip(fields[0::2], fields[1::2], strict=False):
        parts = meta.decode("ascii", "replace").split()
        if len(parts) < 4:
            continue
        if parts[1] == "160000":
            continue  # a submodule: its content is in another repository
        out.append((name.decode("utf-8", "surrogateescape"), parts[3]))
    return out


class _Blob:
    """Reads one blob's bytes, and no more, from ``git cat-file --batch``."""

    def __init__(self, out: IO[bytes], size: int) -> None:
        self.out = out
        self.left = size

    def read(self, n: int) -> bytes:
        data = self.out.read(min(n, self.left)) if self.left else b""
        if n and self.left and not data:
            raise LeanMemoryError("git cat-file stopped early")
        self.left -= len(data)
        return data


def scan_staged(cwd: str | os.PathLike[str] = ".", *,
                allow: Allowlist | None = None) -> ScanResult:
    """Scan the blobs staged in git's index (what the next commit will contain), streamed
    from one ``git cat-file --batch``, one blob at a time. Reported paths are redacted."""
    where = os.fspath(cwd)
    try:
        top = _git(["rev-parse", "--show-toplevel"], where).decode("utf-8", "replace").strip()
    except LeanMemoryError:
        raise LeanMemoryError(f"not a git repository: {where}") from None
    entries = [(n, o) for n, o in _staged(top)
               if not (allow is not None and allow.paths and path_allowed(n, allow))]
    tally = _Tally()
    if not entries:
        return tally.result()
    try:
        # streamed, one blob at a time: spawn.git's command line and environment, by hand
        proc = subprocess.Popen(git_argv("cat-file", "--batch"), cwd=top,
                                env=git_config_env(_PERSON), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as exc:
        raise LeanMemoryError(f"cannot run git: {exc.strerror or exc}") from None
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for name, oid in entries:
            proc.stdin.write(oid.encode("ascii") + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] != b"blob":
                tally.error(name, "not readable from git's index")
                continue
            blob = _Blob(proc.stdout, int(header[2]))
            tally.content(blob.read, name, allow)
            while blob.left:
                blob.read(_BLOCK)
            proc.stdout.read(1)  # the newline after each blob
    except (OSError, ValueError) as exc:
        raise LeanMemoryError(f"git cat-file failed: {type(exc).__name__}") from None
    finally:
        with contextlib.suppress(OSError):  # git may have gone already
            proc.stdin.close()
        proc.stdout.close()
        proc.wait()
    return tally.result()

