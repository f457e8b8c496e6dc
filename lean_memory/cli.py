"""The command line: a thin layer over the library API.

This module holds the parser, the fast reader of the hot commands' arguments, the error
mapping and the dispatch table; each command is a module of :mod:`lean_memory.commands`,
imported only when that command runs.

Exit codes: 0 success, 1 a secret was found or refused, 2 bad usage or bad input (or, for
`scan`, a file that could not be scanned: the check fails closed).
Errors are one line on stderr, redacted (they may quote user input); no traceback ever
reaches the user.
"""

from __future__ import annotations

import gc
import os
import sys

from . import __version__, _require_python
from ._record import suppress
from .config import DEFAULT_SHARDS
from .errors import LeanMemoryError, SecretFound, redact_message

# Not typing.TYPE_CHECKING: the hot commands never import typing, argparse or json (their
# arguments are read by _fast_args; the parser is built only for the other commands).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn, TextIO

__all__ = ["COMMANDS", "PROG", "UsageError", "build_parser", "main", "run", "say", "say_error"]

PROG = "lean-memory"


class UsageError(LeanMemoryError):
    """Bad command-line usage."""


# Here, not in commands._common (which names them for the commands): the hook's process
# would load that module and its package for these alone (ADR 0050).
def say(message: str) -> None:
    """The one way the CLI writes to stderr: one line, redacted (it may quote user input)."""
    line = " ".join(redact_message(message).split())
    sys.stderr.write(f"{PROG}: {redact_message(line)}\n")  # joined lines: check again


def say_error(message: str) -> None:
    say(f"error: {message}")


# The dispatch table: each command's "module:function", imported when the command runs
# (the one lazy import per command; a command's module has its imports at its top). A hot
# command names the module that does its work, not a commands/ module that would only
# call it (ADR 0050).
COMMANDS = {
    "init": "lean_memory.commands.init:run",
    "put": "lean_memory.commands.put:run",
    "get": "lean_memory.commands.get:run",
    "index": "lean_memory.commands.index:run",
    "status": "lean_memory.commands.status:run",
    "embed": "lean_memory.commands.embed:run",
    "compact": "lean_memory.commands.compact:run",
    "scan": "lean_memory.commands.scan:run",
    "demo": "lean_memory.cli:cmd_demo",
    "hook": "lean_memory.hooks:command",  # the hook's own module (one fewer a prompt: ADR 0050)
    "list": "lean_memory.commands.list:run",
    "show": "lean_memory.commands.show:run",
    "edit": "lean_memory.commands.edit:run",
    "forget": "lean_memory.commands.forget:run",
    "asks": "lean_memory.commands.asks:run",
    "promote": "lean_memory.commands.promote:run",
    "distill": "lean_memory.commands.distill:run",
    "context": "lean_memory.commands.context:run",
    "serve": "lean_memory.commands.serve:run",
    "mcp": "lean_memory.commands.mcp:run",
    "merge-driver": "lean_memory.commands.merge_driver:run",
}

# The hook's events, answered by agents.ANSWERS (named here too: the parser must not load
# agents, tests/test_cli_split.py checks both agree).
HOOK_EVENTS = ("session-start", "user-prompt-submit", "session-end")


def command(name: str) -> Callable[[argparse.Namespace, TextIO], int]:
    """The function that runs command ``name``, its module imported now."""
    module, _, function = COMMANDS[name].partition(":")
    # __import__, not importlib.import_module: importlib itself is one more import
    found: Callable[[argparse.Namespace, TextIO], int] = getattr(
        __import__(module, fromlist=(function,)), function)
    return found


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``demo`` drives :func:`main` itself, so it stays beside it (demo.py sits below)."""
    from .demo import run_demo  # the dispatch table's one import for `demo`

    return run_demo(main, out)


# -- parser -------------------------------------------------------------------


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


# The global options, typed before or after the command alike: --root (every command) and,
# before it, --global and --json for a command that has them (dest: the command's own).
_ROOT_HELP = ("project root (default: LEAN_MEMORY_ROOT, the nearest folder with .agents/memory, "
              "the git top level, or the cwd)")
_BEFORE = {"--global": "global_", "--json": "json"}


def build_parser() -> argparse.ArgumentParser:
    import argparse  # hot path: the hot commands' arguments are read by _fast_args instead

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


class _Args:
    """What ``parse_args`` returns, for the commands ``_fast_args`` reads."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


