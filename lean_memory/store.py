"""The ``Memory`` facade: the public API of a memory, on top of its folder
(:mod:`lean_memory.folder`) and what is known of its files (:mod:`lean_memory.summaries`).

A put validates and scans, then takes one of three ways, each ending in :meth:`Memory._commit`
(INDEX.md rendered first, the shard written, what was written recorded, INDEX.md stored):
the quick put (the put state stands for every summary), the put from the shard's summary
(both through the one byte append, :meth:`Memory._append_plain`, when nothing but an append
can happen), and the general put (parse, stamp hand-written entries, fold an entry said
again). Searching, the digest and compaction live in their modules; the facade imports them,
they import only the layers below it.
"""

from __future__ import annotations

import os
import time

from . import format as fmt
from ._hash import blake2b
from ._record import replace, suppress
from .errors import InvalidEntry, LeanMemoryError, QueryError, SecretFound, ShardError
from .folder import (
    DESCRIPTIONS,
    GITIGNORE,
    MAX_TAGS,
    MAX_TAGS_CHARS,
    TOO_MANY_TAGS,
    check_date,
    today,
)
from .format import default_title
from .format import first_of as _first_of
from .fsutil import (
    MAX_FILE_BYTES,
    SourceChanged,
    atomic_write,
    ensure_dir,
    open_bounded,
    same_bytes,
)
from .globalstore import FACADE, PROJECT
from .putstate import (
    Appended,
    Head,
    PutState,
    ShardStatus,
    StaleState,
    Status,
    Summarized,
    Summary,
    text_digest,
)
from .summaries import (
    COST_KEY,
    COST_RAW,
    COST_TOKENS,
    LINK_ID,
    LINK_TARGET,
    Link,
    Signature,
    hidden_ids,
    normalize,
)
from .tokens import estimate_tokens
from .withhold import record_put

# Inside functions on purpose: search, digest, compaction, dedup, secrets and spawn import
# this module; the facade's methods import them when called (no circle, ADR 0026).
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from pathlib import Path

    from .compaction import CompactionReport
    from .layers import LayerHit
    from .search import Retriever

Entry = fmt.Entry
__all__ = ["Entry", "Memory", "ShardStatus", "Status", "open"]

MAX_ENTRY_BYTES = 1_000_000  # checked before anything else, so a huge paste costs nothing
MAX_TITLE_CHARS = 120
# Characters a title or tag may not hold: C0 controls but tab, and DEL.
_CONTROLS = "".join(map(chr, (*range(0x09), *range(0x0a, 0x20), 0x7f)))
# Control characters an entry's text may not hold: all but tab, LF and CR (a NUL makes git
# call the shard binary, and then nothing scans or diffs it).
_TEXT_CONTROLS = "".join(map(chr, (*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20),
                                   *range(0x7f, 0xa0))))
def _has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (from undecodable bytes on a command line),
    which cannot be written as UTF-8: the only code points UTF-8's strict encoder refuses."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


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


class Put:
    """What a put stored, and the memory's status after it."""

    __slots__ = ("entry", "status")

    def __init__(self, entry: Entry, status: Status) -> None:
        self.entry = entry
        self.status = status


