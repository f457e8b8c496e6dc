"""The hook command's work: ``lean-memory hook EVENT`` (split from :mod:`lean_memory.agents`,
whose setup half ``init`` alone needs, so a prompt loads neither it nor its imports: ADR 0039).

* The block a hook prints is :func:`lean_memory.recall.injected`: at session start the shard
  overview and the standing rules, before each prompt the rules and the best matches.
* :func:`command` is the ``hook`` command (``cli.COMMANDS`` names it: ADR 0050).
* :func:`run_hook` reads the agent's hook JSON (Claude Code and Codex share the shape) and
  prints ``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}``. It never
  blocks the agent: any error, bad input or slow disk means exit 0 and no output (logged to
  ``.agents/memory/.cache/hook.log`` when there is a memory to log into).

See ADR 0006 for the formats relied on and why.
"""

from __future__ import annotations

import _thread
import os
import sys
import time

from ._jsonc import loads, string
from ._record import listeners
from .cli import _load
from .digest import RULES_SHARD, warm_rules
from .errors import LeanMemoryError, quoted
from .folder import _find_root, pure_path
from .fsutil import append_line, read_bounded
from .globalstore import reader_at
from .recall import hook_budget, injected
from .search import _start_warming, time_limit

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable
    from typing import IO, Any, TextIO

    from ._protocols import MemoryLike

# The one command every text written for the agent or the team names (AGENTS.md, INDEX.md,
# the digest): `python -m lean_memory` fails under pipx, `uv tool` or a venv that is not
# active, and a machine's absolute path is wrong on every other machine.
CLI = "lean-memory"
HOOK_TIMEOUT = 5.0  # seconds; then the hook gives up silently
MAX_HOOK_TIMEOUT = 60.0  # the harness kills a hook long before that anyway
LOG_LIMIT = 256 * 1024
EVENTS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
# Hooks that inject nothing; SessionEnd distills the session that ended (ADR 0023). Codex has
# no session-end event (its Stop ends a turn), so only Claude Code's settings get it.
QUIET_EVENTS = {"session-end": "SessionEnd"}
HOOKS = {**EVENTS, **QUIET_EVENTS}
END_TIMEOUT = 1.0  # seconds; Claude Code gives a SessionEnd hook about 1.5 s before exiting
# Whether the plugin stands down (ADR 0035) is read from Claude Code's settings only when the
# plugin's launcher started this hook (PLUGIN_ENV set to 1): the settings hooks
# `init` writes never load the module that reads them, nor spawn's command lines (ADR 0056).
PLUGIN_ENV = "LEAN_MEMORY_PLUGIN"  # the plugin's launcher (scripts/lean-memory) sets it to 1
STANDS_DOWN = "lean_memory.claude_code:stands_down"

# -- the hook command -----------------------------------------------------------------


def _find_memory_root(cwd: object, root: str | None) -> str | None:
    """The input's ``cwd`` when it leads to a memory, else ``--root``, env, the cwd."""
    if isinstance(cwd, str) and cwd and os.path.isabs(cwd) and os.path.isdir(cwd):
        folder = pure_path(cwd)
        while True:  # the folder and its parents, as Path(cwd).parents
            if os.path.isdir(os.path.join(folder, ".agents", "memory")):
                return folder
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    if root:
        return pure_path(root)
    return _find_root()


def _read_input(stdin: IO[str] | IO[bytes] | Any) -> Any:
    stream = getattr(stdin, "buffer", stdin)
    data = stream.read()
    if isinstance(data, bytes):
        data = data.decode("utf-8")

    return loads(data)


