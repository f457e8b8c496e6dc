"""The layers of memory: global (the person's, every project), project, session (ADR 0022).

* **Where they live.** Only the environment and the platform decide: the global store is
  ``$LEAN_MEMORY_GLOBAL``, else ``<data>/lean-memory/global`` where ``<data>`` is
  ``$XDG_DATA_HOME``, else the platform's per-user data folder (``~/.local/share``,
  ``~/Library/Application Support``, ``%APPDATA%``). Nothing a repository holds (its config,
  caches, hooks, links) is ever read to find it. A session layer, per project, is
  ``<data>/lean-memory/projects/<slug>-<hash of the project's real path>/``: personal, local,
  never in a folder that is committed.
* **One view over them.** :func:`find` and :func:`digest` see global and project together,
  each hit labelled with its layer. The same text in two layers is shown once, from the
  higher layer (global, then project, then session); an entry of the project that
  supersedes a global one hides it in this project's views only (the global store is never
  edited from a project). Standing rules ride from both layers, the global ones first.
"""

from __future__ import annotations

from . import format as fmt
from ._record import Record
from .bm25 import tokenize
from .errors import LeanMemoryError
from .globalstore import (
    GLOBAL,
    GLOBAL_ENV,
    LAYERS,
    OVERRIDES,
    PROJECT,
    SESSION,
    LayerError,
    check_project,
    global_memory,
    global_root,
    memory_at,
    open_global,
    overrides_global,
)
from .globalstore import _global_root as _global_root  # learn's import of it, kept
from .search import find as find_one
from .search import render_hits
from .sessionlog import app_home, data_home, project_key, session_home
from .summaries import normalize
from .tokens import estimate_tokens
from .withhold import count_note, live_entries

# Inside functions on purpose: digest, manage and dedup are not on the warm query's path
# (tests/test_hot_lines.py); pathlib only for the Path API.
TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from ._protocols import MemoryLike
    from .format import Entry
    from .search import Hit

# moved to sessionlog and globalstore (a put imports those, not the search)
__all__ = ["GLOBAL", "GLOBAL_ENV", "LAYERS", "OVERRIDES", "PROJECT", "SESSION", "LayerError",
           "app_home", "check_project", "data_home", "global_memory", "global_root",
           "memory_at", "open_global", "overrides_global", "project_key", "session_home"]

GLOBAL_SHARE = 3  # the global block takes at most 1/3 of a digest's budget
GLOBAL_RULES_HEAD = "\n## Your standing rules (global: every project, follow them)\n"
GLOBAL_MATCH_HEAD = "\n## Your global memory matching this prompt\n"


# -- one search over the layers -----------------------------------------------------------


class LayerHit(Record):
    """A hit and the layer it comes from."""

    _fields = ("layer", "hit")
    __slots__ = _fields
    layer: str
    hit: Hit

    def __init__(self, layer: str, hit: Hit) -> None:
        self._init(layer, hit)

    # Read as a Hit too (``Memory.search`` returns these, ADR 0034).
    entry = property(lambda self: self.hit.entry)
    shard = property(lambda self: self.hit.shard)
    score = property(lambda self: self.hit.score)
    archived = property(lambda self: self.hit.archived)
    base = property(lambda self: self.hit.base)
    rank = property(lambda self: self.hit.rank)


def _key(entry: Entry) -> str:
    return normalize(fmt.main_text(entry.text))


def project_overrides(project: MemoryLike) -> dict[str, str]:
    """{global id: the project entry that supersedes it} (hidden in this project's views).
    Runs before every prompt: only a shard whose text names the tag is parsed."""
    out: dict[str, str] = {}
    try:
        for name in project.shards:
            text = project.read_text(project._shard_file(name))
            if OVERRIDES in text:
                for e in fmt.parse(text, name).entries:
                    out.update((t[len(OVERRIDES):], e.id) for t in e.tags
                               if t.startswith(OVERRIDES))
    except LeanMemoryError:
        return out
    return out


def _project_supersedes(project: MemoryLike) -> set[str]:
    """Global ids the project's live entries supersede (hidden in this project's views)."""
    return set(project_overrides(project))


def global_texts(g: MemoryLike) -> dict[str, tuple[str, str]]:
    """{normalised main text: (id, shard)} of the global store's live entries: a project
    entry saying the same is shown once, from the global layer."""
    hidden = g.superseded_ids()
    return {_key(e): (e.id, e.shard) for e in g.entries() if e.id not in hidden}


