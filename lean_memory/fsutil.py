"""File access at the memory folder's boundary: bounded reads, durable writes, the lock.

A cloned repository is untrusted input (ADR 0012): nothing here follows a symbolic link
below ``.agents/``, opens a FIFO or device, or reads more than a set limit. Durable writes
and the cross-process lock are ADR 0003.
"""

from __future__ import annotations

import errno
import marshal
import os
import stat
import sys
import time
from _operator import _compare_digest

from ._hash import blake2b
from ._record import contextmanager, suppress
from .errors import LeanMemoryError, ShardError

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    # collections.abc, contextlib: not at run time (functools and types with them, ~1 ms
    # of every hot command; ADR 0039)
    from collections.abc import Callable, Collection, Iterator, Sequence
    from typing import Any, BinaryIO, TypeAlias

    # Paths are strings inside the package (os.path; importing pathlib costs every command
    # ~8 ms): a Path from a caller is taken as it is.
    StrPath: TypeAlias = str | os.PathLike[str]

MAX_FILE_BYTES = 64 << 20  # a shard, an archive shard, INDEX.md, .gitignore
MAX_CONFIG_BYTES = 1 << 20
MAX_CACHE_BYTES = 512 << 20  # derived; over it, the cache is rebuilt
BOUNDARY = ".agents"

# Never follow a symlink, never block on a FIFO; binary on Windows (text mode translates).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_WRITE = _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
# Temp files of atomic_write: ".<name>.<8 chars>.tmp", the pattern tempfile.mkstemp made too.
_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _is_temp(name: str) -> bool:
    r"""Whether ``name`` is one of those temp files' names (regex ``\..+\.[a-z0-9_]{8}\.tmp``,
    told by str tests: a sweep looks at every file of a memory folder on every put)."""
    return (len(name) >= 15 and name[0] == "." and name.endswith(".tmp") and name[-13] == "."
            and not name[-12:-4].strip(_TEMP_CHARS) and "\n" not in name[1:-13])


class UnsafePath(ShardError):
    """A memory file or folder is a symbolic link, a special file or too large."""


def _parent(path: StrPath) -> str:
    """``Path(path).parent`` of a normalized path, as a string."""
    return os.path.dirname(path) or os.curdir


def boundary_of(path: StrPath) -> str | None:
    """The ``.agents`` folder ``path`` lies in (the nearest one), or None."""
    text = f"{os.sep}{os.fspath(path)}{os.sep}"  # strings: this runs on every file access
    at = text.rfind(f"{os.sep}{BOUNDARY}{os.sep}")
    return None if at < 0 else text[1: at + 1 + len(BOUNDARY)]


def _shown(path: StrPath, root: StrPath | None) -> str:
    """``path`` as the user knows it: relative to the repository when possible (as
    ``Path.relative_to(root.parent).as_posix()`` gives it, in strings)."""
    shown = os.fspath(path)
    if root is not None:
        top = os.path.dirname(os.fspath(root))
        if top in ("", os.curdir):
            return shown.replace(os.sep, "/") if not os.path.isabs(shown) else shown
        if shown == top:
            return "."
        prefix = top if top.endswith(os.sep) else top + os.sep
        if shown.startswith(prefix):
            return shown[len(prefix):].replace(os.sep, "/")
    return shown


def _link(path: StrPath, root: StrPath | None) -> UnsafePath:
    under = BOUNDARY if root is None else os.path.basename(os.fspath(root))
    return UnsafePath(f"refused: {_shown(path, root)} is a symbolic link; lean_memory follows "
                      f"no link under {under}/ (a cloned repository is untrusted)")


def _special(path: StrPath, root: StrPath | None) -> UnsafePath:
    return UnsafePath(f"refused: {_shown(path, root)} is not a regular file "
                      "(a FIFO, a device or a folder)")


def check_folders(folder: StrPath, root: StrPath | None = None) -> bool:
    """Refuse a symbolic link among the folders from the boundary ``root`` (inclusive;
    found from ``folder`` when None) down to ``folder``; True when they all exist."""
    root = boundary_of(folder) if root is None else root
    if root is None:
        return True
    top, here = os.fspath(root), os.fspath(folder)
    if here != top and not here.startswith(top + os.sep):
        return True  # not below the boundary: not ours to judge
    current = top
    for part in ("", *here[len(top) + 1:].split(os.sep)):
        current = f"{current}{os.sep}{part}" if part else current
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return False
        if stat.S_ISLNK(st.st_mode):
            raise _link(current, root)
    return True