def hook_output(event: str, root: str | None, payload: Any,
                budget_tokens: int | None = None) -> str:
    """The JSON line to print for ``payload`` ('' for nothing); raises on bad input."""
    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    given = payload.get("hook_event_name")
    name = next((v for v in EVENTS.values() if v == given), EVENTS[event])
    prompt = payload.get("prompt") if name == "UserPromptSubmit" else ""
    if not isinstance(prompt, str):
        raise ValueError("hook input has no prompt string")
    where = _find_memory_root(payload.get("cwd"), root)
    if where is None:
        return ""

    # to read: the facade's module (the put) stays unloaded; a session start's learn opens
    # the facade to put (ADR 0050)
    mem = reader_at(where)
    if not os.path.isdir(mem._dir):
        return ""  # no memory here: nothing to say
    _state["mem"] = mem
    if budget_tokens is None:
        budget_tokens = hook_budget()

    def logged(message: str) -> None:  # a retriever searched without: silent, but logged
        _log(event, message)

    listeners.append(logged)
    try:
        # Index and rules always; matches only if the search index can be brought up to date
        # in half the hook's time (else it is finished in the background for the next prompt).
        with time_limit(hook_timeout(os.environ.get("LEAN_MEMORY_HOOK_TIMEOUT", "")) / 2,
                        warm=warm_up):
            # the one entry point over the layers; the prompt kept as an ask (fail-open;
            # ADR 0022, 0023, 0034)
            text = injected(mem, prompt, event=name, payload=payload,
                            budget_tokens=budget_tokens, act=True)
        if mem.links_without_state:
            # The index was ready (built by `get --query`, say) but not the put state: every
            # prompt would read every shard's summary for the rules' links (~0.1 s at 100k
            # entries) until a put or `status`. The warm-up builds it once, off this prompt.

            _start_warming(mem, warm_up)
    finally:
        listeners.remove(logged)
    if not text.strip():  # cut to CONTEXT_LIMIT by recall.fit
        return ""
    return answer(name, text)


def answer(name: str, text: str) -> str:
    """``json.dumps({"hookSpecificOutput": {"hookEventName": name, "additionalContext":
    text}})`` and a line break, without importing ``json`` (it imports ``re``)."""
    return (f'{{"hookSpecificOutput": {{"hookEventName": {string(name)}, '
            f'"additionalContext": {string(text)}}}}}\n')


def warm_up(mem: MemoryLike) -> None:
    """What the prompt hook's background warm-up builds after the search index (it runs
    in that process, ``search.time_limit``): the status and put state (the correction links
    the rules are keyed on, else parsed from every shard file before each prompt) and the
    rules' lines for this budget, so that the next prompt builds nothing."""
    mem.status()

    warm_rules(mem, hook_budget())


_state: dict[str, Any] = {}


def _log(event: str, message: str) -> None:
    """One line in ``.cache/hook.log`` of the memory being served, if any; never raises."""
    mem = _state.get("mem")
    if mem is None:
        return
    try:
        if not os.path.isdir(mem._dir):
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        # never through a link: a cloned repository may commit hook.log as one (ADR 0012)
        line = f"{stamp} {quoted(event, 80)}: {quoted(message, 2000)}\n"  # no credential
        append_line(mem.cache_dir / "hook.log", line, limit=LOG_LIMIT, root=mem.agents_dir)
    except Exception:  # logging must never break the hook
        pass


