"""Durable file writes and a cross-process lock (ADR 0003)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from .errors import LeanMemoryError


def atomic_write(path: Path, data: str | bytes, *, durable: bool = True) -> None:
    """Replace ``path`` so that a crash leaves either the old or the new content.

    Temp file in the same folder (same file system, so the rename is atomic), flush,
    fsync, ``os.replace``, then fsync the folder so the rename itself is durable.
    ``durable=False`` skips both fsyncs, for files derived from others.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def write_cache(path: Path, data: bytes) -> bool:
    """Write a cache file (atomic, not fsynced); a failure, such as a read-only
    checkout, only costs speed, so it is reported by the return value alone."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, data, durable=False)
    except OSError:
        return False
    return True


def _fsync_dir(folder: Path) -> None:
    if sys.platform == "win32":  # folders cannot be opened for fsync there
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path, timeout: float = 30.0) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed) across processes.

    ``fcntl.flock`` on POSIX and ``msvcrt.locking`` on Windows; both are released by
    the OS when the process dies, so a killed writer never leaves a stale lock.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, path, timeout)
        try:
            yield
        finally:
            _release(fd)
    finally:
        os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _acquire(fd: int, path: Path, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                os.lseek(fd, 0, os.SEEK_SET)
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise LeanMemoryError(f"timed out waiting for the lock {path}") from None
                time.sleep(0.01)

    def _release(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _acquire(fd: int, path: Path, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LeanMemoryError(f"timed out waiting for the lock {path}") from None
                time.sleep(0.002)

    def _release(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
