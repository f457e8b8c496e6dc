"""The memory store: shards on disk, the API that reads and writes them."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from . import format as fmt
from ._hash import blake2b
from ._lazyre import lazy
from .config import RESERVED, SHARD_NAME, Config, load_config
from .errors import InvalidEntry, LeanMemoryError, NotInitialized, ShardError, UnknownShard
from .fsutil import (
    MAX_FILE_BYTES,
    SourceChanged,
    atomic_write,
    ensure_dir,
    file_lock,
    load_cache,
    open_bounded,
    read_bounded,
    read_cache,
    same_bytes,
    sweep,
    write_cache,
)
from .fsutil import read_text as fsutil_read_text
from .tokens import estimate_tokens

if TYPE_CHECKING:
    from .compaction import CompactionReport
    from .search import Hit, Retriever
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
MAX_ENTRY_BYTES = 1_000_000  # checked before anything else, so a huge paste costs nothing
MAX_TITLE_CHARS = 120
MAX_TAGS = 32  # tags are metadata: bounded apart from the text's size guards
MAX_TAGS_CHARS = 1_000
TOO_MANY_TAGS = (f"too many tags: at most {MAX_TAGS} tags of {MAX_TAGS_CHARS:,} characters in "
                 "all; put the rest in the text")
_DATE = lazy(r"\d{4}-\d{2}-\d{2}")
_CLAUSE_END = lazy(r"[.:;!?](?=\s)")
_CONTROL = lazy(r"[\x00-\x08\x0a-\x1f\x7f]")
# Control characters an entry's text may not hold: all but tab, LF and CR (a NUL makes git
# call the shard binary, and then nothing scans or diffs it).
_TEXT_CONTROL = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# A lone surrogate (from undecodable bytes on a command line) cannot be written as UTF-8.
_SURROGATE = lazy(r"[\ud800-\udfff]")


@dataclass(frozen=True)
class ShardStatus:
    # A docstring: without one, @dataclass computes one with inspect.signature (~1 ms).
    """One shard's row of the status and of INDEX.md."""

    name: str
    description: str
    entries: int  # live entries
    superseded: int
    tokens: int


@dataclass(frozen=True)
class Status:
    """The memory's shards, token total, budget and compaction threshold."""

    shards: tuple[ShardStatus, ...]
    total_tokens: int
    token_budget: int
    compact_threshold: int

    @property
    def compaction_due(self) -> bool:
        return self.total_tokens > self.compact_threshold

    @property
    def entries(self) -> int:
        return sum(s.entries for s in self.shards)


def find_root(start: Path | None = None) -> Path:
    """``LEAN_MEMORY_ROOT``, else the nearest ancestor with ``.agents/memory``, else the
    git top level, else the working directory."""
    env = os.environ.get("LEAN_MEMORY_ROOT")
    if env:
        return Path(env)
    here = (start or Path.cwd()).resolve()
    chain = (here, *here.parents)
    for folder in chain:
        if (folder / ".agents" / "memory").is_dir():
            return folder
    for folder in chain:
        if (folder / ".git").exists():
            return folder
    return here


def today() -> str:
    """The local date, as ``datetime.date.today().isoformat()`` gives it (without importing
    datetime, a few ms on every put)."""
    import time

    now = time.localtime()
    return f"{now.tm_year:04d}-{now.tm_mon:02d}-{now.tm_mday:02d}"


def check_date(date: str) -> str:
    import datetime

    if not isinstance(date, str) or not _DATE.fullmatch(date):
        raise InvalidEntry(f"invalid date {date!r}: expected an absolute date YYYY-MM-DD")
    try:
        datetime.date.fromisoformat(date)
    except ValueError:
        raise InvalidEntry(f"invalid date {date!r}: no such day") from None
    return date


def default_title(text: str) -> str:
    """The first clause of the first non-empty line, without Markdown markers, cut at a word."""
    for line in text.splitlines():
        line = line.strip().lstrip("#>*-+ \t").strip().strip("`")
        if line:
            break
    else:
        line = "Untitled"
    line = " ".join(line.split())
    clause = _CLAUSE_END.search(line, 16)
    if clause is not None and clause.start() <= 80:
        line = line[: clause.start()]
    if len(line) > 80:
        cut = line[:80].rsplit(" ", 1)[0] or line[:80]
        line = cut.rstrip(" ,;:.") + "…"
    return line


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used to spot an entry said again."""
    return " ".join(text.casefold().split())


_STATUS_VERSION = "lean_memory.status/1"  # .cache/status.marshal: status() rows
# The intent journal of an unfinished compaction (lean_memory.compaction): a put checks for it
# before importing that module (json and the planner), which it needs only then.
COMPACTION_JOURNAL = "compaction.journal"

# 4: said-again signatures of ADR 0014; 5: a header (signature, entries), tails
_STATS_VERSION = "lean_memory.stats/5"
_TAIL_VERSION = "lean_memory.stats-tail/1"
_STATE_VERSION = "lean_memory.put-state/2"
_TAIL_MAX = 64  # entries a stats tail holds before it is merged (or 1/8 of the shard's)


def _stats_head(raw: bytes | None) -> tuple[int, tuple[int, int, int], int] | None:
    """(where the summary starts, signature, entries) of a stats file: its header alone is
    read, so a put can tell which file a tail extends without loading the summary."""
    import marshal

    if raw is None or len(raw) < 8:
        return None
    size = int.from_bytes(raw[:8], "little")
    try:
        head = marshal.loads(raw[8:8 + size])
    except (EOFError, ValueError, TypeError):
        return None
    if not (isinstance(head, tuple) and len(head) == 3 and head[0] == _STATS_VERSION):
        return None
    return 8 + size, tuple(head[1]), head[2]


def _with_tail(fields: tuple[Any, ...], tail: tuple[Any, ...]) -> tuple[Any, ...]:
    """The summary fields of a stats file with its tail's entries appended."""
    costs = fields[3] if tail[6] is None else (*fields[3][:-1], tail[6])
    return (fields[0], tail[4], (*fields[2], *tail[7]), (*costs, *tail[8]), fields[4],
            tail[5])


def _has_record(blob: bytes, record: bytes) -> bool:
    """Whether ``blob``, records of ``len(record)`` bytes end to end, holds ``record``."""
    at = blob.find(record)
    while at >= 0:
        if at % len(record) == 0:
            return True
        at = blob.find(record, at + 1)
    return False