def _describe(exc: BaseException) -> str:
    """The exception's type and where it happened; never its message (it could quote
    the prompt, and the prompt may hold a secret)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f" at {os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}" if tb else ""
    return f"{type(exc).__name__}{where}"


def hook_timeout(value: str) -> float:
    """``LEAN_MEMORY_HOOK_TIMEOUT`` as seconds: the default when unset or not a finite
    number, clamped to [0, MAX_HOOK_TIMEOUT] (a huge value would overflow the thread join
    and make the hook exit non-zero, which blocks the prompt)."""
    try:
        timeout = float(value)
    except ValueError:
        return HOOK_TIMEOUT
    if timeout != timeout:  # NaN
        return HOOK_TIMEOUT
    return min(max(timeout, 0.0), MAX_HOOK_TIMEOUT)


def end_output(root: str | None, payload: Any) -> str:
    """``hook session-end``: distill the session that ended; nothing to print."""
    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    where = _find_memory_root(payload.get("cwd"), root)
    if where is not None:
        _state["mem"] = reader_at(where)

        from .learn import end_session  # session end only: learn is off the prompt's path

        end_session(payload, where)
    return ""


def _end(event: str, root: str | None, payload: Any) -> str:
    return end_output(root, payload)


# Each hook event and the function that answers it (its hook JSON in, the line to print
# out): session start and each prompt get the digest; session end distills, printing nothing.
ANSWERS: dict[str, Callable[[str, str | None, Any], str]] = {
    "session-start": hook_output,
    "user-prompt-submit": hook_output,
    "session-end": _end,
}


def command(args: argparse.Namespace, out: TextIO) -> int:
    """``lean-memory hook EVENT`` as the command line's dispatch table names it (ADR 0050:
    this module, not one of :mod:`lean_memory.commands` that would only call it: each
    module a prompt loads costs ~0.5 M instructions before its first line)."""
    return run_hook(args.event, args.root, sys.stdin, out)


def run_hook(event: str, root: str | None, stdin: Any, out: Any) -> int:
    """``hook EVENT``: print the context for the agent, or nothing. Always returns 0.
    ``session-end`` prints nothing and has at most :data:`END_TIMEOUT` seconds."""
    # _thread, not threading (~1 ms to import, before every prompt): one worker that may be
    # abandoned (like a daemon thread) and one lock to wait on are all this needs.
    box: list[Any] = []
    read: list[Any] = []  # the payload, once the worker has it
    _state.clear()
    done = _thread.allocate_lock()
    done.acquire()

    def work() -> None:
        try:
            payload = _read_input(stdin)
            read.append(payload)
            # run by the plugin while settings hooks of ours serve: nothing (ADR 0035)
            box.append("" if _stands_down(payload, event)
                       else ANSWERS[event](event, root, payload))
        except BaseException as exc:  # fail open, whatever happened
            box.append(exc)
        finally:
            done.release()

    timeout = hook_timeout(os.environ.get("LEAN_MEMORY_HOOK_TIMEOUT", ""))
    if event in QUIET_EVENTS:
        timeout = min(timeout, END_TIMEOUT)
    _thread.start_new_thread(work, ())
    done.acquire(timeout=timeout)
    if not box:
        fallback = _index_only(event, root, read[0] if read else None)
        _log(event, f"gave up after {timeout:g} s (slow disk?); printed "
              + ("INDEX.md alone" if fallback else "nothing"))
        if fallback:
            _write(event, out, fallback)
        return 0
    result = box[0]
    if isinstance(result, BaseException):
        _log(event, f"failed open: {_describe(result)}")
        return 0
    if result:
        _write(event, out, result)
    return 0


def via_plugin() -> bool:
    """Whether this process was started by the plugin's launcher (:data:`PLUGIN_ENV`)."""
    return os.environ.get(PLUGIN_ENV) == "1"


def _stands_down(payload: Any, event: str) -> bool:
    """:func:`lean_memory.claude_code.stands_down`, its module loaded (through
    :data:`STANDS_DOWN`) only for a hook the plugin's launcher runs."""
    if not via_plugin():
        return False
    stands_down: Callable[[Any, str], bool] = _load(STANDS_DOWN)
    return stands_down(payload, event)


def _write(event: str, out: Any, text: str) -> None:
    try:
        out.write(text)
        out.flush()
    except Exception as exc:  # e.g. a closed pipe
        _log(event, f"could not write the output: {_describe(exc)}")


# INDEX.md is a few hundred tokens by design; a larger one is not ours to inject unchecked
_INDEX_LIMIT = 64 * 1024


def _index_only(event: str, root: str | None, payload: Any) -> str:
    """What a session start that ran out of time still gives the agent: INDEX.md as it is on
    disk (bounded, no link followed, withheld if it holds a credential), so a fresh clone of
    a large memory is never silent at the start (issue 36). '' for other events or none."""
    if event != "session-start":
        return ""
    from .secrets import scan_text  # only here, when a start overran: never on a prompt

    try:
        where = _find_memory_root(payload.get("cwd") if isinstance(payload, dict) else None,
                                  root)
        if where is None:
            return ""
        index = os.path.join(where, ".agents", "memory", "INDEX.md")
        text = read_bounded(index, _INDEX_LIMIT).decode("utf-8")
        if scan_text(text):
            return ""
    except (OSError, LeanMemoryError, UnicodeDecodeError, ValueError):
        return ""
    return answer("SessionStart", text + "\n_(memory: the rest of the session start was not "
                  f"ready in time; `{CLI} get {RULES_SHARD}` shows the standing rules)_\n")