class Memory(Summarized):
    """A memory rooted at ``root``: ``<root>/.agents/memory`` and its config."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *,
                 retrievers: Sequence[Retriever] | None = None) -> None:
        super().__init__(root)
        self._retrievers = list(retrievers) if retrievers is not None else None

    # -- reading ------------------------------------------------------------------

    def get_memory(self, shard: str | None = None, *, query: str | None = None,
                   k: int = 5) -> str:
        """INDEX.md, a whole shard, or the top-``k`` entries for ``query``, as Markdown."""
        self._require_init()
        _ = self.config  # a broken config is an error here too, as for every command
        if query is not None:  # as `get --query` renders it (ADR 0034)
            # not at the top: a put imports no search (tests/test_put_path.py)
            from .layers import render
            from .search import render_hits

            hits = self.search(query, k=k, shards=(shard,) if shard else None)
            return render(hits) if any(h.layer != PROJECT for h in hits) else \
                render_hits([h.hit for h in hits])
        from .shown import read_shown  # an entry holding a credential is withheld

        return read_shown(self, shard)[0]

    def search(self, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
               include_archive: bool | None = None, session: str | None = None,
               layers: Sequence[str] = ("global", "project", "session")) -> list[LayerHit]:
        """The ``k`` entries that best match ``query``, as ``get --query`` ranks them: over
        the ``layers`` (the global store, this project and, with ``session``, that
        session's asks), each hit a ``LayerHit`` labelled with its layer (``.layer``;
        ``.entry``, ``.score``... as a ``Hit``); ``layers=("project",)`` searches this store
        alone; ``shards`` limits the search to those shards. Archived entries match too
        unless ``include_archive=False`` or the config's ``search_archive = false``."""
        from .recall import search

        return search(self, query, k=k, shards=shards, include_archive=include_archive,
                      session=session, layers=layers).hits

    def compact(self, *, dry_run: bool = False) -> CompactionReport:
        """Fold the oldest entries when over budget (see :mod:`lean_memory.compaction`)."""
        from .compaction import compact

        return compact(self, dry_run=dry_run)

    def digest(self, prompt: str, *, budget_tokens: int = 1200, index: bool | None = None,
               include_archive: bool | None = None,
               layers: Sequence[str] = ("global", "project", "session")) -> str:
        """The block the prompt hook injects before ``prompt``, byte for byte (over the
        layers; see :func:`lean_memory.recall.injected`); ``layers=("project",)``: this
        store's own digest alone (:mod:`lean_memory.digest`, which ``index`` steers)."""
        if not isinstance(budget_tokens, int) or isinstance(budget_tokens, bool):
            raise QueryError("budget_tokens must be a whole number")  # as digest.digest
        if tuple(layers) == ("project",) or index is not None:
            from .digest import digest

            return digest(self, prompt, budget_tokens=budget_tokens, index=index,
                          include_archive=include_archive)
        from .recall import injected

        return injected(self, prompt, budget_tokens=budget_tokens,
                        include_archive=include_archive)

    def index(self) -> str:
        """Regenerate INDEX.md and return its text."""
        self._require_init()
        with self.lock():
            self.write_index({})
        return self.read_text(self._index)

    # -- writing ------------------------------------------------------------------

    def _recover(self) -> None:
        from .compaction import recover

        recover(self)

    def init(self) -> list[Path]:
        """Create the memory folder, default shards, INDEX.md and .gitignore; idempotent."""
        for folder in (self.root, self.agents_dir, self.dir, self.archive_dir):
            if folder.exists() and not folder.is_dir() and not folder.is_symlink():
                raise LeanMemoryError(f"cannot init: {folder} is a file, not a folder")
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

    def put_entry(self, shard: str, text: str, *, title: str | None = None,
                  tags: Iterable[str] = (), date: str | None = None,
                  supersedes: str | None = None, new: bool = False) -> Entry:
        """Add an entry and return it; an entry said again is updated, not copied
        (unless ``new``). Everything is validated and scanned before anything is written.
        """
        self._check_shard(shard)
        if supersedes is not None and not isinstance(supersedes, str):
            raise InvalidEntry("supersedes must be an entry id (a string)")
        if getattr(type(tags), "__iter__", None) is None:  # not Iterable
            raise InvalidEntry("tags must be a list of words")
        text, title, tag_tuple, date = self._validate(text, title, tags, date)
        self._scan(title, text, tag_tuple)
        self._require_init()
        with self.lock():
            draft = Entry(id="", shard=shard, title=title, text=text, date=date,
                          tags=tag_tuple, supersedes=supersedes)
            state = self._load_state() if supersedes is None else None
            done = None
            if state is not None:  # the same ids as the summaries' links below
                try:
                    entry = replace(draft, id=fmt.new_id(shard, title, text, date, state.ids))
                    if entry.id not in state.targets:  # else it hides an entry: count anew
                        done = self._put_quick(entry, state, new=new)
                except StaleState:  # a chunk of the put state is not what was sealed
                    state = None
            if done is None:
                summaries = self._summaries({})
                live_ids = {link[LINK_ID] for s in summaries.values() for link in s.links}
                if supersedes is not None and supersedes not in live_ids:
                    raise InvalidEntry(f"supersedes {supersedes!r}: no entry has that id")
                links = self._links(summaries)
                taken = {link[LINK_ID] for link in links}  # archived ids too: never reuse one
                if state is None:
                    entry = replace(draft, id=fmt.new_id(shard, title, text, date, taken))
                done = self._put_summarized(entry, summaries, dedup=not new and not supersedes
                                            ) or self._put_parsed(entry, summaries, links, taken,
                                                                  new=new)
                self._save_state(done.status)
        stored, status = done.entry, done.status
        # its verdict for the search that indexes it next; a failure only costs speed
        with suppress(OSError, LeanMemoryError):
            record_put(self, [stored.raw])
        from .writelog import note_writes  # when, for "decided during the session"

        note_writes(self._root, [stored], enabled=self.config.capture_asks)
        if "ollama" in self.config.retrievers:  # its vector, off this call's path (ADR 0019)
            from .spawn import embed_soon

            embed_soon(self)
        if status.compaction_due and self.config.auto_compact:
            # The entry is stored: a failed compaction stays due and the next write retries.
            with suppress(LeanMemoryError):
                self.compact()
        return stored

    def _put_parsed(self, entry: Entry, summaries: dict[str, Summary],
                    links: list[Link], taken: set[str],
                    *, new: bool) -> Put:
        """The general put: parse the shard, record a repeat or append, stamp hand-written
        entries; returns the entry and the memory's status after it. Holds the lock."""
        shard, text, date, supersedes = entry.shard, entry.text, entry.date or "", entry.supersedes
        path = self._shard_file(shard)
        parsed = fmt.parse(self.read_text(path), shard)
        if supersedes is not None:
            # A retried correction (its acknowledgement lost) is the entry already stored.
            same = next((e for e in parsed.entries if e.supersedes == supersedes
                         and e.text == text and e.get("compacted") is None), None)
            if same is not None:
                return Put(same, self._status_of(summaries))
        # ids carried outside this shard (other shards, the archive)
        elsewhere = {link[LINK_ID] for link in links} - {e.id for e in parsed.entries}
        elsewhere |= {link[LINK_ID] for s in self._summaries({}, archive=True).values()
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
            stored = self._checked(shard, parsed.render(), entry)
            result = fmt.Shard(shard, *_appended(
                parsed, self._updated(parsed, {}, date, taken | {stored.id}, elsewhere),
                stored))
            stored = result.entries[-1]
        # with the signatures, the next put to this shard can append without parsing it
        summary = Summary.of(result, summaries[shard], signatures=True)
        status = self._status_of({**summaries, shard: summary})
        self._commit(status, lambda: atomic_write(path, result.render()),
                     lambda written: self._keep_stat(shard, written, summary))
        return Put(stored, status)

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
        if _has_surrogate(text):
            raise InvalidEntry("entry text is not valid unicode (lone surrogate)")
        bad = _first_of(text, _TEXT_CONTROLS)
        if bad >= 0:
            raise InvalidEntry(
                f"entry text holds a control character (U+{ord(text[bad]):04X} on line "
                f"{text.count(chr(10), 0, bad) + 1}); only tab, LF and CR are allowed")
        size = estimate_tokens(text)
        limit = self.config.max_entry_tokens
        if size > limit:
            raise InvalidEntry(
                f"entry is ~{size:,} tokens, over max_entry_tokens={limit:,}; split it, or keep "
                "large reference material in the repository's docs and store a pointer to it")
        if title is None:
            title = default_title(text)
        else:
            if not isinstance(title, str) or _first_of(title, _CONTROLS) >= 0 or \
                    not title.strip():
                raise InvalidEntry("title must be one non-empty line without control characters")
            if _has_surrogate(title):
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
            if not isinstance(tag, str) or _first_of(tag, _CONTROLS) >= 0 or not tag.strip():
                shown = tag[:40] if isinstance(tag, str) else tag
                raise InvalidEntry(f"invalid tag {shown!r}: expected a non-empty word")
            if _has_surrogate(tag):
                raise InvalidEntry("a tag is not valid unicode (lone surrogate)")
            size += len(tag)
            clean[" ".join(tag.split())] = None
        if over or len(clean) > MAX_TAGS or sum(len(t) for t in clean) > MAX_TAGS_CHARS:
            raise InvalidEntry(TOO_MANY_TAGS)
        date = today() if date is None else check_date(date)
        return text, title, tuple(clean), date

    def _scan(self, title: str, text: str, tags: tuple[str, ...]) -> None:
        """The one place a write is checked for secrets; raises SecretFound."""
        from .secrets import Allowlist, scan_text

        # allow_paths is for `scan` (files); an entry is always scanned.
        configured = self.allowlist
        allow = Allowlist(configured.rules, (), configured.fingerprints)
        findings = [*scan_text(title, allow=allow, path="title"),
                    *scan_text(text, allow=allow, path="text"),
                    *scan_text("\n".join(tags), allow=allow, path="tags")]
        if findings:
            raise SecretFound(findings)

    @staticmethod
    def _said_again(entry: Entry, date: str) -> Entry:
        meta = dict(entry.meta)
        said = meta.get("said_again")
        count = fmt.parse_count(said)
        if said is not None and count is None:  # never written over: a hand edit, or damage
            raise ShardError(f"entry {entry.id} in {entry.shard}: said_again="
                             f"{said[:24]!r}{'…' if len(said) > 24 else ''} is not a count "
                             f"(1 to {fmt.MAX_COUNT_DIGITS} digits 0-9); fix it by hand")
        count = (count or 0) + 1
        meta["said_again"] = str(count)
        latest = meta.get("last_said", "")
        meta["last_said"] = max(latest, date) if fmt.is_date(latest) else date
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
    def _checked(name: str, current: str, entry: Entry) -> Entry:
        """The new entry with its raw text, checked to parse back exactly and to be
        appendable to ``current`` (the shard's text, or its end from an entry heading)."""
        entry = fmt.with_raw(entry)
        back = fmt.parse(entry.raw, name).entries
        if len(back) != 1 or back[0].text != entry.text or back[0].id != entry.id:
            raise InvalidEntry("the entry cannot be stored losslessly")  # a bug if ever seen
        if fmt.open_fence_at_end(current):
            raise ShardError(f"shard {name!r} leaves a code fence open at its end, which "
                             "would swallow new entries; close it by hand, then retry "
                             "(nothing was written)")
        return back[0]

    def _commit(self, status: Status, write: Callable[[], Signature],
                record: Callable[[Signature], None]) -> None:
        """The end of every put: INDEX.md rendered (it may refuse, and nothing is written
        yet), the shard written, what was written recorded under the signature of the file
        written (not of the file now: a hand edit since must not pass for the put's),
        INDEX.md stored."""
        index = self.render_index(status)
        record(write())
        self._store_index(index)

    def _put_quick(self, entry: Entry, state: PutState, *,
                   new: bool) -> Put | None:
        """A put that appends without loading any shard's summary: the put state (ids in
        use, supersedes targets, INDEX.md's rows and, per shard, its head) stands for
        them. None when the append is not provably plain: the caller then takes the
        general way. Holds the lock."""
        from .dedup import main_text, signature

        at = state.shards.index(entry.shard)
        head = state.heads[at]
        key = text_digest(normalize(main_text(entry.text)))
        sig = None if new else signature(entry.text)
        if sig is not None and head.said_again(key, sig):
            return None

        def status_after(change: Appended) -> Status:
            # the new id is nobody's target: only this row changes
            gone = ShardStatus(entry.shard, *state.rows[at]).superseded
            row = (head.description or DESCRIPTIONS.get(entry.shard, ""),
                   head.entries + 1 - gone, gone, change.tokens)
            return self._state_status(state.shards, (*state.rows[:at], row,
                                                     *state.rows[at + 1:]))

        def record(written: Signature, change: Appended, after: Head, status: Status) -> None:
            self._append_stat(entry.shard, state.sigs[at], written, change)
            self._append_state(state._replace(
                sigs=(*state.sigs[:at], written, *state.sigs[at + 1:]),
                rows=tuple((r.description, r.entries, r.superseded, r.tokens)
                           for r in status.shards),
                ids=state.ids.plus(change.link[LINK_ID]),
                heads=(*state.heads[:at], after, *state.heads[at + 1:])))

        return self._append_plain(entry, head, state.sigs[at], (key, sig), status_after, record,
                                  copy_head=True)

    def _put_summarized(self, entry: Entry, summaries: dict[str, Summary], *,
                        dedup: bool) -> Put | None:
        """Append ``entry`` from its shard's cached summary, when it proves that the
        general put would only append: no hand-written entry to stamp, no entry said
        again, no near duplicate possible. None when it cannot prove that."""
        from .dedup import main_text, signature

        name = entry.shard
        summary = summaries[name]
        cached = self._stat(name)
        if cached is None or cached.summary != summary:
            return None
        key = text_digest(normalize(main_text(entry.text)))
        if entry.supersedes is not None and any(
                c[COST_KEY] == key and link[LINK_TARGET] == entry.supersedes
                for c, link in zip(summary.costs, summary.links, strict=False)):
            return None  # a retried correction, maybe: the general put decides
        head = Head.of(summary)
        sig = signature(entry.text) if dedup else None
        if sig is not None and head.said_again(key, sig):
            return None

        def after(change: Appended) -> Summary:
            return summary.appended((change.link,), (change.cost,), change.tokens,
                                    change.preamble_tokens, change.relast)

        return self._append_plain(
            entry, head, cached.sig, (key, sig),
            lambda change: self._status_of({**summaries, name: after(change)}),
            lambda written, change, _head, _status: self._keep_stat(name, written,
                                                                    after(change)),
            copy_head=False)

    def _append_plain(self, entry: Entry, head: Head, expect: Signature,
                      keyed: tuple[bytes, bytes | None],
                      status_after: Callable[[Appended], Status],
                      record: Callable[[Signature, Appended, Head, Status], None], *,
                      copy_head: bool) -> Put | None:
        """The one append: ``entry`` at the end of its shard file, which ``head`` describes
        while it has the signature ``expect``; ``keyed``: the entry's main-text digest and
        said-again signature. Only the file's last entry (or, with none, its preamble) is
        decoded. With ``copy_head`` (the quick put), only the file's end is read once the
        head knows its line ends, and the bytes before it are copied to the new file by the
        kernel; else (the put from a summary) the whole file is read and written from
        memory. Writes through :meth:`_commit` the bytes the general put would write; None
        when the general put must decide."""
        if head.hand or os.name == "nt":  # Windows cannot replace the file held open below
            return None
        path = self._shard_file(entry.shard)
        try:
            source = open_bounded(path, MAX_FILE_BYTES, self._agents)
        except OSError:
            return None  # the general put reports it
        with source:
            fd = source.fileno()
            began = time.time_ns()  # before the signature is taken: see _unchanged
            st = os.fstat(fd)
            if (st.st_size, st.st_mtime_ns, st.st_ino) != expect:
                return None  # changed since it was summarised
            last = head.last[COST_RAW] if head.last is not None else None
            size = st.st_size
            offset = max(0, size - (1 << 16)) if copy_head and head.lines is not None and \
                last else 0
            data = os.pread(fd, size - offset, offset)
            start = _last_entry_start(data, last)
            if offset and not start:  # not within the last 64 KiB
                offset = 0
                data = os.pread(fd, size, 0)
                start = _last_entry_start(data, last)
            if len(data) != size - offset:
                return None
            try:
                if start is None and last is not None:  # not found from the end: scan
                    text = data.decode("utf-8")
                    start = len(text[:fmt.entry_offsets(text)[-1]].encode("utf-8"))
                start = start or 0
                tail = data[start:].decode("utf-8")
            except UnicodeDecodeError:
                return None  # the general put reports it
            stored = self._checked(entry.shard, tail, entry)
            base = fmt.ensure_separated(tail)
            tokens, preamble, relast = head.tokens, head.preamble_tokens, None
            if base != tail and head.last is not None:  # the last entry gained its blank line
                relast = (text_digest(base), estimate_tokens(base), *head.last[COST_KEY:])
                tokens += relast[COST_TOKENS] - head.last[COST_TOKENS]
            elif base != tail:
                tokens -= preamble
                preamble = estimate_tokens(base)
                tokens += preamble
            key, sig = keyed
            cost = (text_digest(stored.raw), estimate_tokens(stored.raw), key, sig)
            change = Appended(tokens + cost[COST_TOKENS], preamble, relast,
                              (stored.id, stored.date or "", stored.supersedes or ""), cost)
            # line ends before the last entry: counted once, then kept (8 MB take ~5 ms);
            # with them unknown, offset is 0: data is the whole file
            above = (_count_lines(data, start) if head.lines is None
                     else head.lines - fmt.count_lines(tail))
            after = head._replace(
                tokens=change.tokens, preamble_tokens=preamble, entries=head.entries + 1,
                last=cost, keys=head.keys + key, sigs=head.sigs + (sig or b""),
                unsigned=head.unsigned or sig is None,
                lines=above + fmt.count_lines(base) + fmt.count_lines(stored.raw))
            status = status_after(change)
            new = (base + stored.raw).encode()
            def write() -> Signature:
                if not copy_head:
                    return atomic_write(path, b"".join((memoryview(data)[:start], new)))
                return atomic_write(path, new, head=(fd, offset + start), verify=lambda tmp:
                                    _unchanged(fd, st, began, tmp, offset, data, offset + start))

            try:
                self._commit(status, write, lambda written: record(written, change, after,
                                                                   status))
            except SourceChanged:  # an editor saved the shard in place meanwhile
                return None
        return Put(replace(stored, line=above + fmt.count_lines(base) + 1), status)


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


FACADE.append(Memory)  # the class the features build stores of (globalstore.memory_at, ADR 0034)
