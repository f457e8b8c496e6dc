"""``lean-memory get --query``: the entries that match a query (the hottest command: no
typing, no json). ``get``'s other forms (INDEX.md, a shard, the digest before a prompt,
``--json``) are :mod:`lean_memory.commands.get_shown`'s, loaded through :data:`OTHER` when
one runs: a query loads neither it nor what it needs (ADR 0057)."""

from __future__ import annotations

import sys

from ..cli import PROG, UsageError, _load, say
from ..globalstore import _global_root, check_project, open_global, reader_at
from ..layers import GLOBAL, LAYERS, PROJECT, LayerHit, render
from ..recall import THIS_STORE, search
from ..search import render_hits
from ..withhold import count_note
from . import global_asked, no_global

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import TextIO

    from .._protocols import MemoryLike

# `get` without --query, or with --json: INDEX.md, a shard, the digest, the JSON forms
OTHER = "lean_memory.commands.get_shown:run"


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    if args.query is None or args.digest is not None or args.json:
        found: int = _load(OTHER)(args, out)
        return found
    # reads only: no facade (ADR 0050)
    hits = found_hits(reader(args), args)
    out.write(render(hits) if hits and (_own(args) or any(h.layer != PROJECT for h in hits))
              else _plain(hits))
    if not hits:
        say("no entry matches the query")
    return 0


def found_hits(mem: MemoryLike, args: argparse.Namespace) -> Sequence[LayerHit]:
    """``get --query``: the entries that match, over the layers (``--global``: that one
    alone); the notes on what was withheld and how it was searched said on stderr."""
    own = _own(args)
    archive = False if args.no_archive else None  # None: the config's search_archive
    shards = (args.shard,) if args.shard else None
    scope = True if args.archive else archive
    found = search(mem, args.query, k=args.k, shards=shards, include_archive=scope,
                   session=getattr(args, "session", None),
                   layers=THIS_STORE if own else LAYERS)  # --global: that store alone
    withheld, notes = found.withheld, found.notes
    hits = [LayerHit(GLOBAL, h.hit) for h in found.hits] if own else found.hits
    note_withheld(withheld)
    if notes:  # searched without a retriever: one line, BM25 answered
        say("note: " + "; ".join(notes))
    return hits


def _own(args: argparse.Namespace) -> bool:
    """``--global``: that layer alone."""
    own: bool = getattr(args, "global_", False)
    return own


def _plain(hits: Sequence[LayerHit]) -> str:
    """Hits of the project layer alone, rendered as before there were layers."""
    return render_hits([h.hit for h in hits])


def note_withheld(n: int) -> None:
    """The note on stderr when ``n`` entries were withheld (``get``, ``list``, ``show``)."""
    if n:
        sys.stderr.write(f"{PROG}: note: {count_note(n)}\n")


def reader(args: argparse.Namespace) -> MemoryLike:
    """The memory ``get --query`` reads (:func:`lean_memory.commands._memory.memory`'s, as a
    reader): the facade's module stays unloaded (ADR 0050)."""
    if not global_asked(args, False):
        return check_project(reader_at(args.root))
    g = open_global()
    if g is None:
        raise no_global(reader_at(_global_root()).dir)  # or its LayerError
    return g
