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

from . import _require_python
from ._record import suppress
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


# The full parser (argparse), in a module of its own: the hot commands never build it, their
# arguments are read by _fast_args (ADR 0054).
PARSER = "lean_memory.cli_parser:build_parser"


def _load(where: str) -> Any:
    """The function a table here names as ``module:function``, its module imported now."""
    module, _, function = where.partition(":")
    # __import__, not importlib.import_module: importlib itself is one more import
    return getattr(__import__(module, fromlist=(function,)), function)


def command(name: str) -> Callable[[argparse.Namespace, TextIO], int]:
    """The function that runs command ``name``, its module imported now."""
    found: Callable[[argparse.Namespace, TextIO], int] = _load(COMMANDS[name])
    return found


def build_parser() -> argparse.ArgumentParser:
    """The command line's argparse parser (:data:`PARSER`)."""
    parser: argparse.ArgumentParser = _load(PARSER)()
    return parser


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    """``demo`` drives :func:`main` itself, so it stays beside it (demo.py sits below)."""
    from .demo import run_demo  # the dispatch table's one import for `demo`

    return run_demo(main, out)


# The global options typed before the command, for a command that has them (dest: the
# command's own); --root goes before or after alike.
_BEFORE = {"--global": "global_", "--json": "json"}


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
