"""``lean-memory serve``: a local page showing what memory holds and what rides every prompt.

Pages: the overview (each layer's shards, entry counts, token cost against the budget,
over budget drawn past 100 %, what is injected, whether compaction is due, the remembered
count of pending proposals), a shard (its entries rendered; its archive a link away), an
entry, search (the ranking of ``get --query`` over every layer, and the block the prompt
hook injects for the words typed, byte for byte), the context sheet (``context --json``:
one row per injected entry with its layer, against the budget), history (what changed
recently, the token cost over time from the git history of INDEX.md as an SVG drawn here,
and the personal log of which prompts injected which entry) and the rule proposals with
yes/no buttons. Search, the blocks and the sheet come from :mod:`lean_memory.recall`, the
entry point every client uses (ADR 0034).

It is a server on someone's machine, and a cloned repository's shards are hostile input:

* it binds 127.0.0.1 only, and answers only requests that carry the per-run token (in the
  printed address, then an HttpOnly SameSite=Strict cookie) and whose ``Host`` is
  ``127.0.0.1:PORT`` or ``localhost:PORT`` (a rebound DNS name is refused);
* the only write is a POST to a proposal, carrying the token in its form and an ``Origin``
  of this server; no CORS header is ever sent;
* every byte of memory is escaped (:mod:`lean_memory.html`), and every response sends a
  strict Content-Security-Policy (no script at all; the stylesheet is served from here);
* entries that hold a credential are withheld exactly as ``list``/``show`` withhold them
  (:func:`lean_memory.shown.masked`); search and digests withhold on their own.

Reads go through the public :class:`~lean_memory.Memory` API and :mod:`lean_memory.recall`,
so concurrent puts are seen whole or not at all (the store's atomic writes).
"""

from __future__ import annotations

import errno
import hmac
import os
import secrets
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from . import recall, recall_sheet
from .dedup import main_text, said_again_part
from .errors import LeanMemoryError, QueryError
from .format import parse_count
from .history import index_history
from .html import escape as esc
from .html import render
from .layers import GLOBAL, PROJECT, open_global
from .recall import hook_budget
from .sessionlog import _session_home
from .shown import TITLE_WITHHELD, masked
from .tokens import estimate_tokens

if TYPE_CHECKING:
    from ._protocols import MemoryLike
    from .format import Entry
    from .history import Point
    from .store import Memory

HOST = "127.0.0.1"
MAX_BODY = 4096  # a yes/no form is a few dozen bytes
MAX_TARGET = 4096  # request target (path and query)
PAGE_SIZE = 100  # entries per shard page
SEARCH_K = 10
TIMEOUT_S = 10.0  # a silent client frees its thread after this long


@dataclass(frozen=True)
class Proposal:
    """A rule the learning loop proposes, with what it rests on."""

    id: str
    rule: str  # Markdown
    evidence: tuple[str, ...] = ()  # Markdown, one item each
    layer: str = "project"
    where: str = ""  # the file a yes writes to


@dataclass
class Proposals:
    """How the page reaches the learning loop: ``pending()`` lists the proposals,
    ``decide(id, yes)`` records a person's answer and returns one line saying what it did.
    Without one, the page says there is no learning loop yet."""

    pending: Callable[[], Sequence[Proposal]]
    decide: Callable[[str, bool], str]
    count: Callable[[], int] | None = None  # the remembered count; None: len(pending())

    def waiting(self) -> int:
        """How many proposals wait, from the remembered count when there is one."""
        return self.count() if self.count is not None else len(self.pending())


