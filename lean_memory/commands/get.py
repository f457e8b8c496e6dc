"""``lean-memory get``: INDEX.md, a shard, the digest before a prompt, or the entries that
match a query (the hottest command: no typing, no json unless ``--json``)."""

from __future__ import annotations

import sys

from ..layers import GLOBAL, LAYERS, PROJECT, LayerHit, render
from ..recall import THIS_STORE, injected, search
from ..withhold import count_note, live_entries, read_shown, superseders
from ._common import PROG, UsageError, dump, entry_json, say
from ._memory import memory, reader, status_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import TextIO

    from .._protocols import MemoryLike


def run(args: argparse.Namespace, out: TextIO) -> int:
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    archive = False if args.no_archive else None  # None: the config's search_archive
    own = getattr(args, "global_", False)  # --global: that layer alone
    if args.query is not None and args.digest is None:  # reads only: no facade (ADR 0050)
        return _query(reader(args), args, archive, own, out)
    mem = memory(args)
    if args.digest is not None:  # the prompt hook's block, byte for byte (ADR 0034)
        if own:
            out.write(mem.digest(args.digest, include_archive=archive, layers=THIS_STORE))
        else:
            out.write(injected(mem, args.digest, include_archive=archive))
        return 0
    if args.shard is None:
        if args.json:
            dump(status_json(mem), out)
        else:
            out.write(read_shown(mem)[0])
        return 0
    if args.json:
        kept, n = live_entries(mem, mem.entries(args.shard, archive=args.archive))
        by = superseders(mem)
        dump([{**entry_json(e), **({"superseded_by": {"id": by[e.id][0], "date": by[e.id][1]}}
                                   if e.id in by else {})} for e in kept], out)
    else:
        text, ids = read_shown(mem, args.shard, archive=args.archive)
        out.write(text)
        n = len(ids)
    note_withheld(n)
    return 0


def _query(mem: MemoryLike, args: argparse.Namespace, archive: bool | None, own: bool,
           out: TextIO) -> int:
    """``get --query``: the entries that match, over the layers (``own``: that one alone)."""
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
    if args.json:
        dump([{**entry_json(h.hit.entry), "score": round(h.hit.score, 6),
               "archived": h.hit.archived, "layer": h.layer} for h in hits], out)
    else:
        out.write(render(hits) if hits and (own or any(h.layer != PROJECT for h in hits))
                  else _plain(hits))
        if not hits:
            say("no entry matches the query")
    return 0


def _plain(hits: Sequence[LayerHit]) -> str:
    """Hits of the project layer alone, rendered as before there were layers."""
    from ..search import render_hits  # loaded by the query already; `get SHARD` never comes here

    return render_hits([h.hit for h in hits])


def note_withheld(n: int) -> None:
    """The note on stderr when ``n`` entries were withheld (``get``, ``list``, ``show``)."""
    if n:
        sys.stderr.write(f"{PROG}: note: {count_note(n)}\n")