# Per hot command: its positionals, its flags, its options taking a value (with the
# attribute each sets), the options that may repeat (appended), and the defaults, all as
# build_parser declares them; tests/test_cli_fast.py checks both agree.
_FAST: dict[str, tuple[tuple[str, ...], dict[str, str], dict[str, str], dict[str, Any]]] = {
    "get": (("shard",), {"--json": "json", "--archive": "archive", "--no-archive": "no_archive",
                         "--global": "global_"},
            {"--query": "query", "-q": "query", "-k": "k", "--digest": "digest",
             "--session": "session"},
            {"shard": None, "query": None, "k": 5, "digest": None, "json": False,
             "archive": False, "no_archive": False, "global_": False, "session": None}),
    "status": ((), {"--json": "json", "--global": "global_"}, {},
               {"json": False, "global_": False}),
    "put": (("shard", "text"), {"--new": "new", "--json": "json", "--global": "global_"},
            {"--title": "title", "--tag": "tag", "--date": "date",
             "--supersedes": "supersedes"},
            {"text": None, "title": None, "tag": None, "date": None, "supersedes": None,
             "new": False, "json": False, "global_": False}),
    "hook": (("event",), {}, {}, {}),
}


def _fast_args(argv: Sequence[str]) -> Any:
    """The parsed arguments of a plain ``get``, ``status``, ``put`` or ``hook`` command
    line (the global options before or after the command), without building the argparse
    parser (~8 ms with its import); None for anything else (help, abbreviations,
    ``--opt=value``, a value that starts with ``-``, errors), which argparse then handles
    as always."""
    argv = list(argv)
    root = None
    before: list[str] = []  # --global, --json before the command (the command's own flags)
    while argv and argv[0] in ("--root", *_BEFORE):
        if argv[0] != "--root":
            before.append(argv.pop(0))
        elif len(argv) >= 2 and not argv[1].startswith("-"):
            root, argv = argv[1], argv[2:]
        else:
            return None
    if not argv or argv[0] not in _FAST:
        return None
    command, rest = argv[0], argv[1:]
    positionals, flags, options, defaults = _FAST[command]
    if any(flag not in flags for flag in before):
        return None  # argparse says the command takes no such option
    values: dict[str, Any] = dict(defaults)
    for flag in before:
        values[flags[flag]] = True
    given: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word in flags:
            values[flags[word]] = True
        elif word in options or word == "--root":
            if i + 1 == len(rest) or rest[i + 1].startswith("-"):
                return None
            name, value = options.get(word, "root"), rest[i + 1]
            if name == "root":
                root = value
            elif name == "k":
                if not value.strip().isdecimal():
                    return None
                values[name] = int(value)
            elif name == "tag":
                values[name] = [*(values[name] or []), value]
            else:
                values[name] = value
            i += 1
        elif word.startswith("-") and word != "-":
            return None
        else:
            given.append(word)  # positionals between options fill in order (build_parser)
        i += 1
    if len(given) > len(positionals) or (command in ("put", "hook") and not given):
        return None
    values.update(zip(positionals, given, strict=False))
    if command == "hook" and values["event"] not in HOOK_EVENTS:
        return None
    if command == "get" and values["archive"] and values["no_archive"]:
        return None  # mutually exclusive: argparse says so
    return _Args(root=root, command=command, **values)



def run() -> NoReturn:
    """The process's entry (``python -m lean_memory``, the ``lean-memory`` script, the
    command lines we write and start): :func:`main`, then stdout and stderr flushed and the
    process ended at once (``os._exit``), without the interpreter's teardown: freeing every
    object the loaded modules hold, and a last garbage collection walking them, is ~4 M
    instructions of a warm query's ~80 M and frees nothing the exit does not (ADR 0054).
    Nothing of ours needs it: files are written and closed inside the command, no atexit
    handler is ours, and the hook's worker is given up at its deadline either way. Not for
    in-process callers. Before it, the youngest generation is collected every 20,000
    allocations, not 700: the command's imports and a query's work make tens of thousands
    of objects that live to the end, and each collection walked them again (~1 M
    instructions of a prompt's hook). A long-running command (``serve``) still collects,
    less often."""
    gc.set_threshold(20_000, *gc.get_threshold()[1:])
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):  # a closed pipe: what was not written is lost either way
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    _require_python()  # the console script installed on a Python too old
    out = out or sys.stdout
    try:
        args = _fast_args(sys.argv[1:] if argv is None else argv) or build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help(out)
            return 2
        code: int = command(args.command)(args, out)
        out.flush()
        return code
    except SecretFound as exc:
        say_error(str(exc))
        for line in exc.finding_lines():
            sys.stderr.write(f"  {line}\n")
        return 1
    except LeanMemoryError as exc:
        say_error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`); nothing to report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        # a path may hold `deploy-ghp_…`, which redact misses; the scanner's tables load
        # only on this error (hot paths never load .secrets: tests/test_query_path.py)
        from .secrets import redact_path

        say_error(f"{exc.strerror or type(exc).__name__}"
                  f"{': ' + redact_path(str(exc.filename)) if exc.filename else ''}")
        return 2
    except Exception as exc:
        if os.environ.get("LEAN_MEMORY_DEBUG"):
            raise
        # Only the type: a message could quote the input, and the input may hold a secret.
        say_error(f"internal error ({type(exc).__name__}); "
                  "rerun with LEAN_MEMORY_DEBUG=1 for details and report it")
        return 2
