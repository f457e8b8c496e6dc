"""The memory folder: where its files are, its config, reading them within bounds, the lock.

The bottom layer of the store: :mod:`lean_memory.summaries` (what is known of the files) and
:mod:`lean_memory.store` (the ``Memory`` facade) build on :class:`Folder`; features take a
memory and read its files through it. No caches here.
"""

from __future__ import annotations

import os
import time

from . import format as fmt
from ._record import cached_property, contextmanager
from .config import RESERVED, SHARD_NAME, Config, load_config
from .errors import InvalidEntry, LeanMemoryError, NotInitialized, UnknownShard
from .fsutil import file_lock, read_text, sweep

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from .fsutil import StrPath
    from .secrets import Allowlist

Entry = fmt.Entry

DESCRIPTIONS = {
    "seed": "What to know before touching this project: purpose, layout, how to build and test.",
    "failures": "What broke, why, and the fix that worked.",
    "corrections": "Things that were believed or done wrong, and what is right instead.",
    "insights": "Lessons and patterns worth reusing.",
    "conventions": "Standing rules of this project (style, naming, process): follow them.",
    "quirks": "Surprises of tools, platforms and dependencies, with their workarounds.",
}
# The global store (the person's, for every project) in its own words where a project's
# would mislead: its new shard files' preamble and the rows of its INDEX.md.
GLOBAL_DESCRIPTIONS = {
    "seed": "What to know about you in every project: your setup, tools and preferences.",
    "conventions": "Your standing rules for every project (style, naming, process): follow them.",
}
# An entry's tags are metadata: bounded apart from the text's size guards (put and manage).
MAX_TAGS = 32
MAX_TAGS_CHARS = 1_000
TOO_MANY_TAGS = (f"too many tags: at most {MAX_TAGS} tags of {MAX_TAGS_CHARS:,} characters in "
                 "all; put the rest in the text")
GITIGNORE = (".cache/", ".*.tmp")  # the derived cache; temp files a crash left
# The intent journal of an unfinished compaction (lean_memory.compaction): the lock checks for
# it before importing that module (json and the planner), which it needs only then.
COMPACTION_JOURNAL = "compaction.journal"


def find_root(start: Path | None = None) -> Path:
    """``LEAN_MEMORY_ROOT``, else the nearest ancestor with ``.agents/memory``, else the
    git top level, else the working directory."""
    from pathlib import Path

    return Path(_find_root(start))


def _find_root(start: StrPath | None = None) -> str:
    """:func:`find_root` as a string (what the package works with: no pathlib)."""
    env = os.environ.get("LEAN_MEMORY_ROOT")
    if env:
        return pure_path(env)
    here = os.path.realpath(os.getcwd() if start is None else start)  # Path.resolve()
    chain = [here]
    while (parent := os.path.dirname(chain[-1])) != chain[-1]:
        chain.append(parent)
    for folder in chain:
        if os.path.isdir(os.path.join(folder, ".agents", "memory")):
            return folder
    for folder in chain:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return here


def pure_path(path: StrPath) -> str:
    """``str(pathlib.Path(path))`` without importing pathlib (on POSIX): repeated and
    trailing separators and ``.`` parts dropped, ``..`` kept, ``''`` is ``.``."""
    text = os.fspath(path)
    if os.name == "nt":  # drives, both separators: pathlib's own rules
        from pathlib import PurePath

        return str(PurePath(text))
    head = "//" if text.startswith("//") and not text.startswith("///") else \
        "/" if text.startswith("/") else ""
    parts = [p for p in text.split("/") if p and p != "."]
    return head + "/".join(parts) if head or parts else "."


def today() -> str:
    """The local date, as ``datetime.date.today().isoformat()`` gives it (without importing
    datetime, a few ms on every put)."""
    now = time.localtime()
    return f"{now.tm_year:04d}-{now.tm_mon:02d}-{now.tm_mday:02d}"


def check_date(date: str) -> str:
    import datetime

    if not isinstance(date, str) or not fmt.is_date(date):
        raise InvalidEntry(f"invalid date {date!r}: expected an absolute date YYYY-MM-DD")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise InvalidEntry(f"invalid date {date!r}: no such day") from None
    return date


