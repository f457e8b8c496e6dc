"""``lean-memory get`` without a query, or with ``--json``: INDEX.md, a shard (or its
entries as JSON), the digest before a prompt, the status as JSON, a query's hits as JSON.
:mod:`lean_memory.commands.get` (the query) hands these over (ADR 0057)."""

from __future__ import annotations

from ..recall import THIS_STORE, injected
from ..shown import read_shown, superseders
from ..withhold import live_entries
from ._common import dump, entry_json
from ._memory import memory, status_json
from .get import found_hits, note_withheld, reader

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    archive = False if args.no_archive else None  # None: the config's search_archive
    if args.query is not None and args.digest is None:  # reads only: no facade (ADR 0050)
        hits = found_hits(reader(args), args)
        dump([{**entry_json(h.hit.entry), "score": round(h.hit.score, 6),
               "archived": h.hit.archived, "layer": h.layer} for h in hits], out)
        return 0
    mem = memory(args)
    if args.digest is not None:  # the prompt hook's block, byte for byte (ADR 0034)
        if getattr(args, "global_", False):  # --global: that layer alone
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