@dataclass
class App:
    """What the handler serves: named memory layers (the project's first), the token, the
    proposals hook, the digest budget of the prompt hook. With ``global_layer`` (``serve``
    without --global), :meth:`look` adds the global store as each request finds it."""

    layers: Sequence[tuple[str, Memory]]  # this request's: the given ones (+ the global)
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32), repr=False)
    proposals: Proposals | None = None
    budget_tokens: int = field(default_factory=lambda: hook_budget())
    port: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # Parsed shard files by (layer, shard, archive), with the file's signature taken before
    # the read: a page reparses only what changed (atomic writes give a new signature).
    _parsed: dict[tuple[str, str, bool], tuple[tuple[int, int, int], list[Entry]]] = field(
        default_factory=dict, init=False, repr=False)
    _by_id: dict[str, tuple[Any, dict[str, tuple[Entry, bool]], dict[str, str]]] = field(
        default_factory=dict, init=False, repr=False)
    # INDEX.md's git history by the signatures of the files a commit changes
    _history: tuple[Any, list[Point]] | None = field(default=None, init=False, repr=False)
    notice: str = field(default="", init=False)  # what the last answer did (shown once)
    # The overview's layers and "injected" line by the signatures of the files they read
    _overview: tuple[Any, str] | None = field(default=None, init=False, repr=False)
    _listing: tuple[Any, list[Proposal]] | None = field(default=None, init=False, repr=False)
    # The global store is looked up per request, never fixed at start: one deleted while
    # serving is gone from the next page (not an error), one created then appears on it.
    global_layer: bool = False
    _given: tuple[tuple[str, Memory], ...] = field(default=(), init=False, repr=False)
    # The global store's Memory while its folder is the same folder (path, device, inode)
    _global: tuple[tuple[str, int, int], Memory] | None = field(default=None, init=False,
                                                                 repr=False)

    def __post_init__(self) -> None:
        self._given = tuple(self.layers)
        self.look()

    def look(self) -> None:
        """Set ``layers`` for a request: the given ones, then (``global_layer``) the global
        store if its folder is there now; a stat or two, so every page load can afford it."""
        if not self.global_layer:
            return
        self._global = _global_now(self._global)
        self.layers = (*self._given,
                       *(((GLOBAL, self._global[1]),) if self._global is not None else ()))

    def layer(self, name: str) -> Memory | None:
        return next((m for n, m in self.layers if n == name), None)

    def entries(self, layer: str, shard: str, *, archive: bool = False) -> list[Entry]:
        """``mem.entries(shard, archive=archive)`` of ``layer``, parsed once per version."""
        mem = self.layer(layer)
        assert mem is not None
        sig = _signature(mem.shard_path(shard, archive=archive))
        key = (layer, shard, archive)
        known = self._parsed.get(key)
        if known is None or known[0] != sig:
            known = (sig, mem.entries(shard, archive=archive))
            self._parsed[key] = known
        return known[1]

    def lookup(self, layer: str) -> tuple[dict[str, tuple[Entry, bool]], dict[str, str]]:
        """Every entry of ``layer`` by id (with whether it is archived, live ones first), and
        superseded id -> the id of the entry that corrected it (the newest)."""
        mem = self.layer(layer)
        assert mem is not None
        parts = [(name, archive, self.entries(layer, name, archive=archive))
                 for archive in (True, False) for name in mem.shards]
        key = [self._parsed[(layer, name, archive)][0] for name, archive, _ in parts]
        known = self._by_id.get(layer)
        if known is None or known[0] != key:
            ids = {e.id: (e, archive) for _, archive, es in parts for e in es}
            live = [e for _, archive, es in parts if not archive for e in es]
            hidden = mem.superseded_ids(live)
            fixes: dict[str, str] = {}
            for e in sorted(live, key=lambda e: e.date or ""):
                if e.supersedes and e.supersedes in hidden:
                    fixes[e.supersedes] = e.id
            known = (key, ids, fixes)
            self._by_id[layer] = known
        return known[1], known[2]


def _global_now(known: tuple[tuple[str, int, int], Memory] | None,
                ) -> tuple[tuple[str, int, int], Memory] | None:
    """The global store as it is now, keyed by its folder's identity: ``known`` while that
    is the same folder; a store deleted and made again is another folder, another Memory
    (nothing it cached outlives its folder); None while there is none."""
    g = open_global(facade=True)  # the page's store: the facade (a reader is not one)
    if g is None:
        return None
    if TYPE_CHECKING:  # layers.FACADE holds the facade's class: a Memory
        assert isinstance(g, Memory)
    try:
        st = os.stat(g._dir)
    except OSError:  # deleted since open_global looked
        return None
    key = (g._dir, st.st_dev, st.st_ino)
    return known if known is not None and known[0] == key else (key, g)


def _signature(path: Any) -> tuple[int, int, int]:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return (0, 0, 0)
    return (st.st_size, st.st_mtime_ns, st.st_ino)


class PortInUse(LeanMemoryError):
    """The port is taken."""


# -- pages ------------------------------------------------------------------------------

STYLE = """
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 1.5rem;
color:#1d1d1f;background:#fbfbfa;overflow-wrap:break-word}
nav{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;border-bottom:1px solid #ddd;
padding-bottom:.5rem;margin-bottom:1rem}
nav a{font-weight:600}
a{color:#0b5cad;text-decoration:none}a:hover{text-decoration:underline}
h1{font-size:1.5rem;margin:.2rem 0 .8rem}h2{font-size:1.2rem;margin:1.4rem 0 .5rem}
h3{font-size:1.05rem;margin:0 0 .2rem}
.wide{overflow-x:auto;max-width:100%}.wide table{min-width:30rem}.nowrap,th{white-space:nowrap}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .6rem;
border-bottom:1px solid #e4e4e4;vertical-align:top}th{font-weight:600;color:#555}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
svg.bar{width:10rem;max-width:40vw;height:.9rem;vertical-align:middle}
svg.chart{width:100%;max-width:40rem;height:auto}
.muted{color:#666;font-size:.9em}.due{color:#a4420e;font-weight:600}.ok{color:#2b6b2b}
.over{color:#b00020;font-weight:600}
article{background:#fff;border:1px solid #e2e2e2;border-radius:6px;padding:.7rem 1rem;
margin:.8rem 0}
article.superseded{opacity:.7;border-style:dashed}
.tag{display:inline-block;background:#eef2f7;border-radius:3px;padding:0 .35rem;margin-right:.2rem}
.mark{display:inline-block;background:#fdecc8;border-radius:3px;padding:0 .35rem;
font-size:.85em}
pre{background:#f4f4f2;padding:.6rem .8rem;overflow-x:auto;white-space:pre-wrap;
word-break:break-word}code{font-family:ui-monospace,monospace;font-size:.92em}
blockquote{border-left:3px solid #ccc;margin:.4rem 0;padding-left:.8rem;color:#444}
form.inline{display:inline}input[type=search]{width:28rem;max-width:100%;padding:.3rem;
box-sizing:border-box}
button{padding:.25rem .9rem;margin-right:.4rem}
details summary{cursor:pointer;color:#555}
@media (max-width:40rem){body{padding:.6rem .7rem}th,td{padding:.25rem .3rem}}
""".strip()

