"""``lean-memory serve``: a local page of what memory holds and what rides every prompt."""

from __future__ import annotations

import os

from .. import learn
from ..digest import RULES_SHARD
from ..layers import GLOBAL, open_global
from ..serve import App, Proposal, Proposals, make_server, url
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO

    from ..store import Memory


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    mem.status()  # not initialised, a broken config: one line now, not on the page
    # --global: your own memory alone (a yes on a proposal is a project's affair)
    app = App([("global", mem)]) if args.global_ else project_app(mem)
    server = make_server(app, args.port)
    out.write(f"lean-memory: serving {mem.dir} on 127.0.0.1 only; open\n  {url(app)}\n"
              "(the address carries this run's token; Ctrl-C stops)\n")
    out.flush()
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def project_app(mem: Memory) -> App:
    """The page of a project: its memory, the global store as each request finds it (it may
    be created or deleted while the page is open), and the learning loop."""
    return App([("project", mem)], global_layer=True, proposals=page_proposals(mem))


def page_proposals(mem: Memory) -> Proposals:
    """The learning loop as the page reaches it: a yes clicked there (a person, with the
    run's token) writes the rule it names by id where the proposal says (this project, or
    the global layer for a rule asked in several projects); the page reads the remembered
    count (:func:`lean_memory.learn.pending`) and lists them only when some wait."""

    def pending() -> list[Proposal]:
        g = open_global()  # now: the global store may come and go while the page is open
        where = {layer: os.path.relpath(m.shard_path(RULES_SHARD), m.root) if layer != GLOBAL
                 else str(m.shard_path(RULES_SHARD))
                 for layer, m in (("project", mem), (GLOBAL, g)) if m is not None}
        return [Proposal(p.id, f"{p.rule}\n\n_{p.origin}_",
                         tuple(f"{date} ({session[:12]}): {text}"
                               for _a, session, date, text in p.evidence), p.target,
                         where.get(p.target, f"the {p.target} conventions"))
                for p in learn.proposals(mem)]

    def decide(proposal_id: str, yes: bool) -> str:
        return learn.decide(mem, learn.pick(mem, proposal_id), yes)

    return Proposals(pending, decide, lambda: learn.pending(mem))