def ensure_dir(folder: StrPath, root: StrPath | None = None) -> None:
    """``mkdir -p`` that never creates a folder through a symbolic link."""
    root = boundary_of(folder) if root is None else root
    if not check_folders(folder, root):
        os.makedirs(folder, exist_ok=True)
        check_folders(folder, root)  # a link made meanwhile is refused before any write


def read_bounded(path: StrPath, limit: int, root: StrPath | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Refuses (UnsafePath) a symbolic link at ``path`` or among its folders below the
    boundary ``root`` (the ``.agents`` folder ``path`` lies in when None), anything not a
    regular file, and a file over ``limit``; never blocks on a FIFO. A missing file raises
    FileNotFoundError, other failures OSError.
    """
    fd, st = _open_bounded(path, limit, root)
    try:
        return _read_rest(fd, st, limit, path, root)
    finally:
        os.close(fd)


def _read_rest(fd: int, st: os.stat_result, limit: int, path: StrPath,
               root: StrPath | None, head: bytes = b"") -> bytes:
    """``head`` (what was read of ``fd`` already) and the rest of ``fd``, at most
    ``limit`` bytes in all (:func:`read_bounded`'s loop)."""
    chunks = [head]
    left = limit + 1 - len(head)  # one byte over the limit tells a file that grew meanwhile
    want = min(st.st_size + 1 - len(head), left)
    while left > 0:
        chunk = os.read(fd, min(want, left))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
        want = 1 << 20
    if left <= 0:
        raise _too_large(path, boundary_of(path) if root is None else root, limit)
    return b"".join(chunks)


def read_text(path: StrPath, root: StrPath | None = None, limit: int = MAX_FILE_BYTES) -> str:
    """``path`` as UTF-8 text ('' when missing), read with the checks of ``read_bounded``;
    refuses (ShardError) what is not UTF-8: lean_memory never rewrites what it cannot read.

    Files of the work tree outside ``.agents/`` (CLAUDE.md, ``.gitattributes``) pass the
    resolved top level as ``root``: links below it are refused, the top itself is the
    user's business (a symlinked home or project folder)."""
    try:
        data = read_bounded(path, limit, root)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        raise ShardError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ShardError(f"{path} is not valid UTF-8 (byte {exc.start}); "
                         "fix or convert the file, lean_memory will not rewrite it") from None


def open_bounded(path: StrPath, limit: int, root: StrPath | None = None) -> BinaryIO:
    """``path`` opened for reading by offset, with the checks of ``read_bounded``; for
    files read in pieces (an index's postings, one entry of a shard)."""
    fd, _ = _open_bounded(path, limit, root)
    return open(fd, "rb", buffering=0)  # the caller closes it


def _open_bounded(path: StrPath, limit: int, root: StrPath | None) -> tuple[int, os.stat_result]:
    root = boundary_of(path) if root is None else root
    check_folders(_parent(path), root)
    if not _NOFOLLOW and os.path.islink(path):
        raise _link(path, root)
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) and os.path.islink(path):
            raise _link(path, root) from None
        if exc.errno == errno.ENXIO:  # a socket, or a device without a driver
            raise _special(path, root) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _special(path, root)
        if st.st_size > limit:
            raise _too_large(path, root, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def _too_large(path: StrPath, root: StrPath | None, limit: int) -> UnsafePath:
    size = f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"
    return UnsafePath(f"refused: {_shown(path, root)} is over {size}, far more than a memory "
                      "file holds")


def check_target(path: StrPath, root: StrPath | None = None) -> os.stat_result | None:
    """Refuse to write ``path`` through a symbolic link (at it or among its folders below
    ``root``) or over a special file; returns its current status, None if it is missing."""
    root = boundary_of(path) if root is None else root
    check_folders(_parent(path), root)
    return _check_file(path, root)


def _check_file(path: StrPath, root: StrPath | None) -> os.stat_result | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        raise _link(path, root)
    if not stat.S_ISREG(st.st_mode):
        raise _special(path, root)
    return st


def file_signature(path: StrPath) -> tuple[int, int, int]:
    """(size, mtime_ns, inode): changes on every write, atomic replace included."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return (-1, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def atomic_write(path: StrPath, data: str | bytes, *, durable: bool = True,
                 root: StrPath | None = None,
                 head: tuple[int, int] | None = None,
                 verify: Callable[[int], bool] | None = None) -> tuple[int, int, int]:
    """Replace ``path`` so that a crash leaves either the old or the new content.

    Temp file in the same folder (same file system, so the rename is atomic), flush,
    fsync, ``os.replace``, then fsync the folder so the rename itself is durable.
    ``durable=False`` skips both fsyncs, for files derived from others. Below a boundary
    (``root``, else the ``.agents`` folder ``path`` lies in) a symbolic link or special
    file is refused, never replaced. The file keeps its mode (a new one: 0644 less umask).
    ``head`` (an open file descriptor, a length): the new content starts with that many
    bytes of that file, copied by the kernel where it can (an append to a large shard).
    ``verify``: called with the temp file's descriptor once it is written, before the
    rename; False leaves ``path`` as it was and raises SourceChanged (the file ``head``
    copies from changed meanwhile, say).
    Returns the written file's (size, mtime_ns, inode), taken from the open file: a change
    made after the rename, by hand say, then shows as another signature.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    root = boundary_of(path) if root is None else root
    old = check_target(path, root) if root is not None else _status(path)
    fd, tmp = _temp_file(path)
    try:
        if old is not None and hasattr(os, "fchmod"):
            os.fchmod(fd, stat.S_IMODE(old.st_mode))
        if head is not None:
            _copy_head(head[0], fd, head[1])
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            if verify is not None and not verify(fh.fileno()):
                raise SourceChanged(f"{path} changed while it was being copied")
            if durable:
                os.fsync(fh.fileno())
            st = os.fstat(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(_parent(path))
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class SourceChanged(OSError):
    """What atomic_write copied from changed meanwhile (its ``verify`` said so)."""


def same_bytes(a: int, b: int, length: int) -> bool:
    """Whether the first ``length`` bytes of the open files ``a`` and ``b`` are equal."""
    done = 0
    while done < length:
        size = min(length - done, 1 << 20)
        chunk = os.pread(a, size, done)
        if not chunk or chunk != os.pread(b, size, done):
            return False
        done += len(chunk)
    return True


def _copy_head(src: int, dst: int, length: int) -> None:
    """Copy the first ``length`` bytes of ``src`` to ``dst`` at its position (kernel copy
    when the platform has one, else read and write); OSError if ``src`` is shorter."""
    done = 0
    copy = getattr(os, "copy_file_range", None)
    while done < length:
        n = 0
        if copy is not None:
            try:
                n = copy(src, dst, length - done, done)
            except OSError:  # another file system, an old kernel: do it by hand
                copy = None
                continue
        else:
            chunk = os.pread(src, min(length - done, 1 << 20), done)
            n = len(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(dst, view):]
        if n == 0:
            raise OSError(errno.EIO, "the file to copy from is shorter than expected")
        done += n


def _status(path: StrPath) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _temp_file(path: StrPath, mode: int = 0o644) -> tuple[int, str]:
    """A new temp file next to ``path``, created exclusively (so never through a link),
    with ``mode`` less the umask (0644: as any new file)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | _WRITE
    for _ in range(100):
        token = "".join(_TEMP_CHARS[b % len(_TEMP_CHARS)] for b in os.urandom(8))
        folder, name = os.path.split(path)
        tmp = os.path.join(folder, f".{name}.{token}.tmp")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name",
                          _parent(path))


# Every cache file starts with this and a keyed hash (BLAKE2b with the user's cache key,
# which lives outside the repository) of its name and body: a cache committed to a clone,
# or written by anyone without the key, is never believed (ADR 0012). A cache may only make
# an answer faster, never different.
CACHE_MAGIC = b"lmc1"
CACHE_TAG = 16
CACHE_PREFIX = len(CACHE_MAGIC) + CACHE_TAG
KEY_BYTES = 32
_KEY_NAME = "cache-key"
# Read once per key folder: a process whose HOME or XDG_CACHE_HOME changes (a test, an
# embedding program) seals with the key of the folder it names now, as its children do.
_keys: dict[str | None, bytes | None] = {}


def _key_dir() -> str | None:
    """The user's own cache folder for lean_memory (never inside a repository)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA", "")
        return os.path.join(base, "lean_memory") if os.path.isabs(base) else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):
        return os.path.join(xdg, "lean_memory")
    home = os.environ.get("HOME") or ""
    if not home:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            return None
    return os.path.join(home, ".cache", "lean_memory") if os.path.isabs(home) else None


def _read_key(path: StrPath) -> bytes | None:
    """The key at ``path`` if it is this user's private regular file of the right size
    (not a link: anyone able to plant or read it could forge a cache)."""
    fd = os.open(path, _READ)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != KEY_BYTES:
            return None
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o077):
            return None
        key = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    return key if len(key) == KEY_BYTES else None


def _new_key(folder: StrPath) -> bytes | None:
    """Create the key: a private temp file (0600, exclusive, no link followed), then
    linked into place, so racing processes all end up with the one that won."""
    os.makedirs(folder, mode=0o700, exist_ok=True)
    path = os.path.join(folder, _KEY_NAME)
    fd, tmp = _temp_file(path, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(KEY_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # no hard links here: rename, unless another process won
            if not os.path.lexists(path):
                os.replace(tmp, path)
    finally:
        with suppress(OSError):
            os.unlink(tmp)
    return _read_key(path)


def cache_key() -> bytes | None:
    """This user's cache key (created on first use), or None when it cannot be had (no
    home, a read-only one, a key file of the wrong owner or mode): then no cache is read
    or written, which costs speed only."""
    folder = _key_dir()
    if folder in _keys:
        return _keys[folder]
    key = None
    try:
        if folder is not None:
            try:
                key = _read_key(os.path.join(folder, _KEY_NAME))
            except FileNotFoundError:
                key = _new_key(folder)
    except (OSError, ValueError):
        key = None
    _keys[folder] = key
    return key


def cache_tag(name: str, body: bytes | memoryview) -> bytes | None:
    """The keyed hash of a cache file named ``name`` holding ``body``; None without a key."""
    key = cache_key()
    if key is None:
        return None

    h = blake2b(name.encode("utf-8", "surrogateescape"), key=key, digest_size=CACHE_TAG,
                person=b"lean_memory.c1")
    h.update(body)
    return h.digest()


def tag_matches(name: str, prefix: bytes, body: bytes | memoryview) -> bool:
    """Whether ``prefix`` (the first CACHE_PREFIX bytes of a cache file) is the magic and
    the tag of ``body`` under this user's key."""
    tag = cache_tag(name, body) if prefix[:len(CACHE_MAGIC)] == CACHE_MAGIC else None
    return tag is not None and _compare_digest(tag, prefix[len(CACHE_MAGIC):CACHE_PREFIX])


def sealed(name: str, data: bytes, covered: int | None = None) -> bytes | None:
    """``data`` as a file named ``name`` that only this user's processes believe: the
    magic and the tag of its first ``covered`` bytes (all by default) before it; None
    without a key."""
    tag = cache_tag(name, data if covered is None else memoryview(data)[:covered])
    return None if tag is None else b"".join((CACHE_MAGIC, tag, data))


def unsealed(name: str, raw: bytes) -> bytes | None:
    """What ``sealed`` sealed, or None if ``raw`` is not this user's file named ``name``."""
    body = memoryview(raw)[CACHE_PREFIX:]
    return raw[CACHE_PREFIX:] if tag_matches(name, raw, body) else None


def write_cache(path: StrPath, data: bytes, root: StrPath | None = None, *,
                covered: int | None = None) -> bool:
    """Write a cache file (atomic, not fsynced), sealed with this user's key (``covered``:
    a file read by offset has its tag cover the header its reader checks). A failure,
    such as a read-only checkout, a refused link or no key, only costs speed, so it is
    reported by the return value alone."""
    payload = sealed(os.path.basename(path), data, covered)
    if payload is None:
        return False
    try:
        ensure_dir(_parent(path), root)
        atomic_write(path, payload, durable=False, root=root)
    except (OSError, LeanMemoryError):
        return False
    return True


def read_cache(path: StrPath, root: StrPath | None = None) -> bytes | None:
    """A cache file's body, or None when it is missing, unsafe, unreadable, over the
    size limit (checked before reading), or not sealed with this user's key."""
    if cache_key() is None:
        return None
    try:
        fd, st = _open_bounded(path, MAX_CACHE_BYTES, root)
        try:  # a file that is not ours at all costs four bytes, not its size in memory
            head = os.read(fd, len(CACHE_MAGIC))
            ours = head == CACHE_MAGIC
            # the rest from the same open file: one open and one walk of the folders
            raw = _read_rest(fd, st, MAX_CACHE_BYTES, path, root, head) if ours else b""
        finally:
            os.close(fd)
    except (OSError, LeanMemoryError):
        return None
    return unsealed(os.path.basename(path), raw) if ours else None


def load_cache(path: StrPath, root: StrPath | None = None) -> object:
    """A ``marshal`` cache file's value, or None when it is missing, unsafe, unreadable,
    not this user's or damaged: a cache only ever costs speed. Callers check the
    value's shape."""
    raw = read_cache(path, root)
    try:
        return None if raw is None else marshal.loads(raw)
    except (EOFError, ValueError, TypeError):
        return None


def load_record(path: StrPath, key: object, fields: int,
                root: StrPath | None = None) -> list[Any] | None:
    """The ``fields`` values of a cache record written by :func:`dump_record` under ``key``:
    the one envelope of the marshal caches (its key first, a version or a header naming
    what the record was derived from; the file bounded and checked by :func:`read_cache`).
    None when missing, unsafe, damaged, or of another key or shape: a cache only ever costs
    speed. Callers check the fields' types."""
    got = load_cache(path, root)
    if isinstance(got, (list, tuple)) and len(got) == fields + 1 and got[0] == key:
        return list(got[1:])
    return None


def dump_record(path: StrPath, key: object, fields: Sequence[object],
                root: StrPath | None = None) -> bool:
    """Write the cache record :func:`load_record` reads; False when it was not written (a
    value marshal cannot hold, a read-only checkout): that only costs speed."""
    try:
        data = marshal.dumps([key, *fields])
    except ValueError:
        return False
    return write_cache(path, data, root)


def sweep(folder: StrPath, files: Collection[str] = (), folders: Collection[str] = (), *,
          older_than: float = 0.0, root: StrPath | None = None) -> int:
    """Prepare ``folder`` (its own folders already checked) for writing, holding the lock
    of whoever writes there: refuse (UnsafePath) one of ``files`` that is not a regular
    file or one of ``folders`` that is a symbolic link, and remove the temp files a
    crashed atomic_write left (only regular files of its own name pattern, modified over
    ``older_than`` seconds ago). Returns how many were removed."""
    root = boundary_of(folder) if root is None else root
    try:
        entries = list(os.scandir(folder))
    except FileNotFoundError:
        return 0
    removed = 0
    now = time.time()
    for entry in entries:
        if entry.name in files and (entry.is_symlink() or not entry.is_file()):
            raise (_link if entry.is_symlink() else _special)(entry.path, root)
        if entry.name in folders and entry.is_symlink():
            raise _link(entry.path, root)
        if not _is_temp(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= older_than:
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue
    return removed


def _open_regular(path: StrPath, root: StrPath | None) -> int:
    """A read-write descriptor of the regular file ``path`` (created if missing, with its
    folders), never opened through a link; for files changed in place (log, lock)."""
    root = boundary_of(path) if root is None else root
    ensure_dir(_parent(path), root)
    if not _NOFOLLOW:  # elsewhere the open below refuses links, fstat special files
        _check_file(path, root)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _WRITE, 0o644)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise _link(path, root) from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _special(path, root)
    return fd


def append_line(path: StrPath, line: str, *, limit: int, root: StrPath | None = None) -> None:
    """Append ``line`` to the log ``path``; past ``limit`` bytes only its newer half is
    kept. Never follows a symbolic link nor writes to a special file."""
    fd = _open_regular(path, root)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            os.lseek(fd, size - limit // 2, os.SEEK_SET)
            tail = os.read(fd, limit // 2)
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, tail)
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, line.encode("utf-8", "replace"))
    finally:
        os.close(fd)


def _fsync_dir(folder: StrPath) -> None:
    if sys.platform == "win32":  # folders cannot be opened for fsync there
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def file_lock(path: StrPath, timeout: float = 30.0, root: StrPath | None = None) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if needed) across processes.

    ``fcntl.flock`` on POSIX and ``msvcrt.locking`` on Windows; both are released by
    the OS when the process dies, so a killed writer never leaves a stale lock. The lock
    file is never opened through a symbolic link, nor as a special file.
    """
    fd = _open_regular(path, root)
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

    def _acquire(fd: int, path: StrPath, timeout: float) -> None:
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
    def _acquire(fd: int, path: StrPath, timeout: float) -> None:
        import fcntl  # here: a read takes no lock, and fcntl is a shared library to load

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
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)
