"""The hot path's allow-list (issue 36 item 3, ADR 0038), pinned through the exact command
lines ``init`` writes: Claude's hook command (``.claude/settings.local.json``), Codex's hook
line (``.codex/hooks.json``, which sources this user's launcher) and the isolated
``get --query`` every process of ours runs as (``spawn.argv``).

Each line runs under ``sh -c`` with the agent's JSON on stdin. The interpreter ``init``
names is a clean venv's (``--without-pip``): a ``.pth`` file in its site-packages (read
even under ``-I``) appends, at exit, the process's ``sys.argv`` and ``sys.modules`` to a
file. So the line runs byte for byte as the agent would run it, and what it loaded is seen.

A module of ours outside the allow-list on one of these paths fails here: move it off the
path (import it where the rare case needs it) or, if every prompt needs it, name it in
``ALLOWED`` and say why in ADR 0038.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import uuid
import venv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory import _askrecord, secrets, spawn

pytestmark = pytest.mark.skipif(
    os.name == "nt", reason="a POSIX venv layout (bin/python) and /bin/sh run the lines here")

# The modules of ours each hot path may load (ADR 0038). `lean_memory.` left off.
CORE = {"", "_hash", "_record", "_stem", "bm25", "cli", "config", "errors", "folder", "format",
        "fsutil", "index", "search", "sessionlog", "summaries", "tokens", "withhold", "layers",
        "globalstore"}  # where the layers live: split from layers for the put (ADR 0040)
# Not `store`: the hot lines read through a Summaries, never the facade; not `commands` nor
# `commands._common`: the CLI's own names live in cli; `_lazyre` is in _record (ADR 0050).
# Not `putstate`: the summaries' code (stats files, put state, status, INDEX.md), which a
# reader loads only on a slow path (a stale cache) or for a status (ADR 0055).
NEVER = {"store", "putstate"}
# `get` answers through recall, the one entry point over the layers (ADR 0034), which
# reads JSON without `json` (_jsonc); never learn, digest or the scanner. Not
# `commands._common`, `commands._memory`, `commands.get_shown` (get's other forms) nor `shown`
# (a file or entry as the other commands show it): the query's own code is in commands.get
# and withhold (ADR 0057).
QUERY = CORE | {"commands", "commands.get", "recall", "_jsonc"}
# The hook: its command (hooks: not agents, whose setup half only `init` needs), the digest of
# the layers (digest: the prompt's typos mended against the memory's words too, ADR 0056), the
# ask kept and what this session was shown already (prompthook, _askrecord: not learn, whose
# matcher and distiller a prompt never runs; pay-once is prompthook's), JSON without `json`
# (_jsonc), whether the scanner could find anything in the prompt kept as an ask (_secret_gate:
# the rule table's keywords written out; ADR 0039). Not claude_code (whether the plugin stands
# down: read only when the plugin's launcher runs the hook) nor spawn (the warm-up's start
# loads it when it starts one), nor typos or _listeners, folded into digest and _record
# (ADR 0056).
HOOK = CORE | {"hooks", "recall", "digest", "prompthook", "_askrecord", "_jsonc", "_secret_gate"}
# Session start: the start's own blocks (learn: the quiet sessions folded, the last one's
# open lines, proposals).
START = HOOK | {"learn", "spawn", "putstate"}  # learn's git and background processes;
# putstate: the overview is the status (ADR 0055)
# A prompt naming no keyword of any rule is kept unscanned (the gate is the scan's answer
# there: tests/test_secret_gate.py); a match's main text comes from format, not dedup.
NO_MATCH = HOOK
MATCH = HOOK
# Never on a warm hot path: each imports `re`, `typing` or worse, or starts threads; and the
# standard modules the hot path left (ADR 0039): `functools`, `contextlib`, `types`, and
# `collections` with `array`, which imports it.
STDLIB_OFF = {"json", "re", "pathlib", "typing", "dataclasses", "threading", "subprocess",
              "datetime", "argparse", "urllib.parse", "inspect", "logging", "tomllib",
              "functools", "contextlib", "types", "collections", "array",
              # SHA-256 makes entry ids (a put, a hand-written entry): loaded on first use
              "_sha256", "_sha2", "hashlib",
              # search.time_limit keeps its limits by thread (ADR 0054)
              "contextvars"}
STDLIB_OFF_QUERY = STDLIB_OFF  # the plain (non --json) query

# The reporter a `.pth` line imports at start: at exit it appends the process's argv, its
# modules and, for each heavy stdlib module, the package's frames that first imported it.
REPORTER = """
import atexit, os, sys
OUT = os.environ.get("LM_MODULES_OUT")
WATCH = %r
WHY = {}