def same_text(entry: Entry, texts: dict[str, tuple[str, str]]) -> tuple[str, str] | None:
    """The global (id, shard) saying what ``entry`` says, if any."""
    return texts.get(_key(entry))


def _live_keys(mem: MemoryLike) -> set[str]:
    hidden = mem.superseded_ids()
    return {_key(e) for e in mem.entries() if e.id not in hidden}


# BM25 scores of two stores are on scales that differ with their sizes and vocabularies, so
# ranks interleave; a score this many times another's is a real difference on any scale.
CLEARLY_BETTER = 3.0


def find(project: MemoryLike, query: str, *, k: int = 5, shards: Sequence[str] | None = None,
         include_archive: bool | None = None, session: Sequence[Hit] = (),
         ) -> tuple[list[LayerHit], int, tuple[str, ...]]:
    """The ``k`` best entries for ``query`` over the global and project layers (and
    ``session``: this session's asks as hits, best first), each labelled; (hits, withheld,
    notes). Ranks interleave (a layer's scores do not compare closely with another's), the
    higher layer first on a tie, unless a hit scores :data:`CLEARLY_BETTER` times the one
    ranked before it from another layer (a weak global note never outranks a strong project
    entry); a text said in two layers is shown once, from the higher."""
    found = find_one(project, query, k=k, shards=shards, include_archive=include_archive)
    g = open_global()
    g_shards = None if shards is None or g is None else [s for s in shards if s in g.shards]
    g_hits: list[Hit] = []
    withheld, notes = found.withheld, found.notes
    p_hits = found.hits
    if g is not None and g_shards != []:
        g_found = find_one(g, query, k=k, shards=g_shards, include_archive=include_archive)
        gone = _project_supersedes(project)
        g_hits = [h for h in g_found.hits if h.entry.id not in gone]
        g_keys = _live_keys(g)
        p_hits = [h for h in p_hits if _key(h.entry) not in g_keys]
        withheld, notes = withheld + g_found.withheld, (*notes, *g_found.notes)
    if session:
        said = {_key(h.entry) for h in (*g_hits, *p_hits)} | (
            _live_keys(g) if g is not None else set()) | _live_keys(project)
        session = [h for h in session if _key(h.entry) not in said]
    merged: list[tuple[int, int, LayerHit]] = []
    for order, (layer, hits) in enumerate(((GLOBAL, g_hits), (PROJECT, p_hits),
                                           (SESSION, session))):
        merged.extend((rank, order, LayerHit(layer, h)) for rank, h in enumerate(hits))
    merged.sort(key=lambda t: (t[0], t[1]))
    out = [t[2] for t in merged]
    for i in range(1, len(out)):  # insertion: a clearly better hit moves up past weak ones
        j = i
        while j > 0 and out[j - 1].layer != out[j].layer and \
                out[j].hit.score > CLEARLY_BETTER * out[j - 1].hit.score:
            out[j - 1], out[j] = out[j], out[j - 1]
            j -= 1
    return out[:k], withheld, notes


def render(hits: Sequence[LayerHit]) -> str:
    """:func:`lean_memory.search.render_hits`, each hit labelled with its layer."""
    parts = []
    for lh in hits:
        text = render_hits([lh.hit])
        head, _, rest = text.partition("\n_")
        parts.append(f"{head}\n_layer: {lh.layer} · {rest}")
    return "\n".join(parts)


# -- one digest over the layers -----------------------------------------------------------


class Block(Record):
    """A named part of what a hook injects, for `context`: its layer, text and what was
    left out of it."""

    _fields = ("name", "layer", "text", "note")
    __slots__ = _fields
    name: str
    layer: str
    text: str
    note: str

    def __init__(self, name: str, layer: str, text: str, note: str = "") -> None:
        self._init(name, layer, text, note)


def _global_rules(g: MemoryLike, gone: set[str]) -> tuple[list[Entry], int]:
    from .digest import RULES_SHARD

    if RULES_SHARD not in g.shards:
        return [], 0
    hidden = g.superseded_ids() | gone
    live = [e for e in g.entries(RULES_SHARD) if e.id not in hidden]
    kept, withheld = live_entries(g, live)
    return kept, withheld