class Summary(NamedTuple):
    """What INDEX.md, status and put need of a shard, cached by file signature."""

    description: str
    tokens: int
    links: tuple[tuple[str, str, str], ...]  # (id, date, supersedes) per entry, "" if none
    # Per entry: (digest of its raw text, tokens, digest of its normalised main text, its
    # near-duplicate signature or None while not computed). What lets a put append
    # without parsing the shard (see Memory._append_fast).
    costs: tuple[tuple[bytes, int, bytes, bytes | None], ...] = ()
    hand: int = 0  # entries without a metadata line (a write must stamp them)
    preamble_tokens: int = 0

    @classmethod
    def of(cls, shard: fmt.Shard, known: Summary | None = None, *,
           signatures: bool = False) -> Summary:
        """Summarise ``shard``, re-estimating only entries ``known`` has not seen; with
        ``signatures``, also compute the near-duplicate signatures still missing."""
        from .dedup import main_text, signature

        memo = {c[0]: c for c in known.costs} if known is not None else {}
        costs = []
        for e in shard.entries:
            raw_key = _digest(e.raw)
            cost = memo.get(raw_key)
            if cost is None:
                cost = (raw_key, estimate_tokens(e.raw),
                        _digest(normalize(main_text(e.text))), None)
            if signatures and cost[3] is None:
                cost = (*cost[:3], signature(e.text))
            costs.append(cost)
        preamble = estimate_tokens(shard.preamble)
        return cls(shard.description, preamble + sum(c[1] for c in costs),
                   tuple((e.id, e.date or "", e.supersedes or "") for e in shard.entries),
                   tuple(costs), sum(1 for e in shard.entries if not e.has_meta), preamble)


def _last_entry_start(data: bytes, want: bytes | None) -> int | None:
    """Where the last entry of the shard file ``data`` starts (a byte offset), found from
    the end without scanning or decoding the whole shard: the suffix from a ``## `` line
    must be the last entry's raw text, as the summary's digest of it proves (so that line is
    a real heading, outside any fence). ``want``: that digest (None: no entry). None when
    not found that way."""
    if want is None:
        return None
    end = len(data)
    for _ in range(32):  # "## " lines inside the last entry's own code blocks
        at = data.rfind(b"\n## ", 0, end)
        if at < 0:
            found = data.startswith(b"## ") and blake2b(data, digest_size=8).digest() == want
            return 0 if found else None
        if blake2b(data[at + 1:], digest_size=8).digest() == want:
            return at + 1
        end = at
    return None


def _count_lines(data: bytes, end: int) -> int:
    """fmt.count_lines of the text ``data[:end]`` (UTF-8) encodes, without decoding it."""
    lone = data.count(b"\r", 0, end)  # nearly always 0: skip counting the pairs
    return data.count(b"\n", 0, end) + (lone - data.count(b"\r\n", 0, end) if lone else 0)


_RACY_NS = 2_000_000_000  # over any file system's time stamp granularity (1 s on HFS+)


def _unchanged(fd: int, st: os.stat_result, began: int, tmp: int, offset: int,
               data: bytes, copied: int) -> bool:
    """Whether the file open as ``fd`` (status ``st`` taken at ``began``, ``data`` read
    from ``offset``) is still what a quick put read, now that its first ``copied`` bytes,
    which the put did not read, are copied to ``tmp``: else the new file would splice two
    versions of the shard. A change since shows in the times (an edit in place changes
    the mtime, a forged mtime the ctime) unless the file was changed within the clock's
    granularity of ``began``: then the bytes themselves are compared (in the page cache)."""
    now = os.fstat(fd)
    if (now.st_size, now.st_mtime_ns, now.st_ctime_ns, now.st_ino, now.st_dev) != \
            (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev):
        return False
    if began - max(st.st_mtime_ns, st.st_ctime_ns) > _RACY_NS:
        return True
    return os.pread(fd, len(data) + 1, offset) == data and same_bytes(fd, tmp, copied)


