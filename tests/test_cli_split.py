"""The command line's dispatch table (ADR 0028): each command the parser knows runs through
one entry of ``cli.COMMANDS``, and the hook's events are the ones ``agents`` answers."""

from __future__ import annotations

import argparse

from lean_memory import agents, cli


def _subcommands() -> set[str]:
    [sub] = [a for a in cli.build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return set(sub.choices)


def test_every_parsed_command_has_one_entry_that_imports() -> None:
    """Catches: a command added to the parser but not to the table (it would fail with a
    KeyError, an internal error), or an entry naming a module or function that is gone."""
    assert _subcommands() == set(cli.COMMANDS)
    for name in cli.COMMANDS:
        assert callable(cli.command(name)), name


def test_the_hook_events_are_the_ones_agents_answers() -> None:
    """The parser names the events without loading ``agents`` (the hot path). Catches: an
    event added to ``agents.ANSWERS`` that the command line refuses, or the reverse."""
    assert set(cli.HOOK_EVENTS) == set(agents.ANSWERS) == set(agents.HOOKS)