def global_blocks(project: MemoryLike, prompt: str, budget: int,
                  include_archive: bool | None = None, *, rules: bool = True,
                  seen: Collection[str] = (), shown: list[str] | None = None) -> list[Block]:
    """The global layer's part of a digest in ``budget`` tokens: its standing rules (only
    entries of its ``conventions`` ride uncapped by ranking), then its matches. Pay-once
    (``rules`` False, ADR 0030): no rules block, the rules match like any entry, nothing
    in ``seen`` is shown again, and ``shown`` gets the ids shown whole."""
    from .digest import (
        RULES_SHARD,
        _fit_rules,
        _Matches,
        _pack_matches,
        _placeholder,
        _tokens,
    )

    g = open_global()
    if g is None or budget <= 0:
        return []
    gone = _project_supersedes(project)
    standing, withheld = _global_rules(g, gone) if rules else ([], 0)
    blocks = []
    used = 0
    if standing:
        room = budget * 2 // 3 if prompt.strip() else budget
        lines = _fit_rules(standing, room - _tokens(GLOBAL_RULES_HEAD) - 1)
        if lines:
            text = GLOBAL_RULES_HEAD + "\n".join(lines) + "\n"
            note = "; ".join(x for x in (
                f"{len(standing)} rule{'s' if len(standing) != 1 else ''}, each cut to its "
                "cap when long",
                count_note(withheld) if withheld else "") if x)
            blocks.append(Block("standing rules", GLOBAL, text, note))
            used = _tokens(text)

    others = [s for s in g.shards if s != RULES_SHARD or not rules]
    if prompt.strip() and others and tokenize(prompt):
        room = budget - used
        found = _Matches(g, prompt[:4000], others, include_archive, room,
                         None if rules else seen)
        found.hits = [h for h in found.hits if h.entry.id not in gone
                      and not _placeholder(h.entry)]
        ids: list[str] = []
        lines, rest, more = _pack_matches(found, room - _tokens(GLOBAL_MATCH_HEAD), ids)
        if shown is not None:
            shown.extend(i for i in ids if i)
        if lines:
            text = GLOBAL_MATCH_HEAD + "\n".join(lines) + "\n"
            blocks.append(Block("matches", GLOBAL, text,
                                f"{rest}{'+' if more else ''} left out for the budget"
                                if rest else ""))
    return blocks


def _drop_repeated(text: str, shown: str) -> str:
    """``text`` without the list lines ``shown`` already holds (the same text twice is
    shown once, from the higher layer)."""
    seen = {ln for ln in shown.splitlines() if ln.startswith("- ")}
    if not seen:
        return text
    kept = [ln for ln in text.splitlines(keepends=True) if ln.rstrip("\n") not in seen]
    if len(kept) == len(text.splitlines()):
        return text
    # a heading whose every line went (a project rule hidden by the same global one) goes
    # with them: no empty "Standing rules" section
    out = [ln for i, ln in enumerate(kept) if not ln.startswith("## ")
           or not next((x for x in kept[i + 1:] if x.strip()), "## ").startswith("## ")]
    return "".join(out)


def digest_blocks(project: MemoryLike, prompt: str, *, budget_tokens: int = 1200,
                  include_archive: bool | None = None, rules: bool = True,
                  seen: Collection[str] = (), shown: list[str] | None = None) -> list[Block]:
    """The blocks of the digest over the layers: the global rules and matches in at most
    1/:data:`GLOBAL_SHARE` of the budget, then the project's digest in what is left
    (``rules``, ``seen``, ``shown``: pay-once, :func:`lean_memory.digest.digest`)."""
    from .digest import digest

    head = global_blocks(project, prompt, max(budget_tokens, 0) // GLOBAL_SHARE,
                         include_archive, rules=rules, seen=seen, shown=shown)
    used = sum(estimate_tokens(b.text) for b in head)
    text = digest(project, prompt, budget_tokens=budget_tokens - used,
                  include_archive=include_archive, index=None if rules else False,
                  rules=rules, seen=seen, shown=shown)
    text = _drop_repeated(text, "".join(b.text for b in head))
    if head and text.strip():
        text = "\n" + text.lstrip("\n")
    return [*head, Block("digest", PROJECT, text)] if text.strip() else head


def digest(project: MemoryLike, prompt: str, *, budget_tokens: int = 1200,
           include_archive: bool | None = None) -> str:
    """The block to inject before ``prompt``, over the global and project layers."""
    blocks = digest_blocks(project, prompt, budget_tokens=budget_tokens,
                           include_archive=include_archive)
    return "".join(b.text for b in blocks).lstrip("\n")