class Watch:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name in WATCH and name not in WHY:
            f, chain = sys._getframe(1), []
            while f is not None:
                where = f.f_code.co_filename
                if "lean_memory" in where:
                    chain.append(where.rsplit("lean_memory", 1)[1] + ":" + str(f.f_lineno))
                f = f.f_back
            WHY[name] = " < ".join(chain)
        return None


def report():
    with open(OUT, "a") as out:
        out.write(repr(["\\0".join(sys.argv), list(sys.modules), WHY]) + "\\n")


if OUT:
    sys.meta_path.insert(0, Watch)
    atexit.register(report)  # an error's exit
    end = os._exit  # cli.run's: the process ends there, without atexit (ADR 0054)
    os._exit = lambda code: (report(), end(code))
"""
PROMPT_MATCH = "why did the deploy fail with ECONNREFUSED"
PROMPT_NONE = "zebra quantum marmalade"


class Setup:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.project = base / "project"
        self.env = {k: v for k, v in os.environ.items()
                    if not k.upper().startswith(("PYTHON", "LEAN_MEMORY"))}
        self.env.update(XDG_DATA_HOME=str(base / "data"), LEAN_MEMORY_GLOBAL=str(base / "global"),
                        HOME=str(base / "home"))
        self.out = base / "modules.txt"
        self.why: dict[str, str] = {}

    def lines(self, agent: str) -> dict[str, str]:
        name = ".claude/settings.local.json" if agent == "claude" else ".codex/hooks.json"
        hooks = json.loads((self.project / name).read_text(encoding="utf-8"))["hooks"]
        return {event: groups[0]["hooks"][0]["command"] for event, groups in hooks.items()}

    def run(self, line: str, payload: str = "", want: str = "hook") -> tuple[str, list[str]]:
        """Run ``line`` under ``sh -c``; its stdout and the modules the process whose argv
        holds ``want`` loaded (a background warm-up it starts reports too). ``self.why``:
        which of our lines first imported each heavy module it loaded."""
        self.out.unlink(missing_ok=True)
        env = {**self.env, "LM_MODULES_OUT": str(self.out)}
        done = subprocess.run(["sh", "-c", line], input=payload, cwd=self.project, env=env,
                              capture_output=True, text=True, check=False, timeout=120)
        assert done.returncode == 0, done.stderr
        for record in self.out.read_text(encoding="utf-8").splitlines():
            argv, modules, why = ast.literal_eval(record)
            if argv.split("\0")[1:2] == [want]:
                self.why = why
                return done.stdout, modules
        raise AssertionError(f"no process of ours reported: {done.stderr}")


def payload(setup: Setup, event: str, prompt: str = "") -> str:
    # the agents send UUIDs; a new session each time (pay-once shows an entry once a session)
    data = {"session_id": str(uuid.uuid4()), "cwd": str(setup.project), "hook_event_name": event,
            "transcript_path": str(setup.base / "t.jsonl")}
    data.update({"prompt": prompt} if event == "UserPromptSubmit" else {"source": "startup"})
    return json.dumps(data)


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Setup:
    base = tmp_path_factory.mktemp("hotlines")
    venv.create(base / "venv", with_pip=False, symlinks=os.name != "nt")
    python = base / "venv" / "bin" / "python"
    site = subprocess.run([str(python), "-I", "-c",
                           "import site; print(site.getsitepackages()[0])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "zz_lean_memory_modules.py").write_text(REPORTER % (sorted(STDLIB_OFF),),
                                                       encoding="utf-8")
    Path(site, "zz_lean_memory_modules.pth").write_text("import zz_lean_memory_modules\n",
                                                        encoding="utf-8")
    s = Setup(base)
    s.project.mkdir()
    subprocess.run(["git", "init", "-q", str(s.project)], check=True)
    mem = lean_memory.Memory(s.project)
    mem.init()
    for i in range(12):
        mem.put_entry("failures", f"The deploy {i} failed with ECONNREFUSED: port {8000 + i} "
                                  "was closed after the upgrade.", date="2026-01-02")
    mem.put_entry("conventions", "Always run ruff before a commit.", date="2026-01-02")
    for agent in ("claude", "codex"):  # init as the person runs it: this venv's interpreter
        subprocess.run(spawn.argv("init", "--agent", agent, python=str(python)),
                       cwd=s.project, env=s.env, capture_output=True, check=True, timeout=120)
    for agent in ("claude", "codex"):  # the caches a warm hook expects
        for _ in range(2):
            for event, prompt in (("SessionStart", ""), ("UserPromptSubmit", PROMPT_MATCH)):
                s.run(s.lines(agent)[event], payload(s, event, prompt))
    return s


def _own(modules: list[str]) -> set[str]:
    return {m.removeprefix("lean_memory").removeprefix(".") for m in modules
            if m == "lean_memory" or m.startswith("lean_memory.")}


CASES = [("SessionStart", "", START), ("UserPromptSubmit", PROMPT_MATCH, MATCH),
         ("UserPromptSubmit", PROMPT_NONE, NO_MATCH)]


@pytest.mark.parametrize("agent", ["claude", "codex"])
@pytest.mark.parametrize(("event", "prompt", "allowed"), CASES,
                         ids=["session-start", "prompt-matching", "prompt-matching-nothing"])
def test_the_hook_lines_init_writes_load_only_the_allow_list(
        setup: Setup, agent: str, event: str, prompt: str, allowed: set[str]) -> None:
    """Guards the hook's weight: a module of ours (or a heavy stdlib one) that a prompt
    does not need, loaded by the exact line the agent runs, fails here (issue 36 measured
    29 of ours on every prompt: the agents' setup code, learn, secrets, dedup, ...)."""
    line = setup.lines(agent)[event]
    out, modules = setup.run(line, payload(setup, event, prompt))
    # a prompt that matches nothing gets nothing (the rules rode the session start)
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
    assert ("ECONNREFUSED" in context) == (prompt == PROMPT_MATCH)
    if event == "SessionStart":
        assert "ruff" in context  # the standing rules ride the session start (pay-once)
    extra = _own(modules) - allowed
    assert not extra, sorted(extra)
    assert not STDLIB_OFF.intersection(modules), setup.why


def test_codex_runs_the_launcher_not_the_console_script(setup: Setup) -> None:
    """Codex's line sources the launcher ``init`` wrote: our isolated interpreter, not
    pip's ``lean-memory`` script (which imports ``re`` before our code runs)."""
    line = setup.lines("codex")["UserPromptSubmit"]
    out, modules = setup.run(line, payload(setup, "UserPromptSubmit", PROMPT_MATCH))
    assert "re" not in modules and "ECONNREFUSED" in out
    launcher = Path(setup.env["XDG_DATA_HOME"], "lean-memory", "hook.sh").read_text()
    assert str(setup.base / "venv" / "bin" / "python") in launcher


def test_the_warm_query_line_loads_only_the_allow_list(setup: Setup) -> None:
    """Guards the warm ``get --query`` (run as ``spawn.argv`` writes every command):
    nothing of ours outside QUERY, no heavy stdlib module."""
    python = str(setup.base / "venv" / "bin" / "python")
    line = " ".join(spawn.sh_quote(a) for a in spawn.argv("get", "--query", PROMPT_MATCH,
                                                          python=python))
    for _ in range(2):
        out, modules = setup.run(line, want="get")
    assert "ECONNREFUSED" in out
    extra = _own(modules) - QUERY
    assert not extra, sorted(extra)
    assert not STDLIB_OFF_QUERY.intersection(modules), setup.why


def test_the_allow_lists_name_real_modules() -> None:
    """A renamed module would leave a stale name that allows nothing: each must exist."""
    root = Path(lean_memory.__file__).parent
    assert not NEVER & (CORE | QUERY | HOOK)  # pinned off the prompt's and the query's path
    for name in MATCH | QUERY:
        path = root.joinpath(*name.split(".")) if name else root
        assert path.with_suffix(".py").is_file() or (path / "__init__.py").is_file(), name
    assert sys.version_info >= (3, 11)


UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.uuids().map(str), st.uuids().map(lambda u: str(u).upper()),
                 st.text(st.sampled_from("0123456789abcdefABCDEFg-x "), max_size=40)))
def test_a_uuid_session_id_is_known_clean_without_the_scanner(text: str) -> None:
    """Guards the session start's shortcut past the scanner: ``is_uuid`` is the regular
    expression, and a UUID is what the scan itself would keep."""
    assert _askrecord.is_uuid(text) == bool(UUID.fullmatch(text))
    if _askrecord.is_uuid(text):
        assert secrets.redact(text) == text and _askrecord.plain_name(text)
        _askrecord._SESSION_IDS.clear()
        assert _askrecord.clean_session_id(text) == text