def _digest(text: str) -> bytes:
    return blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class _FramedIds:
    """Membership in ids kept as one string, each id on its own line (``"\\na\\nb\\n"``):
    a substring search in C, instead of a set built from every entry of the memory."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str) and f"\n{item}\n" in self.text


def hidden_ids(links: Iterable[tuple[str, str, str]]) -> set[str]:
    """Ids superseded by another entry; when two conflict, the newest dated wins."""
    pool = list(links)
    dates = {entry_id: date for entry_id, date, _ in pool}
    return {target for _, date, target in pool
            if target and target in dates and not dates[target] > date}


def file_signature(path: Path) -> tuple[int, int, int]:
    """(size, mtime_ns, inode): changes on every write, atomic replace included."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return (-1, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class Memory:
    """A memory rooted at ``root``: ``<root>/.agents/memory`` and its config."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *,
                 retrievers: Sequence[Retriever] | None = None) -> None:
        if root is not None and not isinstance(root, (str, os.PathLike)):
            raise LeanMemoryError(f"root must be a path, not {type(root).__name__}")
        self.root = Path(root) if root is not None else find_root()
        self.agents_dir = self.root / ".agents"
        self.dir = self.agents_dir / "memory"
        self.archive_dir = self.dir / "archive"
        self.cache_dir = self.dir / ".cache"
        self.index_path = self.dir / "INDEX.md"
        self._retrievers = list(retrievers) if retrievers is not None else None
        self._stats: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"Memory({str(self.root)!r})"

    # -- configuration and paths -------------------------------------------------

    @cached_property
    def config(self) -> Config:
        return load_config(self.agents_dir / "config.toml", self.cache_dir / "config.marshal")

    @property
    def shards(self) -> tuple[str, ...]:
        return self.config.shards

    def shard_path(self, shard: str, *, archive: bool = False) -> Path:
        self._check_shard(shard)
        return (self.archive_dir if archive else self.dir) / f"{shard}.md"

    def _check_shard(self, shard: str) -> None:
        if not isinstance(shard, str) or not SHARD_NAME.fullmatch(shard) or shard in RESERVED:
            raise UnknownShard(f"invalid shard name {shard!r}: expected one of "
                               f"{', '.join(self.shards)}")
        if shard not in self.shards:
            raise UnknownShard(f"unknown shard {shard!r}: expected one of {', '.join(self.shards)}")

    def _require_init(self) -> None:
        if not self.dir.is_dir():
            raise NotInitialized(f"no memory at {self.dir}: run `lean-memory init` first")

    @property
    def allowlist(self) -> Allowlist:
        from .secrets import Allowlist

        c = self.config
        return Allowlist(rules=frozenset(c.allow_rules), paths=c.allow_paths,
                         fingerprints=frozenset(c.allow_fingerprints))

    # -- reading ------------------------------------------------------------------

    def read_text(self, path: Path) -> str:
        """A memory file as text ('' when missing); refuses what is not UTF-8, and (as
        UnsafePath) a symbolic link, a special file or a file over the size limit."""
        return fsutil_read_text(path, self.agents_dir)

    def _read_bytes(self, path: Path) -> bytes:
        """What read_text decodes (b"" when missing), with its checks."""
        try:
            return read_bounded(path, MAX_FILE_BYTES, self.agents_dir)
        except FileNotFoundError:
            return b""
        except OSError as exc:
            raise ShardError(f"cannot read {path}: {exc.strerror}") from None

    def read_shard(self, shard: str, *, archive: bool = False) -> fmt.Shard:
        return fmt.parse(self.read_text(self.shard_path(shard, archive=archive)), shard)

    def entries(self, shard: str | None = None, *, archive: bool = False) -> list[Entry]:
        """Entries in file order (all shards in config order when ``shard`` is None)."""
        self._require_init()
        names = (shard,) if shard is not None else self.shards
        out: list[Entry] = []
        for name in names:
            out.extend(self.read_shard(name, archive=archive).entries)
        return out

    def superseded_ids(self, entries: Iterable[Entry] | None = None) -> set[str]:
        """Ids named by an entry's ``supersedes`` (unless the named entry is newer)."""
        if entries is None:
            return hidden_ids(self._all_links())
        return hidden_ids((e.id, e.date or "", e.supersedes or "") for e in entries)

    def _all_links(self) -> list[tuple[str, str, str]]:
        """The links of every shard file: from its cached summary when still valid, else
        from a parse alone (a summary also estimates every entry's tokens: five times the
        cost, too much for a prompt hook on a fresh clone of a large memory)."""
        out: list[tuple[str, str, str]] = []
        for archive in (False, True):
            for name in self.shards:
                path = self.shard_path(name, archive=archive)
                sig = file_signature(path)
                hit = self._stat(f"archive/{name}" if archive else name)
                try:
                    if hit is not None and hit[0] == sig:
                        out.extend(Summary(*hit[1]).links)
                        continue
                except TypeError:  # a summary from another version
                    pass
                out.extend((e.id, e.date or "", e.supersedes or "")
                           for e in fmt.parse(self.read_text(path), name).entries)
        return out

    def _links(self, live: dict[str, Summary]) -> list[tuple[str, str, str]]:
        """(id, date, supersedes) of every entry, archived ones included: a correction
        folded into the archive still hides what it corrected."""
        archived = self._summaries({}, archive=True)
        return [link for s in (*live.values(), *archived.values()) for link in s.links]

    def _summaries(self, fresh: Mapping[str, fmt.Shard], *, archive: bool = False,
                   signatures: bool = False) -> dict[str, Summary]:
        """Per-shard summaries: from the stats cache when the file's (size, mtime, inode)
        still match, else from the ``fresh`` shard in hand, else parsed anew."""
        out: dict[str, Summary] = {}
        for name in self.shards:
            path = self.shard_path(name, archive=archive)
            key = f"archive/{name}" if archive else name
            sig = file_signature(path)  # before reading: a later change then shows as stale
            hit = self._stat(key)
            try:
                known = Summary(*hit[1]) if hit is not None else None
            except TypeError:  # a cache from another version: start afresh
                known = hit = None
            if known is not None and hit is not None and hit[0] == sig:
                out[name] = known
                continue
            shard = fresh[name] if name in fresh else fmt.parse(self.read_text(path), name)
            summary = Summary.of(shard, known, signatures=signatures and name in fresh)
            out[name] = summary
            self._keep_stat(key, sig, summary)
        return out

    def _stat(self, key: str) -> Any:
        """The cached (signature, summary) of one shard file (``key``: its name, or
        ``archive/<name>``), read from its stats file (and the tail of entries a fast put
        appended since) on first use; None if none."""
        import marshal

        stats = self._stats if self._stats is not None else {}
        self._stats = stats
        if key not in stats:
            raw = read_cache(self._stat_path(key), self.agents_dir)
            head = _stats_head(raw)
            hit = None
            try:
                if raw is not None and head is not None:
                    hit = (head[1], tuple(marshal.loads(memoryview(raw)[head[0]:])))
            except (EOFError, ValueError, TypeError):
                hit = None
            tail = self._stat_tail(key) if hit is not None and head is not None else None
            if hit is not None and head is not None and tail is not None \
                    and tail[1:3] == (hit[0], head[2]):
                hit = (tail[3], _with_tail(hit[1], tail))
            stats[key] = hit
        return stats[key]

    def _stat_tail(self, key: str) -> Any:
        """The tail of a shard's stats: what fast puts appended since its stats file was
        written, as (version, base signature, base entries, signature, tokens, preamble
        tokens, new cost of the base's last entry or None, links, costs); None if none."""
        tail = load_cache(self._stat_path(key, tail=True), self.agents_dir)
        ok = isinstance(tail, tuple) and len(tail) == 9 and tail[0] == _TAIL_VERSION
        return tail if ok else None

    def _keep_stat(self, key: str, sig: tuple[int, int, int], summary: Summary) -> None:
        # One file per shard file: a put rewrites the summary of the shard it wrote only.
        import marshal

        if self._stats is None:
            self._stats = {}
        self._stats[key] = (sig, tuple(summary))
        head = marshal.dumps((_STATS_VERSION, sig, len(summary.links)))
        write_cache(self._stat_path(key), b"".join((
            len(head).to_bytes(8, "little"), head, marshal.dumps(tuple(summary)))))
        with contextlib.suppress(OSError):
            os.unlink(self._stat_path(key, tail=True))  # void anyway: another base

    def _stat_path(self, key: str, *, tail: bool = False) -> Path:
        # Shard names are [a-z0-9_-] (config.SHARD_NAME): safe as part of a file name.
        kind, _, name = key.rpartition("/")
        return self.cache_dir / f"stats-{kind or 'live'}-{name}{'.tail' if tail else ''}.marshal"

    def get_memory(self, shard: str | None = None, *, query: str | None = None,
                   k: int = 5) -> str:
        """INDEX.md, a whole shard, or the top-``k`` entries for ``query``, as Markdown."""
        self._require_init()
        _ = self.config  # a broken config is an error here too, as for every command
        if query is not None:
            from .search import render_hits

            return render_hits(self.search(query, k=k, shards=(shard,) if shard else None))
        from .withhold import read_shown  # an entry holding a credential is withheld

        return read_shown(self, shard)[0]

    def search(self, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
               include_archive: bool | None = None) -> list[Hit]:
        """The ``k`` entries that best match ``query``, archived ones too unless
        ``include_archive=False`` or the config's ``search_archive = false`` (see
        :mod:`lean_memory.search`)."""
        from .search import search

        return search(self, query, k=k, shards=shards, include_archive=include_archive)

    def status(self) -> Status:
        self._require_init()
        # The rows are remembered for one exact set of shard file signatures: at 100k
        # entries, reading every summary's links and working out the superseded ones
        # costs more than the rest of the command. After a put, its put state has them.
        import marshal

        key = [_STATUS_VERSION, _STATS_VERSION, list(self.shards),
               [file_signature(self.shard_path(name, archive=archive))
                for archive in (False, True) for name in self.shards]]
        path = self.cache_dir / "status.marshal"
        cached = load_cache(path, self.agents_dir)
        if isinstance(cached, list) and len(cached) == 2 and cached[0] == key:
            try:
                shards = tuple(ShardStatus(*row) for row in cached[1])
            except TypeError:  # rows of another shape
                shards = None
            if shards is not None:
                c = self.config
                return Status(shards, sum(r.tokens for r in shards), c.token_budget,
                              c.compact_threshold)
        state = self._load_state()  # the rows of the last put, while no file changed since
        if state is not None:
            st = self._state_status(state[0], state[2])
        else:
            st = self._status({})
            # kept like the stats (without the lock, as readers do): signatures taken
            # before each file was read, so a change meanwhile voids it
            self._save_state(st)
        rows = tuple((r.name, r.description, r.entries, r.superseded, r.tokens)
                     for r in st.shards)
        write_cache(path, marshal.dumps([key, rows]))
        return st

    def _status(self, fresh: dict[str, fmt.Shard], *, signatures: bool = False) -> Status:
        """Status from the shards, reusing ``fresh`` shards already in hand."""
        return self._status_of(self._summaries(fresh, signatures=signatures))

    def _status_of(self, summaries: Mapping[str, Summary],
                   archived: Mapping[str, Summary] | None = None) -> Status:
        """Status from per-shard summaries (the archive's read from disk unless given)."""
        if archived is None:
            archived = self._summaries({}, archive=True)
        hidden = hidden_ids(link for s in (*summaries.values(), *archived.values())
                            for link in s.links)
        rows = []
        for name, s in summaries.items():
            gone = sum(1 for link in s.links if link[0] in hidden)
            rows.append(ShardStatus(name, s.description or DESCRIPTIONS.get(name, ""),
                                    len(s.links) - gone, gone, s.tokens))
        c = self.config
        return Status(tuple(rows), sum(r.tokens for r in rows), c.token_budget,
                      c.compact_threshold)

    # -- writing ------------------------------------------------------------------

    def init(self) -> list[Path]:
        """Create the memory folder, default shards, INDEX.md and .gitignore; idempotent."""
        for folder in (self.root, self.agents_dir, self.dir, self.archive_dir):
            if folder.exists() and not folder.is_dir() and not folder.is_symlink():
                from .secrets import redact_path

                raise LeanMemoryError(
                    f"cannot init: {redact_path(str(folder))} is a file, not a folder")
        created: list[Path] = []
        for folder in (self.dir, self.archive_dir):
            if not folder.is_dir():
                ensure_dir(folder, self.agents_dir)
                created.append(folder)
        with self.lock():
            gitignore = self.dir / ".gitignore"
            current = self.read_text(gitignore)
            have = {line.strip() for line in current.splitlines()}
            missing = [line for line in GITIGNORE if line not in have]
            if missing:  # a generated file of an older version gains the lines it lacks
                if not current:
                    created.append(gitignore)
                atomic_write(gitignore, _with_lines(current, missing), root=self.agents_dir)
            for name in self.shards:
                path = self.shard_path(name)
                if not path.exists():
                    atomic_write(path, self._preamble(name))
                    created.append(path)
            existed = self.index_path.exists()
            self.write_index({})
            if not existed:
                created.append(self.index_path)
        return created

    @staticmethod
    def _preamble(name: str) -> str:
        title = name.replace("-", " ").replace("_", " ").capitalize()
        what = DESCRIPTIONS.get(name, f"Entries about {title.lower()}.")
        return f"# {title}\n\n{what}\n\n"

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """The writers' lock: hold it around every read-modify-write of the memory.

        On taking it, a symbolic link or special file where lean_memory writes is refused
        before anything is written, temp files of crashed writers are removed (those
        of the cache only when old: readers write the cache without the lock), and a
        compaction a crash interrupted is finished (or its damaged journal set aside).
        """
        root = self.agents_dir
        with file_lock(self.cache_dir / "lock", root=root):  # checks .agents, memory, .cache
            shards = [f"{name}.md" for name in self.shards]
            sweep(self.dir, {"INDEX.md", ".gitignore", *shards}, {"archive"}, root=root)
            sweep(self.archive_dir, shards, root=root)
            sweep(self.cache_dir, older_than=3600.0, root=root)
            if os.path.lexists(self.cache_dir / COMPACTION_JOURNAL):
                from .compaction import recover

                recover(self)  # every writer first finishes a compaction a crash interrupted
            yield

    def put_entry(self, shard: str, text: str, *, title: str | None = None,
                  tags: Iterable[str] = (), date: str | None = None,
                  supersedes: str | None = None, new: bool = False) -> Entry:
        """Add an entry and return it; an entry said again is updated, not copied
        (unless ``new``). Everything is validated and scanned before anything is written.
        """
        self._check_shard(shard)
        if supersedes is not None and not isinstance(supersedes, str):
            raise InvalidEntry("supersedes must be an entry id (a string)")
        if not isinstance(tags, Iterable):
            raise InvalidEntry("tags must be a list of words")
        text, title, tag_tuple, date = self._validate(text, title, tags, date)
        self._scan(title, text, tag_tuple)
        self._require_init()
        with self.lock():
            quick = None if supersedes is not None else self._put_quick(
                Entry(id="", shard=shard, title=title, text=text, date=date, tags=tag_tuple),
                new=new)
            if quick is not None:
                stored, status = quick
            else:
                summaries = self._summaries({})
                live_ids = {link[0] for s in summaries.values() for link in s.links}
                if supersedes is not None and supersedes not in live_ids:
                    raise InvalidEntry(f"supersedes {supersedes!r}: no entry has that id")
                links = self._links(summaries)
                taken = {link[0] for link in links}  # archived ids too: never reuse one
                entry = Entry(id=fmt.new_id(shard, title, text, date, taken), shard=shard,
                              title=title, text=text, date=date, tags=tag_tuple,
                              supersedes=supersedes)
                fast = self._append_fast(entry, summaries[shard],
                                         lambda after: self._status_of({**summaries,
                                                                        shard: after}),
                                         dedup=not new and not supersedes)
                if fast is not None:
                    stored, status = fast
                else:
                    stored, status = self._put_parsed(entry, summaries, links, taken, new=new)
                self._save_state(status)
        if status.compaction_due and self.config.auto_compact:
            import contextlib

            # The entry is stored: a failed compaction stays due and the next write retries.
            with contextlib.suppress(LeanMemoryError):
                self.compact()
        return stored

    def _put_parsed(self, entry: Entry, summaries: dict[str, Summary],
                    links: list[tuple[str, str, str]], taken: set[str],
                    *, new: bool) -> tuple[Entry, Status]:
        """The general put: parse the shard, record a repeat or append, stamp hand-written
        entries; returns the entry and the memory's status after it. Holds the lock."""
        shard, text, date, supersedes = entry.shard, entry.text, entry.date or "", entry.supersedes
        path = self.shard_path(shard)
        parsed = fmt.parse(self.read_text(path), shard)
        if supersedes is not None:
            # A retried correction (its acknowledgement lost) is the entry already stored.
            same = next((e for e in parsed.entries if e.supersedes == supersedes
                         and e.text == text and e.get("compacted") is None), None)
            if same is not None:
                return same, self._status_of(summaries)
        # ids carried outside this shard (other shards, the archive)
        elsewhere = {link[0] for link in links} - {e.id for e in parsed.entries}
        elsewhere |= {link[0] for s in self._summaries({}, archive=True).values()
                      for link in s.links}
        hidden = hidden_ids(links)
        from .dedup import add_said_again, find_near_duplicate, main_text

        key = normalize(text)
        twin = next((e for e in parsed.entries if e.id not in hidden
                     and e.get("compacted") is None and normalize(main_text(e.text)) == key),
                    None)
        if twin is None and supersedes is None and not new:
            near = find_near_duplicate(
                text, [e for e in parsed.entries if e.id not in hidden])
            if near is not None:
                twin = add_said_again(near, text, date)
        if twin is not None and supersedes is None and not new:
            stored = self._said_again(twin, date)
            result = fmt.Shard(shard, parsed.preamble,
                               tuple(self._updated(parsed, {twin.id: stored}, date, taken,
                                                   elsewhere)))
            stored = next(e for e in result.entries if e.id == stored.id)
        else:
            stored = self._append(shard, parsed.render(), entry)
            result = fmt.Shard(shard, *_appended(
                parsed, self._updated(parsed, {}, date, taken | {stored.id}, elsewhere),
                stored))
            stored = result.entries[-1]
        # with the signatures, the next put to this shard can take the fast path
        summary = Summary.of(result, summaries[shard], signatures=True)
        status = self._status_of({**summaries, shard: summary})
        index = self.render_index(status)  # raises before anything is written
        self._remember(shard, summary, atomic_write(path, result.render()))
        self._store_index(index)
        return stored, status

    def _validate(self, text: str, title: str | None, tags: Iterable[str],
                  date: str | None) -> tuple[str, str, tuple[str, ...], str]:
        if not isinstance(text, str):
            raise InvalidEntry("entry text must be a string")
        if len(text) > MAX_ENTRY_BYTES or len(text.encode("utf-8", "surrogatepass")) > \
                MAX_ENTRY_BYTES:
            raise InvalidEntry(
                f"entry is {len(text.encode('utf-8', 'surrogatepass')):,} bytes, far over the "
                f"limit; keep large reference material in the repository's docs and store a "
                f"pointer to it")
        if not text.strip():
            raise InvalidEntry("entry text is empty")
        if _SURROGATE.search(text):
            raise InvalidEntry("entry text is not valid unicode (lone surrogate)")
        bad = _TEXT_CONTROL.search(text)
        if bad is not None:
            raise InvalidEntry(
                f"entry text holds a control character (U+{ord(bad.group()):04X} on line "
                f"{text.count(chr(10), 0, bad.start()) + 1}); only tab, LF and CR are allowed")
        size = estimate_tokens(text)
        limit = self.config.max_entry_tokens
        if size > limit:
            raise InvalidEntry(
                f"entry is ~{size:,} tokens, over max_entry_tokens={limit:,}; split it, or keep "
                "large reference material in the repository's docs and store a pointer to it")
        if title is None:
            title = default_title(text)
        else:
            if not isinstance(title, str) or _CONTROL.search(title) or not title.strip():
                raise InvalidEntry("title must be one non-empty line without control characters")
            if _SURROGATE.search(title):
                raise InvalidEntry("title is not valid unicode (lone surrogate)")
            title = " ".join(title.split())
            if len(title) > MAX_TITLE_CHARS:
                raise InvalidEntry(f"title is {len(title)} characters; keep it under "
                                   f"{MAX_TITLE_CHARS}")
        clean: dict[str, None] = {}  # in order, each once, in linear time
        size = 0
        over = False
        for n, tag in enumerate([tags] if isinstance(tags, str) else tags):
            over = n >= 4 * MAX_TAGS or size > MAX_TAGS_CHARS
            if over:  # stop reading an endless list
                break
            if not isinstance(tag, str) or _CONTROL.search(tag) or not tag.strip():
                shown = tag[:40] if isinstance(tag, str) else tag
                raise InvalidEntry(f"invalid tag {shown!r}: expected a non-empty word")
            if _SURROGATE.search(tag):
                raise InvalidEntry("a tag is not valid unicode (lone surrogate)")
            size += len(tag)
            clean[" ".join(tag.split())] = None
        if over or len(clean) > MAX_TAGS or sum(len(t) for t in clean) > MAX_TAGS_CHARS:
            raise InvalidEntry(TOO_MANY_TAGS)
        date = today() if date is None else check_date(date)
        return text, title, tuple(clean), date

    def _scan(self, title: str, text: str, tags: tuple[str, ...]) -> None:
        """The one place a write is checked for secrets; raises SecretFound."""
        from .errors import SecretFound
        from .secrets import scan_text

        # allow_paths is for `scan` (files); an entry is always scanned.
        allow = replace(self.allowlist, paths=())
        findings = [*scan_text(title, allow=allow, path="title"),
                    *scan_text(text, allow=allow, path="text"),
                    *scan_text("\n".join(tags), allow=allow, path="tags")]
        if findings:
            raise SecretFound(findings)

    @staticmethod
    def _said_again(entry: Entry, date: str) -> Entry:
        meta = dict(entry.meta)
        count = int(meta["said_again"]) + 1 if meta.get("said_again", "").isdigit() else 1
        meta["said_again"] = str(count)
        latest = meta.get("last_said", "")
        meta["last_said"] = max(latest, date) if _DATE.fullmatch(latest) else date
        return replace(entry, meta=tuple(meta.items()))

    def _updated(self, shard: fmt.Shard, updates: dict[str, Entry], date: str,
                 taken: set[str], elsewhere: set[str]) -> list[Entry]:
        """The entries of ``shard`` with ``updates`` applied; hand-written entries get an id
        and a date (one metadata line inserted under the heading, nothing else touched)."""
        out = []
        for e in shard.entries:
            # parse never derives an id another entry of the shard carries; the archive and
            # the other shards it cannot see
            if not e.has_meta and e.id not in updates and e.id in elsewhere:
                e = replace(e, id=fmt.new_id(shard.name, e.title, e.text, date, taken))
                taken.add(e.id)
            new = updates.get(e.id)
            if new is not None and new.text != e.text:  # the body changed: write it anew
                out.append(fmt.with_raw(new))
            elif new is not None:
                if not e.has_meta:  # its first metadata line: the date of this write
                    new = replace(new, date=date)
                raw = (_restamp(e, new) if e.has_meta else
                       _stamp(e, [("id", e.id), ("date", date), *new.meta]))
                out.append(replace(new, raw=raw, has_meta=True))
            elif not e.has_meta:
                raw = _stamp(e, [("id", e.id), ("date", date)])
                out.append(replace(e, raw=raw, date=date, has_meta=True))
            else:
                out.append(e)
        return out

    @staticmethod
    def _append(name: str, current: str, entry: Entry, last: int = 0) -> Entry:
        """The new entry with its raw text, checked to parse back exactly and to be
        appendable to ``current`` (the shard's text; ``last``: where an entry heading of
        it is known to start, so the fence check may begin there)."""
        entry = fmt.with_raw(entry)
        back = fmt.parse(entry.raw, name).entries
        if len(back) != 1 or back[0].text != entry.text or back[0].id != entry.id:
            raise InvalidEntry("the entry cannot be stored losslessly")  # a bug if ever seen
        if fmt.open_fence_at_end(current[last:] if last else current):
            raise ShardError(f"shard {name!r} leaves a code fence open at its end, which "
                             "would swallow new entries; close it by hand, then retry "
                             "(nothing was written)")
        return back[0]

    def _append_bytes(self, entry: Entry, data: bytes, last: bytes | None
                      ) -> tuple[int, str, str, Entry] | None:
        """For a fast append of ``entry`` to the shard file ``data`` (its last entry's raw
        digest ``last``, None with no entry): (where its last entry starts, the text from
        there, that text ready to be followed, the entry as stored). Only the last entry
        (or, with none, the preamble) is decoded and checked: the bytes before it are the
        ones summarised, kept as they are. None when the general path must decide."""
        start = _last_entry_start(data, last)
        try:
            if start is None and last is not None:  # not found from the end: scan the text
                text = data.decode("utf-8")
                start = len(text[:fmt.entry_offsets(text)[-1]].encode("utf-8"))
            start = start or 0
            tail = data[start:].decode("utf-8")
        except UnicodeDecodeError:
            return None  # the general path reports it
        stored = self._append(entry.shard, tail, entry)
        return start, tail, fmt.ensure_separated(tail), stored

    def _append_fast(self, entry: Entry, summary: Summary,
                     status_after: Callable[[Summary], Status], *,
                     dedup: bool) -> tuple[Entry, Status] | None:
        """Append ``entry`` without parsing its shard, when the cached ``summary`` of it
        proves that the slow path would only append: no hand-written entry to stamp, no
        entry said again, no near duplicate possible. None when it cannot prove that.
        ``status_after`` gives the memory's status once the shard has the summary passed.

        Writes the same bytes and the same summary as the slow path (tested); returns the
        entry and the status after it.
        """
        from .dedup import candidate_test, main_text, signature

        name = entry.shard
        path = self.shard_path(name)
        cached = self._stat(name)
        if cached is None or summary.hand or tuple(cached[1]) != tuple(summary):
            return None
        key = _digest(normalize(main_text(entry.text)))
        sig = None
        if entry.supersedes is not None and any(
                c[2] == key and link[2] == entry.supersedes
                for c, link in zip(summary.costs, summary.links, strict=False)):
            return None  # a retried correction, maybe: the slow path decides
        if dedup:
            if any(c[2] == key for c in summary.costs):
                return None  # said again, maybe: the slow path decides
            sig = signature(entry.text)
            may_match = candidate_test(entry.text)
            if any(c[3] is None or may_match(c[3]) for c in summary.costs):
                return None
        data = self._read_bytes(path)
        if file_signature(path) != cached[0]:  # changed since it was summarised
            return None
        appended = self._append_bytes(entry, data, summary.costs[-1][0] if summary.costs
                                      else None)
        if appended is None:
            return None
        start, tail, base, stored = appended
        costs = list(summary.costs)
        preamble = summary.preamble_tokens
        if base != tail and costs:  # the last entry gained its blank line
            costs[-1] = (_digest(base), estimate_tokens(base), *costs[-1][2:])
        elif base != tail:
            preamble = estimate_tokens(base)
        costs.append((_digest(stored.raw), estimate_tokens(stored.raw), key, sig))
        after = Summary(
            summary.description, preamble + sum(c[1] for c in costs),
            (*summary.links, (stored.id, stored.date or "", stored.supersedes or "")),
            tuple(costs), 0, preamble)
        status = status_after(after)
        index = self.render_index(status)  # raises before anything is written
        self._remember(name, after, atomic_write(
            path, b"".join((memoryview(data)[:start], (base + stored.raw).encode()))))
        self._store_index(index)
        line = _count_lines(data, start) + fmt.count_lines(base) + 1
        return replace(stored, line=line), status

    def _remember(self, name: str, summary: Summary, written: tuple[int, int, int]) -> None:
        """Record the summary of a shard just written, under the signature of what was
        written (not of the file now: a hand edit since must not pass for the put's)."""
        self._keep_stat(name, written, summary)

    # -- the put state: what a put needs of the whole memory, in one small file ----------

    def _put_quick(self, draft: Entry, *, new: bool) -> tuple[Entry, Status] | None:
        """A put that appends without loading any shard's summary: the put state (ids in
        use, supersedes targets, INDEX.md's rows and, per shard, what the fast append
        reads of its summary, valid for the exact signatures of every shard file) stands
        for them. The same checks and bytes as :meth:`_append_fast`; None when it cannot
        (no valid state, the new id is the target of a dangling supersedes, the append is
        not provably plain): the caller then takes the general way. Holds the lock;
        ``draft`` has no id yet."""
        state = self._load_state()
        if state is None:
            return None
        names, ids, targets, heads = state[0], state[3], state[4], state[5]
        name = draft.shard
        entry = replace(draft, id=fmt.new_id(name, draft.title, draft.text, draft.date or "",
                                             _FramedIds(ids)))
        if entry.id in targets:  # it would hide itself or another entry: count anew
            return None
        hand, keys, sigs_of, unsigned = (heads[names.index(name)][i] for i in (2, 6, 7, 8))
        if hand or os.name == "nt":  # Windows cannot replace the file held open below
            return None
        from .dedup import main_text, signature

        key = _digest(normalize(main_text(entry.text)))
        sig = None
        if not new:  # as _append_fast: said again or a near duplicate, maybe
            if unsigned or _has_record(keys, key):
                return None
            sig = signature(entry.text)
            if sig and _has_record(sigs_of, sig):
                return None
        path = self.shard_path(name)
        try:
            source = open_bounded(path, MAX_FILE_BYTES, self.agents_dir)
        except OSError:
            return None  # the general path reports it
        with source:
            return self._append_quick(source.fileno(), entry, state, (key, sig))

    def _append_quick(self, fd: int, entry: Entry, state: tuple[Any, ...],
                      keyed: tuple[bytes, bytes | None]) -> tuple[Entry, Status] | None:
        """The write of :meth:`_put_quick`, from the shard file open as ``fd``: only its
        last entry is read (the line ends above it are the state's), the bytes before it
        are copied to the new file by the kernel."""
        names, sigs, rows, ids, targets, heads = state
        name = entry.shard
        path = self.shard_path(name)
        at = names.index(name)
        (description, tokens, _, preamble, count, last, keys, sigs_of, unsigned,
         lines) = heads[at]
        key, sig = keyed
        began = time.time_ns()  # before the signature is taken: see _unchanged
        st = os.fstat(fd)
        if (st.st_size, st.st_mtime_ns, st.st_ino) != sigs[at]:
            return None
        size = st.st_size
        offset = max(0, size - (1 << 16)) if lines is not None and last is not None else 0
        data = os.pread(fd, size - offset, offset)
        if offset and not _last_entry_start(data, last[0]):  # not within the last 64 KiB
            offset = 0
            data = os.pread(fd, size, 0)
        if len(data) != size - offset:
            return None
        appended = self._append_bytes(entry, data, last[0] if last is not None else None)
        if appended is None:
            return None
        start, tail, base, stored = appended
        relast = None
        if base != tail and last is not None:  # the last entry gained its blank line
            relast = (_digest(base), estimate_tokens(base), *last[2:])
            tokens += relast[1] - last[1]
        elif base != tail:
            tokens -= preamble
            preamble = estimate_tokens(base)
            tokens += preamble
        cost = (_digest(stored.raw), estimate_tokens(stored.raw), key, sig)
        tokens += cost[1]
        gone = rows[at][2]  # the new id is nobody's target: no count but this row changes
        row = (description or DESCRIPTIONS.get(name, ""), count + 1 - gone, gone, tokens)
        status = self._state_status(names, (*rows[:at], row, *rows[at + 1:]))
        index = self.render_index(status)  # raises before anything is written
        try:
            written = atomic_write(path, (base + stored.raw).encode(), head=(fd, offset + start),
                                   verify=lambda tmp: _unchanged(fd, st, began, tmp, offset,
                                                                 data, offset + start))
        except SourceChanged:  # an editor saved the shard in place meanwhile
            return None
        link = (stored.id, stored.date or "", stored.supersedes or "")
        self._append_stat(name, sigs[at], written, (tokens, preamble, relast, link, cost))
        # line ends before the last entry: counted once, then kept (8 MB take ~5 ms)
        above = _count_lines(data, start) if lines is None else lines - fmt.count_lines(tail)
        # (with lines unknown, offset is 0: data is the whole file)
        head = (description, tokens, 0, preamble, count + 1, cost, keys + key,
                sigs_of + (sig or b""), unsigned or sig is None,
                above + fmt.count_lines(base) + fmt.count_lines(stored.raw))
        self._write_state((*sigs[:at], written, *sigs[at + 1:]), status,
                          f"{ids}{stored.id}\n", targets,
                          (*heads[:at], head, *heads[at + 1:]))
        self._store_index(index)
        return replace(stored, line=above + fmt.count_lines(base) + 1), status

    def _append_stat(self, name: str, before: tuple[int, int, int],
                     after: tuple[int, int, int], change: tuple[Any, ...]) -> None:
        """Record in the stats of shard ``name`` (which had signature ``before``, now
        ``after``) one appended entry: ``change`` is (tokens, preamble tokens, the new cost
        of the previous last entry or None, link, cost). It goes to the stats tail, so the
        stats file is not rewritten; the tail is merged into it past max(64, 1/8 of it)."""
        import marshal

        tokens, preamble, relast, link, cost = change
        if self._stats is not None:
            self._stats.pop(name, None)  # what is on disk now is what counts
        head = _stats_head(read_cache(self._stat_path(name), self.agents_dir))
        tail = self._stat_tail(name)
        if head is not None and tail is not None and tail[1:4] == (head[1], head[2], before):
            links, costs, base_relast = tail[7], tail[8], tail[6]
        elif head is not None and head[1] == before:
            links, costs, base_relast = (), (), None
        else:  # no stats to extend: written whole from the summary, when it can be had
            links = costs = None
        if relast is not None and costs:
            costs = (*costs[:-1], relast)
        elif relast is not None and costs is not None:
            base_relast = relast
        if head is None or links is None or costs is None or \
                len(links) >= max(_TAIL_MAX, head[2] // 8):
            hit = self._stat(name)
            if hit is None or hit[0] != before:
                return  # stale: whoever needs the summary rebuilds it
            fields = hit[1]
            kept = fields[3] if relast is None else (*fields[3][:-1], relast)
            self._keep_stat(name, after, Summary(fields[0], tokens, (*fields[2], link),
                                                 (*kept, cost), fields[4], preamble))
            return
        write_cache(self._stat_path(name, tail=True), marshal.dumps((
            _TAIL_VERSION, head[1], head[2], after, tokens, preamble, base_relast,
            (*links, link), (*costs, cost))), self.agents_dir)

    def _state_status(self, names: Sequence[str],
                      rows: Sequence[tuple[str, int, int, int]]) -> Status:
        """The status of the put state's INDEX.md rows."""
        shown = tuple(ShardStatus(n, *row) for n, row in zip(names, rows, strict=True))
        c = self.config
        return Status(shown, sum(r.tokens for r in shown), c.token_budget, c.compact_threshold)

    def _state_keys(self) -> list[tuple[str, Path]]:
        """(stats key, path) of every shard file: the live ones, then the archived ones."""
        return [*((name, self.shard_path(name)) for name in self.shards),
                *((f"archive/{name}", self.shard_path(name, archive=True))
                  for name in self.shards)]

    def _load_state(self) -> tuple[Any, ...] | None:
        """The put state (shard names, signatures, INDEX.md rows, ids, supersedes
        targets, per live shard its head) when every shard file still has the signature
        it records; see _write_state."""

        got = load_cache(self.cache_dir / "put-state.marshal", self.agents_dir)
        if not (isinstance(got, tuple) and len(got) == 7 and got[0] == _STATE_VERSION
                and got[1] == self.shards):
            return None
        if got[2] != tuple(file_signature(path) for _, path in self._state_keys()):
            return None
        return got[1:]

    def _save_state(self, status: Status) -> None:
        """Record the put state after a general put, from the summaries it holds (every
        shard file's, under the signature it was summarised with) and its ``status``."""
        stats = self._stats or {}
        keys = self._state_keys()
        if any(stats.get(key) is None for key, _ in keys):
            return
        ids: list[str] = []
        targets: set[str] = set()
        sigs = []
        heads = []
        for key, _ in keys:
            sig, fields = stats[key]
            sigs.append(sig)
            try:
                summary = Summary(*fields)
            except TypeError:
                return
            for link in summary.links:
                ids.append(link[0])
                if link[2]:
                    targets.add(link[2])
            if "/" not in key:
                costs = summary.costs
                heads.append((summary.description, summary.tokens, summary.hand,
                              summary.preamble_tokens, len(summary.links),
                              costs[-1] if costs else None, b"".join(c[2] for c in costs),
                              b"".join(c[3] for c in costs if c[3]),
                              any(c[3] is None for c in costs), None))
        self._write_state(tuple(sigs), status, "\n" + "".join(f"{i}\n" for i in ids),
                          frozenset(targets), tuple(heads))

    def _write_state(self, sigs: tuple[tuple[int, int, int], ...], status: Status, ids: str,
                     targets: frozenset[str], heads: tuple[Any, ...]) -> None:
        """The put state: per live shard, its INDEX.md row and its head (description,
        tokens, hand-written entries, preamble tokens, entries, last entry's cost, the
        digests of the normalised main texts and the said-again signatures end to end,
        whether a signature is missing, its line ends or None until a quick put counts
        them); every id (live and archived) on its own line;
        every supersedes target. Valid for the exact signatures ``sigs`` of every shard
        file (_state_keys)."""
        import marshal

        rows = tuple((r.description, r.entries, r.superseded, r.tokens) for r in status.shards)
        write_cache(self.cache_dir / "put-state.marshal",
                    marshal.dumps((_STATE_VERSION, self.shards, sigs, rows, ids, targets,
                                   heads)), self.agents_dir)

    def compact(self, *, dry_run: bool = False) -> CompactionReport:
        """Fold the oldest entries when over budget (see :mod:`lean_memory.compaction`)."""
        from .compaction import compact

        return compact(self, dry_run=dry_run)

    def digest(self, prompt: str, *, budget_tokens: int = 1200, index: bool | None = None,
               include_archive: bool | None = None) -> str:
        """The block a harness injects before ``prompt`` (see :mod:`lean_memory.digest`)."""
        from .digest import digest

        return digest(self, prompt, budget_tokens=budget_tokens, index=index,
                      include_archive=include_archive)

    def index(self) -> str:
        """Regenerate INDEX.md and return its text."""
        self._require_init()
        with self.lock():
            self.write_index({})
        return self.read_text(self.index_path)

    def write_index(self, fresh: Mapping[str, fmt.Shard | str], *,
                    signatures: bool = False) -> Status:
        """Rewrite INDEX.md if it changed and return the status it shows; ``fresh`` maps
        shard names to shards (or texts) already in hand."""
        status = self._status({name: fmt.parse(s, name) if isinstance(s, str) else s
                               for name, s in fresh.items()}, signatures=signatures)
        self._store_index(self.render_index(status))
        return status

    def render_index(self, status: Status) -> str:
        """The text of INDEX.md for ``status``; raises when it outgrows max_index_tokens,
        which writers check before they write anything."""
        from .indexfile import render_index

        return render_index(status, self.config.max_index_tokens)

    def _store_index(self, text: str) -> None:
        if self.read_text(self.index_path) != text:
            # Derived data: atomic (never half written) but not fsynced, as any command
            # regenerates it from the shards.
            atomic_write(self.index_path, text, durable=False)


GITIGNORE = (".cache/", ".*.tmp")  # the derived cache; temp files a crash left


def _with_lines(text: str, lines: Sequence[str]) -> str:
    """``text`` with ``lines`` appended, each on its own line."""
    if text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(f"{line}\n" for line in lines)


def _appended(shard: fmt.Shard, entries: list[Entry],
              entry: Entry) -> tuple[str, tuple[Entry, ...]]:
    """(preamble, entries) of ``shard`` with ``entry`` added after a blank line."""
    preamble = shard.preamble
    if entries:
        last = entries[-1]
        entries[-1] = replace(last, raw=fmt.ensure_separated(last.raw))
    else:
        preamble = fmt.ensure_separated(preamble)
    line = fmt.count_lines(preamble + "".join(e.raw for e in entries)) + 1
    return preamble, (*entries, replace(entry, line=line))


def _stamp(entry: Entry, pairs: list[tuple[str, str]]) -> str:
    head, sep, rest = fmt.split_first_line(entry.raw)
    newline = sep or "\n"
    meta = fmt.format_meta([(k, fmt.meta_escape(v)) for k, v in pairs])
    return f"{head}{sep or newline}{meta}{newline}{rest}"


def _restamp(old: Entry, new: Entry) -> str:
    """Swap only the metadata line of ``old`` for the fields of ``new``."""
    lines = fmt.split_lines(old.raw)
    fresh = fmt.split_lines(fmt.render_entry(new))[1].rstrip("\n")
    lines[1] = fresh + lines[1][len(lines[1].rstrip("\r\n")):]
    return "".join(lines)


def open(root: str | os.PathLike[str] | None = None) -> Memory:
    """The memory at ``root`` (found as the spec says when None)."""
    return Memory(root)