TABS = (("/", "Overview"), ("/search", "Search"), ("/context", "Context"),
        ("/history", "History"), ("/proposals", "Proposals"))


def _page(app: App, title: str, body: str, *, tab: str = "") -> str:
    nav = "".join(f'<a href="{href}">{label}</a>' for href, label in TABS)
    head = f"{title} · {tab}" if tab and tab != title else title
    return ("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(head)} · lean-memory</title>"
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<link rel="stylesheet" href="/style.css"></head><body>'
            f"<nav>{nav}</nav><main><h1>{esc(title)}</h1>\n{body}\n</main></body></html>\n")


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _tokens(text: str) -> int:
    return estimate_tokens(text)


def _href(*parts: str, **query: str) -> str:
    path = "/" + "/".join(quote(p, safe="") for p in parts)
    if query:
        path += "?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in query.items())
    return esc(path)


def _pct(used: int, budget: int) -> int:
    return 100 * used // max(budget, 1)


def bar(used: int, budget: int) -> str:
    """``used`` of ``budget`` as a bar drawn here (SVG, no script): the track is the budget,
    and past 100 % the bar runs on beyond a mark at the budget, in red."""
    pct = _pct(used, budget)
    scale = max(100, pct)
    width = round(200 * min(pct, scale) / scale, 1)
    mark = round(200 * 100 / scale, 1)
    colour = "#b00020" if pct > 100 else "#3a7d44"
    return ('<span class="nowrap"><svg class="bar" viewBox="0 0 200 10" '
            'preserveAspectRatio="none" role="img" '
            f'aria-label="{pct} % of the budget"><title>{used:,} of {budget:,} tokens '
            f'({pct} %)</title><rect width="200" height="10" fill="#e8e8e6"/>'
            f'<rect width="{width}" height="10" fill="{colour}"/>'
            f'<rect x="{max(mark - 1, 0)}" width="1.2" height="10" fill="#1d1d1f"/></svg>'
            f' <span class="{"over" if pct > 100 else "muted"}">{pct} %</span></span>')


def _project(app: App) -> tuple[Memory, bool]:
    """The memory the agent works in, and whether it is the global store served alone
    (``serve --global``: that store's own search and digest)."""
    name, mem = app.layers[0]
    return mem, name == GLOBAL


def _files_key(app: App) -> tuple[Any, ...]:
    """The signatures of the files the overview reads: each layer's memory and config
    files, the project's session folder's own files (the proposal count, decisions, the
    injection log a prompt appends to) and its asks folder (a new session's file); one
    stat a file, so that a page load costs what an entry page costs."""
    mem = app.layers[0][1]
    folders = [str(m.dir) for _, m in app.layers] + [str(m.agents_dir) for _, m in app.layers]
    home = _session_home(mem._root)
    folders.append(home)
    key: list[tuple[str, tuple[int, int, int] | None]] = []
    for folder in folders:
        try:
            with os.scandir(folder) as found:
                key.extend((f.path, _signature(f.path)) for f in found
                           if f.is_file() or f.name == "asks")
        except OSError:
            key.append((folder, None))
    return tuple(sorted(key, key=lambda k: k[0]))


def _injected_line(app: App) -> str:
    """``status``'s line: what rides at session start and before the last prompt."""
    mem, own = _project(app)
    if own:
        return ""
    start, before = recall_sheet.injected_tokens(mem, app.budget_tokens)  # status's figure
    worst = max(start, before)
    warn = (f' <span class="over">Over the {app.budget_tokens:,}-token digest budget.</span>'
            if worst > app.budget_tokens else "")
    return (f"<p>Injected: ~{start:,} tokens at session start, ~{before:,} before the last "
            f"prompt, of {app.budget_tokens:,} each {bar(worst, app.budget_tokens)} "
            f"(<a href=\"/context\">the context sheet</a>).{warn}</p>")


def page_overview(app: App) -> str:
    """The overview; its layers and "injected" line are made again only when a file they
    read changed, and the proposals are the remembered count (no matcher run)."""
    key = _files_key(app)
    if app._overview is None or app._overview[0] != key:
        body = _layers_overview(app) + "\n<h2>Rule proposals</h2>" + _proposals_summary(app)
        app._overview = (_files_key(app), body)  # after what making it wrote (caches)
    return _page(app, "What memory holds", app._overview[1], tab="Overview")


