"""The hot commands' arguments are read without argparse (ADR 0016): whatever the fast
reader accepts, argparse must parse to exactly the same values."""

from __future__ import annotations

import contextlib
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from lean_memory import cli

WORDS = ["get", "status", "put", "hook", "failures", "quirks", "some text", "-", "--json",
         "--archive", "--no-archive", "--query", "-q", "-k", "3", "0", "-1", "x5", "--digest",
         "--title", "--tag", "--date", "2026-01-02", "--supersedes", "--new", "--root", "/tmp/r",
         "session-start", "user-prompt-submit", "--help", "-h", "--que", "--query=a", "--",
         "²", " 7", "--version", "bogus", "--global"]


def _argparse(argv: list[str]) -> dict[str, object] | None:
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return vars(cli.build_parser().parse_args(argv))
    except (cli.UsageError, SystemExit):
        return None


@settings(max_examples=3000, deadline=None)
@given(st.tuples(st.sampled_from(["get", "status", "put", "hook", "--root", "--json",
                                  "--global"]),
                 st.lists(st.sampled_from(WORDS), max_size=7)).map(lambda t: [t[0], *t[1]]))
def test_the_fast_reader_agrees_with_argparse(argv: list[str]) -> None:
    fast = cli._fast_args(argv)
    if fast is not None:
        assert vars(fast) == _argparse(argv)


def test_the_fast_reader_takes_the_usual_command_lines() -> None:
    for argv in (["get", "-q", "docker build", "-k", "3"], ["get", "quirks"], ["get"],
                 ["status", "--json"], ["put", "quirks", "text", "--tag", "a", "--tag", "b"],
                 ["hook", "user-prompt-submit"], ["--root", "/tmp/r", "get", "--json"]):
        fast = cli._fast_args(argv)
        assert fast is not None and vars(fast) == _argparse(argv), argv
    # positionals between options fill in order, as a person writes them ("put quirks
    # --title T text" was "unrecognized arguments: text"): both readers agree
    for argv in (["put", "quirks", "--new", "text"],
                 ["put", "quirks", "--title", "T", "the text", "--tag", "a"],
                 ["put", "--title", "T", "quirks", "-"]):
        fast = cli._fast_args(argv)
        assert fast is not None and vars(fast) == _argparse(argv), argv
    assert _argparse(["put", "quirks", "--title", "T", "the text"])["text"] == "the text"
    # one word too many is still an error, in either place
    assert _argparse(["put", "quirks", "a", "--new", "b"]) is None
    assert cli._fast_args(["put", "quirks", "a", "--new", "b"]) is None
