"""The command line's argparse parser: every command, its arguments and help.

Built only for a command line that :func:`lean_memory.cli._fast_args` does not read (help,
the commands that are not hot, errors): argparse and this module's ~20 kB of code stay off
a prompt's and a query's path (ADR 0054). :func:`lean_memory.cli.build_parser` loads it
through the CLI's table (:data:`lean_memory.cli.PARSER`).
"""

from __future__ import annotations

import argparse

from . import __version__
from .cli import _BEFORE, HOOK_EVENTS, PROG, UsageError
from .config import DEFAULT_SHARDS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

_EPILOG = """\
examples:
  lean-memory init --agent claude           set up memory and Claude Code's hooks
  lean-memory put failures "pytest hangs on Windows: pass -p no:faulthandler" --tag ci
  lean-memory get --query "why does pytest hang?"
  lean-memory list quirks                   ids, dates, tokens, titles
  lean-memory put corrections "Only on Windows" --supersedes ID
  lean-memory scan --staged                 what a commit would add; exit 1 on a secret

shards (the default; config.toml may set others): {shards}
exit codes: 0 ok, 1 a secret was found or refused, 2 bad usage or input
"""


def _global_flag(s: argparse.ArgumentParser) -> None:
    s.add_argument("--global", dest="global_", action="store_true",
                   help="act on your global memory (every project; see `status --global`)")