class Folder:
    """The memory folder of ``root``: ``<root>/.agents/memory`` and its config."""

    # "global" for the global store (set by lean_memory.layers.global_memory): its new files
    # and INDEX.md speak of every project and give the commands with --global.
    layer = "project"

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        if root is not None and not isinstance(root, (str, os.PathLike)):
            raise LeanMemoryError(f"root must be a path, not {type(root).__name__}")
        # The package works with these strings (os.path): the public Path attributes below
        # are built on demand, so a command that never asks for one never imports pathlib.
        self._root = pure_path(root) if root is not None else _find_root()
        # (as pathlib joins: Path(".") / ".agents" is ".agents")
        self._agents = os.path.join("" if self._root == os.curdir else self._root, ".agents")
        self._dir = os.path.join(self._agents, "memory")
        self._archive = os.path.join(self._dir, "archive")
        self._cache = os.path.join(self._dir, ".cache")
        self._index = os.path.join(self._dir, "INDEX.md")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._root!r})"

    @cached_property
    def root(self) -> Path:
        from pathlib import Path

        return Path(self._root)

    @cached_property
    def agents_dir(self) -> Path:
        return self.root / ".agents"

    @cached_property
    def dir(self) -> Path:
        return self.agents_dir / "memory"

    @cached_property
    def archive_dir(self) -> Path:
        return self.dir / "archive"

    @cached_property
    def cache_dir(self) -> Path:
        return self.dir / ".cache"

    @cached_property
    def index_path(self) -> Path:
        return self.dir / "INDEX.md"

    # -- configuration and paths -------------------------------------------------

    @cached_property
    def config(self) -> Config:
        return load_config(os.path.join(self._agents, "config.toml"),
                           os.path.join(self._cache, "config.marshal"))

    @property
    def shards(self) -> tuple[str, ...]:
        return self.config.shards

    def shard_path(self, shard: str, *, archive: bool = False) -> Path:
        from pathlib import Path

        return Path(self._shard_file(shard, archive=archive))

    def _shard_file(self, shard: str, *, archive: bool = False) -> str:
        """:meth:`shard_path` as a string."""
        self._check_shard(shard)
        return os.path.join(self._archive if archive else self._dir, f"{shard}.md")

    def _check_shard(self, shard: str) -> None:
        if isinstance(shard, str) and shard in self.shards:
            return  # the config's names passed the checks below (config.parse_config)
        if not isinstance(shard, str) or not SHARD_NAME.fullmatch(shard) or shard in RESERVED:
            raise UnknownShard(f"invalid shard name {shard!r}: expected one of "
                               f"{', '.join(self.shards)}")
        if shard not in self.shards:
            raise UnknownShard(f"unknown shard {shard!r}: expected one of {', '.join(self.shards)}")

    def _require_init(self) -> None:
        if not os.path.isdir(self._dir):
            raise NotInitialized(f"no memory at {self._dir}: run `lean-memory init` first")

    @property
    def allowlist(self) -> Allowlist:
        from .secrets import Allowlist

        c = self.config
        return Allowlist(rules=frozenset(c.allow_rules), paths=c.allow_paths,
                         fingerprints=frozenset(c.allow_fingerprints))

    # -- reading ------------------------------------------------------------------

    def read_text(self, path: StrPath) -> str:
        """A memory file as text ('' when missing); refuses what is not UTF-8, and (as
        UnsafePath) a symbolic link, a special file or a file over the size limit."""
        return read_text(path, self._agents)

    def read_shard(self, shard: str, *, archive: bool = False) -> fmt.Shard:
        return fmt.parse(self.read_text(self._shard_file(shard, archive=archive)), shard)

    def entries(self, shard: str | None = None, *, archive: bool = False) -> list[Entry]:
        """Entries in file order (all shards in config order when ``shard`` is None)."""
        self._require_init()
        names = (shard,) if shard is not None else self.shards
        out: list[Entry] = []
        for name in names:
            out.extend(self.read_shard(name, archive=archive).entries)
        return out

    def _preamble(self, name: str) -> str:
        title = name.replace("-", " ").replace("_", " ").capitalize()
        what = (self.layer == "global" and GLOBAL_DESCRIPTIONS.get(name)) or \
            DESCRIPTIONS.get(name, f"Entries about {title.lower()}.")
        return f"# {title}\n\n{what}\n\n"

    @contextmanager
    def lock(self) -> Iterator[None]:
        """The writers' lock: hold it around every read-modify-write of the memory.

        On taking it, a symbolic link or special file where lean_memory writes is refused
        before anything is written, temp files of crashed writers are removed (those
        of the cache only when old: readers write the cache without the lock), and a
        compaction a crash interrupted is finished (or its damaged journal set aside).
        """
        root = self._agents
        # the lock checks .agents, memory, .cache
        with file_lock(os.path.join(self._cache, "lock"), root=root):
            shards = [f"{name}.md" for name in self.shards]
            sweep(self._dir, {"INDEX.md", ".gitignore", *shards}, {"archive"}, root=root)
            sweep(self._archive, shards, root=root)
            sweep(self._cache, older_than=3600.0, root=root)
            if os.path.lexists(os.path.join(self._cache, COMPACTION_JOURNAL)):
                self._recover()  # every writer first finishes a compaction a crash interrupted
            yield

    def _recover(self) -> None:
        """Finish the compaction whose journal is in ``.cache``: the facade's to do (it
        imports :mod:`lean_memory.compaction`, which sits above this module)."""
        raise NotImplementedError