def _layers_overview(app: App) -> str:
    out = [_injected_line(app)]
    for name, mem in app.layers:
        st = mem.status()
        budget = max(st.token_budget, 1)
        rows = "".join(
            f"<tr><td><a href=\"{_href('shard', name, s.name)}\">{esc(s.name)}</a>"
            f"<div class=\"muted\">{esc(s.description)}</div></td>"
            f"<td class=\"num\">{s.entries:,}</td><td class=\"num\">{s.superseded:,}</td>"
            f"<td class=\"num\">{s.tokens:,}</td><td>{bar(s.tokens, budget)}</td></tr>"
            for s in st.shards)
        due = ('<span class="due">compaction is due</span> (run <code>lean-memory compact'
               '</code>)' if st.compaction_due else '<span class="ok">no compaction due</span>')
        over = (f"<p class=\"over\">Over budget: ~{st.total_tokens:,} tokens, "
                f"{_pct(st.total_tokens, budget)} % of {st.token_budget:,}. Run "
                "<code>lean-memory compact</code>, or raise <code>token_budget</code>.</p>"
                if st.total_tokens > st.token_budget else "")
        out.append(
            f"<h2>{esc(name)} memory</h2><p class=\"muted\">{esc(str(mem.dir))}</p>{over}"
            f"<p>{st.entries:,} live entr{'y' if st.entries == 1 else 'ies'}, "
            f"~{st.total_tokens:,} tokens of a "
            f"{st.token_budget:,}-token budget {bar(st.total_tokens, budget)}; compaction at "
            f"{st.compact_threshold:,}: {due}.</p>"
            "<div class=\"wide\"><table><thead><tr><th>Shard</th><th class=\"num\">Entries</th>"
            "<th class=\"num\">Superseded</th><th class=\"num\">Tokens</th>"
            f"<th>Share of the budget</th></tr></thead><tbody>{rows}</tbody></table></div>")
    return "\n".join(out)


def _proposals_summary(app: App) -> str:
    if app.proposals is None:
        return '<p class="muted">No learning loop yet: nothing proposes rules.</p>'
    n = app.proposals.waiting()
    return (f"<p><a href=\"/proposals\">{n} pending proposal{'s' if n != 1 else ''}</a></p>"
            if n else "<p class=\"muted\">No pending proposals.</p>")


def _corrector(mem: Memory, found: tuple[dict[str, tuple[Entry, bool]], dict[str, str]],
               entry_id: str) -> str | None:
    """The id of the entry that corrected ``entry_id`` (``found``: ``App.lookup``), unless
    that one is withheld."""
    ids, fixes = found
    fix = fixes.get(entry_id)
    if fix is None:
        return None
    [shown] = _shown(mem, [ids[fix][0]])
    return fix if shown.id == fix else None


def _shown(mem: Memory, entries: Sequence[Entry]) -> list[Entry]:
    return masked(mem, entries)[0]


def _folded(app: App, layer: str, e: Entry) -> str:
    """Links to the archived entries a compacted entry folds (its body names their ids)."""
    if e.get("compacted") is None or app.layer(layer) is None:
        return ""
    ids = app.lookup(layer)[0]
    named = [w.strip("`") for w in e.text.replace("(", " ").replace(")", " ").split()
             if w.startswith("`") and w.endswith("`")]
    links = [f"<a href=\"{_href('entry', layer, i)}\"><code>{esc(i)}</code></a>"
             for i in dict.fromkeys(named) if i in ids and ids[i][1]]
    return (f"<details><summary>folded entries ({len(links)}, in the archive)</summary>"
            f"<p>{' '.join(links)}</p></details>" if links else "")


def _article(layer: str, e: Entry, *, superseded_by: str | None, superseded: bool,
             archived: bool = False, link: bool = True, app: App | None = None) -> str:
    withheld = e.title == TITLE_WITHHELD and not e.meta
    facts = [f"<code>{esc(e.id)}</code>", esc(e.shard)]
    if e.date:
        facts.append(esc(e.date))
    facts.extend(f"{esc(k)}: {esc(v)}" for k, v in e.meta  # forgotten, reason, compacted...
                 if k not in ("said_again", "last_said"))
    tags = "".join(f'<span class="tag">{esc(t)}</span>' for t in e.tags)
    marks = []
    if layer != PROJECT:
        marks.append(f'<span class="mark">{esc(layer)}</span>')
    if archived:
        marks.append('<span class="mark">archived</span>')
    if superseded:
        to = (f" by <a href=\"{_href('entry', layer, superseded_by)}\">"
              f"<code>{esc(superseded_by)}</code></a>" if superseded_by else "")
        marks.append(f'<span class="mark">superseded{to}</span>')
    if e.supersedes:
        marks.append(f"corrects <a href=\"{_href('entry', layer, e.supersedes)}\">"
                     f"<code>{esc(e.supersedes)}</code></a>")
    if withheld:
        body = f"<p class=\"muted\">{esc(e.text)}</p>"
    else:
        body = render(main_text(e.text))
        again = said_again_part(e.text)
        if again:
            count = parse_count(e.get("said_again"))
            times = "more" if count is None else _count(count, "time", "times")
            body += (f"<details><summary>said again ({esc(times)})</summary>"
                     f"{render(again)}</details>")
        if app is not None:
            body += _folded(app, layer, e)
    title = esc(e.title)
    if link and not withheld and layer in (PROJECT, GLOBAL):
        title = f"<a href=\"{_href('entry', layer, e.id)}\">{title}</a>"
    cls = ' class="superseded"' if superseded else ""
    return (f"<article{cls}><h3>{title}</h3><div class=\"muted\">{' · '.join(facts)} "
            f"{tags} {' '.join(marks)}</div>{body}</article>")