# --root, typed before or after the command alike (cli._BEFORE: the options typed before it).
_ROOT_HELP = ("project root (default: LEAN_MEMORY_ROOT, the nearest folder with .agents/memory, "
              "the git top level, or the cwd)")


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser; ``cli.build_parser`` is the way in."""
    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see `{self.prog} --help`)")

        def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
            action = super().add_argument(*args, **kwargs)
            if not action.option_strings and action.nargs == "?":
                LATER.setdefault(self.prog.rsplit(" ", 1)[-1], []).append(action.dest)
            return action

    # Per command, its optional positionals (``put``'s text): argparse takes positionals
    # from their first run only, so ``put quirks --title T "text"`` would leave "text"
    # unrecognised; the words left over fill them, in order (parse_intermixed_args does
    # this, but not with subcommands).
    LATER: dict[str, list[str]] = {}

    class _Main(_Parser):
        def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:  # as argparse's
            ns, extra = super().parse_known_args(*args, **kwargs)
            later = [d for d in LATER.get(ns.command or "", ()) if getattr(ns, d) is None]
            while later and extra and (extra[0] == "-" or not extra[0].startswith("-")):
                setattr(ns, later.pop(0), extra.pop(0))
            for flag, dest in _BEFORE.items():  # given before the command: the command's own
                if not hasattr(ns, "before_" + dest):
                    continue
                delattr(ns, "before_" + dest)
                if ns.command is None:
                    continue
                if not hasattr(ns, dest):
                    raise UsageError(f"{ns.command} takes no {flag} "
                                     f"(see `{self.prog} {ns.command} --help`)")
                setattr(ns, dest, True)
            for flag in _BEFORE:  # after a command that lacks it: the same line as before it
                if ns.command is not None and flag in extra:
                    raise UsageError(f"{ns.command} takes no {flag} "
                                     f"(see `{self.prog} {ns.command} --help`)")
            return ns, extra

    p = _Main(prog=PROG, description="Durable, token-lean Markdown memory for coding agents.",
              epilog=_EPILOG.format(shards=", ".join(DEFAULT_SHARDS)),
              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", help=_ROOT_HELP + "; before or after the command")
    p.add_argument("--global", dest="before_global_", action="store_true",
                   default=argparse.SUPPRESS,
                   help="act on your global memory (the commands that take it; also after)")
    p.add_argument("--json", dest="before_json", action="store_true", default=argparse.SUPPRESS,
                   help="JSON output (the commands that take it; also after the command)")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    # --root after the command too (SUPPRESS: when not given there, the one before stays)
    common = _Parser(add_help=False)
    common.add_argument("--root", default=argparse.SUPPRESS, help=_ROOT_HELP)
    commands = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def add(name: str, **kw: Any) -> argparse.ArgumentParser:
        return commands.add_parser(name, parents=[common], **kw)

    s = add("init", help="create .agents/memory (idempotent)")
    s.add_argument("--git-hook", action="store_true",
                   help="also install a git pre-commit hook that scans staged files for secrets")
    s.add_argument("--agent", choices=("claude", "codex"), action="append",
                   help="also set up the hooks and instructions for this agent (repeat for "
                        "both)")
    s.add_argument("--index-hooks", action="store_true",
                   help="also install git post-merge/post-rewrite hooks that regenerate INDEX.md "
                        "(left as a change to commit; no commit is ever rewritten)")
    s.add_argument("--no-git", action="store_true",
                   help="do not set up the git merge driver in a git repository")
    _global_flag(s)

    s = add("put", help="add an entry to a shard")
    s.add_argument("shard", help="the shard to add to (see the list at the end of --help)")
    s.add_argument("text", nargs="?", help="the entry text, or '-' for standard input")
    s.add_argument("--title", help="a short title (default: the first line of the text)")
    s.add_argument("--tag", action="append", metavar="TAG", help="a tag; repeat for several")
    s.add_argument("--date", metavar="YYYY-MM-DD",
                   help="the absolute date of the fact (default today)")
    s.add_argument("--supersedes", metavar="ID",
                   help="the id of the entry this one corrects (it is hidden, never deleted)")
    s.add_argument("--new", action="store_true",
                   help="add a separate entry even when it repeats an existing one")
    s.add_argument("--json", action="store_true", help="print the stored entry as JSON")
    _global_flag(s)

    s = add("get", help="print INDEX.md, a shard, or the entries matching a query")
    s.add_argument("shard", nargs="?", help="a shard to print whole (or to limit --query to)")
    s.add_argument("--query", "-q", metavar="Q",
                   help="plain words: print the entries that match best")
    s.add_argument("-k", type=int, default=5, metavar="N", help="how many entries (default 5)")
    s.add_argument("--session", metavar="ID",
                   help="with --query, also this session's asks (the session layer)")
    s.add_argument("--digest", metavar="PROMPT",
                   help="the block to inject before PROMPT (standing rules, best matches)")
    s.add_argument("--json", action="store_true",
                   help="JSON instead of Markdown (see the README for the shapes)")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--archive", action="store_true",
                       help="print SHARD's archive (a query covers the archive by default)")
    where.add_argument("--no-archive", action="store_true",
                       help="leave the archive out of --query and --digest")
    _global_flag(s)

    s = add("index", help="regenerate INDEX.md")
    _global_flag(s)

    s = add("status", help="per-shard counts, tokens, budget")
    s.add_argument("--json", action="store_true", help="the status as JSON")
    _global_flag(s)

    s = add("embed", help="compute the missing vectors of the ollama retriever")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds to wait for each batch of 32 entries (default 120)")

    s = add("compact", help="fold the oldest entries when over budget")
    s.add_argument("--dry-run", action="store_true", help="say what would be folded; write nothing")
    s.add_argument("--json", action="store_true", help="the report as JSON")
    _global_flag(s)

    s = add("scan", help="check files (or the staged changes) for secrets; exit 1 "
                                    "on findings, 2 when a file could not be scanned")
    s.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders (default with --staged: what git has staged)")
    s.add_argument("--staged", action="store_true", help="scan what git has staged")
    s.add_argument("--all-files", action="store_true",
                   help="scan every file under a folder, even those .gitignore leaves out "
                        "(by default a folder in a git work tree is scanned as git sees it)")
    s.add_argument("--json", action="store_true", help="findings, skipped files and errors as JSON")

    s = add("demo", help="a guided run in a temporary directory")

    s = add("hook", help="agent hook: read the event JSON on stdin, print context")
    s.add_argument("event", choices=HOOK_EVENTS,
                   help="the agent event whose hook JSON comes on stdin")

    s = add("list", help="the live entries: id, date, tokens, title, marks")
    s.add_argument("shard", nargs="?", help="only this shard")
    s.add_argument("--json", action="store_true", help="a JSON list of entries")
    _global_flag(s)

    s = add("show", help="one entry as Markdown")
    s.add_argument("id", help="the entry's id (see `list`)")
    s.add_argument("--json", action="store_true", help="the entry as JSON")
    _global_flag(s)

    s = add("edit", help="edit one entry in $EDITOR (checked like a put)")
    s.add_argument("id", help="the entry's id (see `list`)")
    _global_flag(s)

    s = add("forget", help="move one entry to the archive (never destroyed)")
    s.add_argument("id", help="the entry's id (see `list`)")
    s.add_argument("--reason", required=True, help="one line: why it goes")
    s.add_argument("--date", metavar="YYYY-MM-DD", help="the date recorded (default today)")
    _global_flag(s)

    s = add("asks", help="what the person asked, as the prompt hook kept it")
    s.add_argument("--session", metavar="ID", help="only this session")
    s.add_argument("--archived", action="store_true",
                   help="only the asks of distilled sessions (folded: kept, never injected)")
    s.add_argument("--json", action="store_true", help="a JSON list of asks")

    s = add("promote", help="requests that came back in 3+ sessions, proposed as "
                                       "rules; write one only with a yes")
    s.add_argument("which", nargs="?", metavar="ID", help="a proposal's id (p-…, as listed)")
    verdict = s.add_mutually_exclusive_group()
    verdict.add_argument("--yes", action="store_true", help="write the rule to conventions")
    verdict.add_argument("--no", action="store_true",
                         help="dismiss it for good, in every project")
    s.add_argument("--global", dest="global_", action="store_true",
                   help="with --yes: write the rule to your global memory (every project)")
    s.add_argument("--json", action="store_true", help="the proposals as JSON")

    s = add("distill", help="fold each quiet session into one summary entry")
    s.add_argument("--session", metavar="ID", action="append",
                   help="a session that ended (distilled now); repeat for several")
    s.add_argument("--all", action="store_true", help="every session with asks, quiet or not")

    s = add("context", help="every block lean_memory injects, with its token cost")
    s.add_argument("prompt", nargs="?", help="the prompt (default: the last one kept)")
    s.add_argument("--session", metavar="ID", help="the session whose asks to count")
    s.add_argument("--budget", type=int, default=None, metavar="T",
                   help="the hook's token budget (default: the hook's own, 1200 unless "
                        "LEAN_MEMORY_DIGEST_TOKENS says)")
    s.add_argument("--json", action="store_true", help="the blocks as JSON")

    s = add("serve", help="a local page: what memory holds, what rides every prompt")
    def port(text: str) -> int:  # bind() would raise OverflowError: an internal error
        number = int(text) if text.strip().isdecimal() else -1  # "-1" too: not a port
        if not 0 <= number <= 65535:
            raise argparse.ArgumentTypeError(f"{text!r} is no port: give 0 to 65535")
        return number

    s.add_argument("--port", type=port, default=8765, metavar="N",
                   help="the port on 127.0.0.1 (default 8765; 0 for any free one)")
    _global_flag(s)

    s = add("mcp", help="serve the memory over the Model Context Protocol (stdio)")

    s = add("merge-driver", help="git merge driver for shards (%%O %%A %%B %%P)")
    s.add_argument("base", help="the common ancestor (git's %%O)")
    s.add_argument("ours", help="our version, overwritten with the result (%%A)")
    s.add_argument("theirs", help="their version (%%B)")
    s.add_argument("path", nargs="?", default="", help="the path in the repository (%%P)")
    return p
