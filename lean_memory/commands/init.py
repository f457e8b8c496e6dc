"""``lean-memory init``: create the memory; in a git repository, the merge driver and the
hooks; with ``--agent``, the agent's hooks and instructions."""

from __future__ import annotations

import os

from ..agents import check_agent, refresh_hooks, setup_agent
from ..errors import LeanMemoryError
from ..githook import install_git_hook, refresh_git_hook
from ..merge import setup_merge_driver
from ._memory import memory

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    mem = memory(args)
    agents = list(dict.fromkeys(args.agent or ()))  # `--agent claude --agent codex`: both
    if not args.global_:
        for agent in agents:
            check_agent(mem.root, agent)  # refused before anything is made
    created = mem.init()
    if args.global_:  # the person's own store: no git, no agent set-up
        for path in created:
            out.write(f"created {path}\n")
        if not created:
            out.write(f"global memory already initialised at {mem.dir}\n")
        return 0
    for path in created:
        out.write(f"created {os.path.relpath(path, mem.root)}\n")
    if (mem.root / ".git").exists() and not args.no_git:
        for line in setup_merge_driver(mem.root, index_hooks=args.index_hooks):
            out.write(line + "\n")
    unprotected: LeanMemoryError | None = None
    if args.git_hook:
        try:
            out.write(install_git_hook(mem.root) + "\n")
        except LeanMemoryError as exc:
            unprotected = exc  # the rest of init still runs; the exit code says it failed
    elif (mem.root / ".git").exists():
        refreshed = refresh_git_hook(mem.root)  # one an older version wrote
        if refreshed is not None:
            out.write(refreshed + "\n")
    for line in refresh_hooks(mem.root, skip=agents):  # commands older versions wrote
        out.write(line + "\n")
    for agent in agents:
        for line in setup_agent(mem, agent):
            out.write(line + "\n")
    if not created:
        out.write(f"memory already initialised at {os.path.relpath(mem.dir, mem.root)}\n")
    if unprotected is not None:
        raise unprotected
    return 0