def page_shard(app: App, layer: str, shard: str, *, archive: bool, page: int) -> str | None:
    mem = app.layer(layer)
    if mem is None or shard not in mem.shards:
        return None
    entries = app.entries(layer, shard, archive=archive)
    last = max(0, (len(entries) - 1) // PAGE_SIZE)
    page = min(max(page, 0), last)
    shown = _shown(mem, entries[page * PAGE_SIZE:(page + 1) * PAGE_SIZE])
    found = app.lookup(layer)
    arts = "".join(_article(layer, e, superseded=not archive and e.id in found[1],
                            superseded_by=None if archive else _corrector(mem, found, e.id),
                            archived=archive, app=app) for e in shown)
    other = (f"<a href=\"{_href('shard', layer, shard)}\">the live entries</a>" if archive else
             f"<a href=\"{_href('shard', layer, shard, archive='1')}\">its archive</a>")
    pager = ""
    if last:
        q = {"archive": "1"} if archive else {}
        links = [f"<a href=\"{_href('shard', layer, shard, **q, page=str(p))}\">{p + 1}</a>"
                 if p != page else f"<strong>{p + 1}</strong>" for p in range(last + 1)]
        pager = "<p>Page " + " ".join(links) + "</p>"
    what = "archive" if archive else "shard"
    n = _count(len(entries), "entry", "entries")
    body = (f"<p>{n} ({esc(layer)} memory). See {other}.</p>{pager}"
            f"{arts or '<p class=muted>No entries.</p>'}{pager}")
    return _page(app, f"{shard} {what}", body, tab=f"{layer} memory")


def page_entry(app: App, layer: str, entry_id: str) -> str | None:
    mem = app.layer(layer)
    if mem is None:
        return None
    known = app.lookup(layer)
    found = known[0].get(entry_id)
    if found is None:
        return None
    [e] = _shown(mem, [found[0]])
    superseded = not found[1] and entry_id in known[1]
    art = _article(layer, e, superseded=superseded,
                   superseded_by=_corrector(mem, known, entry_id) if superseded else None,
                   archived=found[1], link=False, app=app)
    if found[1]:  # forgotten or folded: it lives in the archive, not in the live shard
        back = (f"<p>In the archive of <a href=\"{_href('shard', layer, e.shard, archive='1')}"
                f"\">{esc(e.shard)}</a>; no longer injected.</p>")
    else:
        back = f"<p>In <a href=\"{_href('shard', layer, e.shard)}\">{esc(e.shard)}</a>.</p>"
    return _page(app, e.title or entry_id, art + back, tab=f"{layer} entry")


def _cached(app: App) -> Callable[[MemoryLike], Iterable[Entry]]:
    """A layer's entries, live then archived, from the page's parse cache."""
    names = {str(m.dir): n for n, m in app.layers}

    def entries(mem: MemoryLike) -> Iterable[Entry]:
        name = names.get(str(mem.dir))
        if name is None:  # not served here (a store opened again): parsed now
            return [e for archive in (False, True) for s in mem.shards
                    for e in mem.entries(s, archive=archive)]
        return [e for archive in (False, True) for s in mem.shards
                for e in app.entries(name, s, archive=archive)]

    return entries


def hook_block(app: App, prompt: str) -> str:
    """What the prompt hook injects before ``prompt``, byte for byte (its additionalContext)."""
    mem, own = _project(app)
    if own:
        return recall.fit(mem.digest(prompt, budget_tokens=app.budget_tokens,
                                     layers=recall.THIS_STORE))
    return recall.injected(mem, prompt, budget_tokens=app.budget_tokens)


def page_search(app: App, query: str) -> str:
    form = ('<form method="get" action="/search"><input type="search" name="q" '
            f'value="{esc(query)}" placeholder="words, or a prompt" autofocus> '
            '<button type="submit">Search</button></form>')
    if not query.strip():
        return _page(app, "Search", form)

    mem, own = _project(app)
    try:
        found = recall.search(mem, query, k=SEARCH_K,
                              layers=recall.THIS_STORE if own else recall.LAYERS)
    except QueryError as exc:
        return _page(app, "Search", form + f"<p>{esc(str(exc))}</p>")
    arts = "".join(_article(app.layers[0][0] if own else h.layer, h.entry, superseded=False,
                            superseded_by=None, archived=h.archived)
                   for h in found.hits)  # never superseded ones
    block = hook_block(app, query)
    body = (f"{form}<h2>Best matches ({len(found.hits)})</h2><p class=\"muted\">Ranked as "
            f"<code>lean-memory get --query … -k {SEARCH_K}</code> ranks them, over every "
            "layer; superseded entries and entries that hold a credential never appear.</p>"
            f"{arts or '<p class=muted>No entry matches.</p>'}"
            f"<h2>What the prompt hook injects (~{_tokens(block):,} tokens)</h2>"
            "<p class=\"muted\">Within a session, what it was already shown (the standing "
            "rules at its start, entries before earlier prompts) is not repeated.</p>"
            f"<pre>{esc(block) or '(nothing)'}</pre>")
    return _page(app, "Search", body, tab=query[:60])


def page_context(app: App, prompt: str) -> str:
    mem, own = _project(app)
    form = ('<form method="get" action="/context"><input type="search" name="q" '
            f'value="{esc(prompt)}" placeholder="a prompt (else the last one asked)"> '
            '<button type="submit">Show</button></form>')
    if own:
        return _page(app, "Context budget", form + "<p class=\"muted\">Your global memory "
                     "rides inside each project's blocks: open the page of a project.</p>")
    budget = app.budget_tokens
    parts = recall_sheet.context(mem, prompt if prompt.strip() else None, budget)
    rows = recall_sheet.sheet(mem, parts, budget, entries=_cached(app))
    links = {PROJECT, GLOBAL} & {n for n, _ in app.layers}

    def entry(r: dict[str, Any]) -> str:
        name = esc(r["title"] or r["note"] or "(heading, notes)")
        if r["id"] and r["layer"] in links:
            return f"<a href=\"{_href('entry', r['layer'], r['id'])}\">{name}</a>"
        return name

    table = "".join(f"<tr><td class=\"num\">{r['tokens']:,}</td><td>{esc(r['when'])}</td>"
                    f"<td>{esc(r['layer'])}</td><td>{esc(r['block'])}</td>"
                    f"<td>{entry(r)}</td></tr>" for r in rows)
    texts = [(w, recall.fit("".join(b.text for b in blocks).lstrip("\n")))
             for w, blocks in parts]
    totals = "".join(f"<li>{esc(w)}: ~{_tokens(t):,} of {budget:,} tokens "
                     f"{bar(_tokens(t), budget)}"
                     f"{' <span class=over>over budget</span>' if _tokens(t) > budget else ''}"
                     "</li>" for w, t in texts)
    full = "".join(f"<h2>The {esc(w)} block (~{_tokens(t):,} tokens)</h2>"
                   f"<pre>{esc(t) or '(nothing)'}</pre>" for w, t in texts)
    body = (f"{form}<p>What rides every session and every prompt, as "
            "<code>lean-memory context --json</code> lists it: one row per injected entry, "
            f"largest first.</p><ul>{totals}</ul>"
            "<div class=\"wide\"><table><thead><tr><th class=\"num\">Tokens</th><th>When</th>"
            "<th>Layer</th><th>Block</th><th>Entry</th></tr></thead>"
            f"<tbody>{table}</tbody></table></div>{full}")
    return _page(app, "Context budget", body, tab="Context")


RECENT = 15  # entries listed under "what changed recently"


def _recent(app: App) -> str:
    rows: list[tuple[str, str, bool, Entry]] = []
    for name, mem in app.layers:
        for archive in (False, True):
            for shard in mem.shards:
                rows.extend((e.date or "", name, archive, e)
                            for e in app.entries(name, shard, archive=archive))
    rows.sort(key=lambda r: (r[0], r[1], r[3].id), reverse=True)
    items = []
    for date, name, archive, e in rows[:RECENT]:
        [shown] = _shown(dict(app.layers)[name], [e])
        what = ("forgotten" if e.get("forgotten") else "folded" if archive
                else "corrected" if e.supersedes else "compacted" if e.get("compacted")
                else "added")
        items.append(f"<tr><td>{esc(date or '—')}</td><td>{esc(what)}</td>"
                     f"<td>{esc(name)}</td><td><a href=\"{_href('entry', name, e.id)}\">"
                     f"{esc(shown.title)}</a> <span class=\"muted\">{esc(e.shard)}</span>"
                     "</td></tr>")
    return ("<div class=\"wide\"><table><thead><tr><th>Date</th><th>What</th><th>Layer</th>"
            f"<th>Entry</th></tr></thead><tbody>{''.join(items)}</tbody></table></div>"
            if items else '<p class="muted">No entries yet.</p>')


def chart(points: Sequence[Point]) -> str:
    """Token totals over time as an SVG line drawn here (the page runs no script), the
    budget a dashed line."""
    if not points:
        return ('<p class="muted">No history: INDEX.md has no commits here (or git is '
                'missing).</p>')
    w, h, pad = 600, 200, 30
    top = max(max(p.tokens for p in points), max(p.budget for p in points), 1)
    n = len(points)

    def x(i: int) -> float:
        return round(pad + (w - 2 * pad) * (i / (n - 1) if n > 1 else 0.5), 1)

    def y(v: int) -> float:
        return round(h - pad - (h - 2 * pad) * v / top, 1)

    line = " ".join(f"{x(i)},{y(p.tokens)}" for i, p in enumerate(points))
    dots = "".join(f'<circle cx="{x(i)}" cy="{y(p.tokens)}" r="3" fill="#0b5cad">'
                   f"<title>{esc(p.date)} {esc(p.commit)}: ~{p.tokens:,} tokens</title>"
                   "</circle>" for i, p in enumerate(points))
    budget = points[-1].budget
    return (f'<svg class="chart" viewBox="0 0 {w} {h}" role="img" aria-label="tokens over '
            f'time"><rect width="{w}" height="{h}" fill="#fff"/>'
            f'<line x1="{pad}" y1="{y(budget)}" x2="{w - pad}" y2="{y(budget)}" '
            f'stroke="#b00020" stroke-dasharray="6 4"/>'
            f'<text x="{w - pad}" y="{max(y(budget) - 4, 10)}" font-size="11" '
            f'fill="#b00020" text-anchor="end">budget {budget:,}</text>'
            f'<polyline points="{line}" fill="none" stroke="#0b5cad" stroke-width="2"/>'
            f"{dots}"
            f'<text x="{pad}" y="{h - 8}" font-size="11" fill="#555">{esc(points[0].date)}'
            f'</text><text x="{w - pad}" y="{h - 8}" font-size="11" fill="#555" '
            f'text-anchor="end">{esc(points[-1].date)}</text>'
            f'<text x="{pad}" y="{pad - 8}" font-size="11" fill="#555">~{top:,} tokens'
            "</text></svg>")


def _history(app: App) -> list[Point]:
    """INDEX.md's token totals over its commits, read again only when git's HEAD or
    refs moved (their files' signatures)."""
    mem = app.layers[0][1]
    git = os.path.join(str(mem.root), ".git")
    key = tuple(_signature(os.path.join(git, f)) for f in ("", "HEAD", "logs/HEAD",
                                                             "packed-refs"))
    key += (_signature(mem.index_path),)
    if app._history is None or app._history[0] != key:
        app._history = (key, index_history(str(mem.root), str(mem.index_path)))
    return app._history[1]


def _injection_log(app: App) -> str:
    mem, own = _project(app)
    if own:
        return ""
    found = recall_sheet.injections(mem, entries=_cached(app))
    if not found:
        return ('<p class="muted">Nothing noted yet: the prompt hook notes here which '
                "entries it injected before each prompt.</p>")
    links = {PROJECT, GLOBAL} & {n for n, _ in app.layers}
    items = []
    for inj in found:
        names = []
        for i, title in inj.entries:
            where = next((n for n in (PROJECT, GLOBAL) if n in links and app.layer(n)
                          is not None and i in app.lookup(n)[0]), None)
            names.append(f"<a href=\"{_href('entry', where, i)}\">{esc(title)}</a>"
                         if i and where else esc(title))
        items.append(f"<li><span class=\"muted\">{esc(inj.at)}</span> "
                     f"<q>{esc(inj.prompt[:160])}</q>: {', '.join(names) or 'no entry'}</li>")
    return "<ul>" + "".join(items) + "</ul>"


def page_history(app: App) -> str:
    body = ("<h2>What changed recently</h2>" + _recent(app)
            + "<h2>Token cost over time</h2><p class=\"muted\">The total of INDEX.md at each "
            "of its last commits.</p>" + chart(_history(app))
            + "<h2>Which prompts injected which entries</h2><p class=\"muted\">Your own log, "
            "kept in your session folder (never committed, bounded), newest first.</p>"
            + _injection_log(app))
    return _page(app, "History", body)


def _rule_cost(rule: str) -> int:
    """The tokens a rule adds to every session (its line among the standing rules)."""
    return _tokens("- " + " ".join(rule.split()) + "\n")


def page_proposals(app: App, said: str = "") -> str:
    note = f"<p class=\"mark\">{esc(said)}</p>" if said else ""
    if app.proposals is None:
        return _page(app, "Rule proposals", note + '<p class="muted">No learning loop yet: '
                     "nothing proposes rules, so there is nothing to say yes or no to.</p>")
    key = _files_key(app)  # listed again only when what they rest on here changed
    if app._listing is None or app._listing[0] != key:
        found = list(app.proposals.pending()) if app.proposals.waiting() else []
        app._listing = (_files_key(app), found)  # after what listing them wrote
    items = []
    for p in app._listing[1]:
        evidence = "".join(f"<li>{render(x)}</li>" for x in p.evidence)
        where = f" (<code>{esc(p.where)}</code>)" if p.where else ""
        items.append(
            f"<article><h3>{esc(p.layer)} · <code>{esc(p.id)}</code></h3>{render(p.rule)}"
            f"<p class=\"muted\">A yes writes it to the {esc(p.layer)} conventions{where}; "
            f"it then rides every session: ~{_rule_cost(p.rule):,} tokens each.</p>"
            f"<details open><summary>evidence ({len(p.evidence)})</summary><ul>{evidence}"
            f"</ul></details><form class=\"inline\" method=\"post\" "
            f"action=\"{_href('proposals', p.id)}\">"
            f"<input type=\"hidden\" name=\"token\" value=\"{esc(app.token)}\">"
            "<button name=\"answer\" value=\"yes\">Yes</button>"
            "<button name=\"answer\" value=\"no\">No</button></form></article>")
    return _page(app, "Rule proposals",
                 note + ("".join(items) or '<p class="muted">No pending proposals.</p>'))


# -- the server -------------------------------------------------------------------------

SECURITY_HEADERS = (
    ("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; "
                                "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
)


class Handler(BaseHTTPRequestHandler):
    app: App  # set on the class made per server
    server_version = "lean-memory"
    sys_version = ""
    timeout = TIMEOUT_S
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the request line carries the token; nothing is logged

    def _send(self, code: int, body: str, *, ctype: str = "text/html; charset=utf-8",
              headers: Sequence[tuple[str, str]] = ()) -> None:
        data = body.encode("utf-8", "replace")
        self.send_response(code)
        for k, v in (*SECURITY_HEADERS, *headers):
            self.send_header(k, v)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _refuse(self, code: int, why: str) -> None:
        self._send(code, f"{why}\n", ctype="text/plain; charset=utf-8")

    def _origins(self) -> tuple[str, ...]:
        port = self.app.port
        return (f"127.0.0.1:{port}", f"localhost:{port}")

    def _cookie_name(self) -> str:
        return f"lean_memory_{self.app.port}"

    def _has_token(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode(), self.app.token.encode())

    def _cookie_token(self) -> str | None:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(self.headers.get("Cookie", ""))
        except CookieError:
            return None
        morsel = jar.get(self._cookie_name())
        return morsel.value if morsel else None

    def _checked(self) -> tuple[str, dict[str, list[str]]] | None:
        """The path and query of an allowed request; None when refused (answered)."""
        if len(self.path) > MAX_TARGET:
            self._refuse(414, "request target too long")
            return None
        if self.headers.get("Host", "") not in self._origins():
            self._refuse(421, "foreign Host: open the address lean-memory serve printed")
            return None
        url = urlsplit(self.path)
        query = parse_qs(url.query, max_num_fields=20)
        given = query.get("token", [None])[0]
        if self._has_token(self._cookie_token()) and given is None:
            return url.path, query
        if self.command in ("GET", "HEAD") and self._has_token(given):
            # First load: keep the token in a cookie, and take it out of the address bar.
            rest = "&".join(f"{k}={quote(v, safe='')}" for k, vs in query.items()
                            if k != "token" for v in vs)
            cookie = (f"{self._cookie_name()}={self.app.token}; HttpOnly; SameSite=Strict; "
                      "Path=/")
            self.send_response(303)
            for k, v in SECURITY_HEADERS:
                self.send_header(k, v)
            self.send_header("Set-Cookie", cookie)
            here = "/" + url.path.lstrip("/")  # never `//host`: no way off this server
            self.send_header("Location", here + (f"?{rest}" if rest else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        self._refuse(403, "the token is missing or wrong: open the address lean-memory "
                          "serve printed")
        return None

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        checked = self._checked()
        if checked is None:
            return
        path, query = checked

        def q(name: str) -> str:
            return query.get(name, [""])[0][:2000]

        if path == "/style.css":
            self._send(200, STYLE, ctype="text/css; charset=utf-8")
            return
        parts = [p for p in path.split("/") if p]

        parts = [unquote(p) for p in parts]
        with self.app.lock:
            try:
                self.app.look()  # the layers as they are now, for this whole request
                body = self._route(parts, q)
            except LeanMemoryError as exc:  # one line, redacted (the error's own rule)
                body = _page(self.app, "Error", f"<p>{esc(str(exc))}</p>")
            except Exception as exc:  # only the type: a message could quote memory text
                self._refuse(500, f"internal error ({type(exc).__name__})")
                return
        if body is None:
            self._refuse(404, "not found")
        else:
            self._send(200, body)

    def _route(self, parts: list[str], q: Callable[[str], str]) -> str | None:
        app = self.app
        if not parts:
            return page_overview(app)
        head, rest = parts[0], parts[1:]
        if head == "shard" and len(rest) == 2:
            page = q("page")
            return page_shard(app, rest[0], rest[1], archive=q("archive") == "1",
                              page=int(page) if page.isdecimal() and len(page) < 7 else 0)
        if head == "entry" and len(rest) == 2:
            return page_entry(app, rest[0], rest[1])
        if head == "search" and not rest:
            return page_search(app, q("q"))
        if head == "context" and not rest:
            return page_context(app, q("q"))
        if head == "history" and not rest:
            return page_history(app)
        if head == "proposals" and not rest:
            said, app.notice = app.notice, ""  # shown once, after the answer's redirect
            return page_proposals(app, said)
        return None

    def _same_origin(self) -> bool:
        """Whether the browser says this POST comes from a page of this server: its Origin
        names it, or (Referrer-Policy no-referrer makes Chromium send ``Origin: null``)
        its Sec-Fetch-Site, which no page can set, says same-origin. Neither: refused."""
        origin = self.headers.get("Origin")
        site = self.headers.get("Sec-Fetch-Site")
        ours = origin in {f"http://{o}" for o in self._origins()}
        if origin is not None and origin != "null" and not ours:
            return False
        if site is not None and site != "same-origin":
            return False
        return ours or site == "same-origin"

    def do_POST(self) -> None:
        if not self._same_origin():
            self._refuse(403, "cross-origin request refused")
            return
        checked = self._checked()
        if checked is None:
            return
        path, _ = checked
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._refuse(411, "a length is needed")
            return
        if not 0 <= length <= MAX_BODY:
            self._refuse(413, "request body too large")
            return
        form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"), max_num_fields=5)
        parts = path.split("/")
        if (not self._has_token(form.get("token", [None])[0]) or len(parts) != 3
                or parts[1] != "proposals"):
            self._refuse(403, "the form's token is missing or wrong")
            return
        answer = form.get("answer", [""])[0]
        if answer not in ("yes", "no") or self.app.proposals is None:
            self._refuse(400, "answer yes or no to a pending proposal")
            return

        with self.app.lock:
            try:
                said = self.app.proposals.decide(unquote(parts[2]), answer == "yes")
            except LeanMemoryError as exc:
                said = str(exc)
            except Exception as exc:
                self._refuse(500, f"internal error ({type(exc).__name__})")
                return
            self.app.notice = said
        # POST, then redirect: a reload of the page it leads to asks nothing again
        self._send(303, "", ctype="text/plain; charset=utf-8",
                   headers=(("Location", "/proposals"),))


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False  # a port in use must say so

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away, a timeout: no traceback (it could quote memory)


def make_server(app: App, port: int = 0) -> Server:
    """A server for ``app`` on 127.0.0.1:``port`` (0: any free one); not yet serving."""
    handler = type("BoundHandler", (Handler,), {"app": app})
    try:
        server = Server((HOST, port), handler)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortInUse(f"port {port} on {HOST} is in use (choose another with --port, "
                            "or --port 0 for any free one)") from None
        raise
    app.port = server.server_address[1]
    return server


def url(app: App) -> str:
    """The address to open: it carries the token."""
    return f"http://{HOST}:{app.port}/?token={app.token}"
