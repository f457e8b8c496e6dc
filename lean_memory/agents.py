"""Where agents meet the memory: the per-prompt digest, the hook command, agent setup.

* :func:`digest` is the block a harness injects before a prompt: INDEX.md, then the
  standing rules (live ``conventions`` entries), then the entries that best match the
  prompt, all within a token budget. The rules have their own share, so the matches can
  never be crowded out by them (nor they by the matches); one oversized item is cut to a
  per-item cap; whatever is left out is *said* (a count and the command to get it).
  An entry that holds a credential is never shown: the digest says how many it withheld
  (ADR 0011).
* :func:`run_hook` is ``python -m lean_memory hook EVENT``: it reads the agent's hook JSON
  (Claude Code and Codex share the shape) and prints
  ``{"hookSpecificOutput": {"hookEventName": …, "additionalContext": …}}``. It never blocks
  the agent: any error, bad input or slow disk means exit 0 and no output (logged to
  ``.agents/memory/.cache/hook.log`` when there is a memory to log into).
* :func:`setup_agent` writes the hook configuration and a short instructions section.

See ADR 0006 for the formats relied on and why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .format import Entry
    from .search import Hit
    from .store import Memory
    from .withhold import Verdicts

RULES_SHARD = "conventions"
RULE_CAP = 60  # tokens per rule: a long rule is cut, never carried whole into every prompt
MATCH_CAP = 250  # tokens per matching entry
MIN_MATCH = 30  # a match cut below this says too little to be worth its tokens
MATCH_SHARE = 3  # at least 1/3 of what the index leaves is kept for matches
K_MATCHES = 5
MAX_QUERY_CHARS = 4000
CONTEXT_LIMIT = 9000  # characters; Claude Code and Codex cap additionalContext at 10,000
HOOK_TIMEOUT = 5.0  # seconds; then the hook gives up silently
MAX_HOOK_TIMEOUT = 60.0  # the harness kills a hook long before that anyway
LOG_LIMIT = 256 * 1024
EVENTS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}
SECTION_BEGIN = "<!-- lean-memory:begin -->"
SECTION_END = "<!-- lean-memory:end -->"


# -- the digest -----------------------------------------------------------------------


def _tokens(text: str) -> int:
    from .tokens import estimate_tokens

    return estimate_tokens(text)


def _clip(text: str, cap: int, suffix: str = "…") -> tuple[str, bool]:
    """``text`` cut (at a word, with ``suffix``) to at most ``cap`` tokens; (text, was_cut)."""
    if _tokens(text) <= cap:
        return text, False
    low, high = 0, len(text)
    if _tokens(text[: cap * 8]) > cap:  # no token is 8 characters long on average
        high = cap * 8
    while low < high:  # the longest prefix whose clipped form fits
        mid = (low + high + 1) // 2
        if _tokens(text[:mid].rstrip() + suffix) <= cap:
            low = mid
        else:
            high = mid - 1
    cut = text[:low]
    if low < len(text) and not text[low].isspace() and " " in cut.strip():
        cut = cut.rsplit(" ", 1)[0]  # do not end on half a word
    cut = cut.rstrip()
    return (cut + suffix if cut else ""), True


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _rule_line(e: Entry, cap: int, titles_only: bool) -> str:
    from .dedup import main_text

    title = _one_line(e.title)
    if titles_only:
        return f"- {_clip(title, max(cap, 4))[0]}"
    body = _one_line(main_text(e.text))
    stem = title.rstrip("…").rstrip()
    head = f"- {body}" if body.startswith(stem) else f"- **{title}**: {body}"
    return _clip(head, cap)[0]


def _match_block(hit: Hit, cap: int) -> str:
    from . import format as fmt
    from .dedup import main_text

    e = hit.entry
    facts = [hit.shard + (" (archive)" if hit.archived else ""), e.id]
    if e.date:
        facts.append(e.date)
    head = f"### {_one_line(e.title)}\n_{' · '.join(facts)}_\n"
    body = main_text(e.text).strip("\r\n")
    first, _, rest = body.partition("\n")
    if _one_line(first) == _one_line(e.title) and rest.strip():
        body = rest.strip("\r\n")  # the title is the first line: do not pay for it twice
    elif _one_line(body) == _one_line(e.title):
        return head
    body, _ = _clip(body, max(cap - _tokens(head), 1),
                    suffix=f"… (cut; full entry in .agents/memory/{hit.shard}.md)")
    return head + fmt.escape_body(body).rstrip("\n") + "\n"


def _index_block(mem: Memory, verdicts: Verdicts) -> str:
    from .withhold import shown_index

    text = shown_index(mem, verdicts)
    if not text:
        from .indexfile import render_index

        text = render_index(mem.status(), mem.config.max_index_tokens)
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("<!--")]
    return "\n".join(lines).strip("\n") + "\n"


def _rules(mem: Memory, verdicts: Verdicts) -> tuple[list[Entry], int]:
    """Live entries of the conventions shard, in file order, without those that hold a
    credential; and how many of those there were.

    Only that shard is parsed; what the other shards (and the archive) supersede comes from
    the store's per-shard summaries, cached by file signature, so this stays cheap.
    """
    if RULES_SHARD not in mem.shards:
        return [], 0
    from . import format as fmt
    from .withhold import content_key

    hidden = mem.superseded_ids()
    text, bad = verdicts.read(mem.shard_path(RULES_SHARD), RULES_SHARD)
    live = [e for e in fmt.parse(text, RULES_SHARD).entries if e.id not in hidden]
    if not bad:
        return live, 0
    kept = [e for e in live if content_key(e.raw) not in bad]
    return kept, len(live) - len(kept)


def _matches(mem: Memory, prompt: str) -> tuple[list[Hit], int]:
    from .bm25 import tokenize

    query = prompt[:MAX_QUERY_CHARS]
    others = [s for s in mem.shards if s != RULES_SHARD]
    if not others or not tokenize(query):
        return [], 0
    from .search import find

    found = find(mem, query, k=K_MATCHES, shards=others)
    return list(found.hits), found.withheld


def _fit_rules(rules: Sequence[Entry], room: int) -> list[str]:
    """Every rule in ``room`` tokens if at all possible: full (cut at RULE_CAP), then a
    smaller cap each, then titles only; only then a count of the rules left out."""
    if not rules:
        return []
    n = len(rules)
    levels = ((RULE_CAP, False), (max(room // n - 1, 12), False), (max(room // n - 1, 6), True))
    for cap, titles in levels if 4 * n <= room else ():
        lines = [_rule_line(e, min(cap, RULE_CAP), titles) for e in rules]
        if sum(_tokens(ln) + 1 for ln in lines) <= room:
            return lines
    lines = []
    used = 0
    for i, e in enumerate(rules):
        line = _rule_line(e, 12, True)
        more = f"- (+{n - i - 1} more rules: `python -m lean_memory get {RULES_SHARD}`)"
        need = _tokens(line) + 1 + (_tokens(more) + 1 if i < n - 1 else 0)
        if used + need > room:
            lines.append(f"- ({n - i} more rules: `python -m lean_memory get {RULES_SHARD}`)")
            break
        lines.append(line)
        used += _tokens(line) + 1
    return lines


def digest(mem: Memory, prompt: str, *, budget_tokens: int = 1200) -> str:
    """The block to inject before ``prompt``: INDEX.md, the standing rules, the best
    matches, in at most ``budget_tokens`` (estimated), and a note of the entries withheld
    because they hold a credential. Deterministic."""
    from .errors import QueryError
    from .withhold import Verdicts, count_note

    if not isinstance(prompt, str):
        raise QueryError("the prompt must be a string")
    if not isinstance(budget_tokens, int) or isinstance(budget_tokens, bool):
        raise QueryError("budget_tokens must be a whole number")
    mem._require_init()
    verdicts = Verdicts(mem)
    try:
        index = _index_block(mem, verdicts)
        rules, withheld = _rules(mem, verdicts)
    finally:
        verdicts.save()
    hits, withheld_hits = _matches(mem, prompt) if prompt and prompt.strip() else ([], 0)
    note = count_note(withheld + withheld_hits)
    if not note:
        return _digest(mem, budget_tokens, index, rules, hits)
    note = f"\n_({note})_\n"
    budget = max(int(budget_tokens), 0)
    text = _digest(mem, budget - _tokens(note) - 1, index, rules, hits)
    return text + note if text else ""


def _digest(mem: Memory, budget_tokens: int, index: str, rules: list[Entry],
            hits: list[Hit]) -> str:
    budget = max(int(budget_tokens), 0)
    if _tokens(index) > budget // 2:  # a tiny budget: a pointer instead of the index
        index = ("Project memory: `python -m lean_memory get` (index), "
                 '`python -m lean_memory get --query "<words>"`.\n')
    if _tokens(index) > budget:
        return ""
    rules_head = f"\n## Standing rules ({RULES_SHARD}: follow them)\n"
    match_head = "\n## Memory matching this prompt\n"

    left = budget - _tokens(index)
    reserve = 0
    if hits:
        reserve = min(left, max(left // MATCH_SHARE, MIN_MATCH + _tokens(match_head) + 1))
    rule_lines: list[str] = []
    if rules:
        rule_lines = _fit_rules(rules, left - reserve - _tokens(rules_head) - 1)
    parts = [index]
    if rule_lines:
        parts.append(rules_head + "\n".join(rule_lines) + "\n")
    used = sum(_tokens(p) for p in parts) + len(parts)

    blocks: list[str] = []
    if hits:
        room = budget - used - _tokens(match_head) - 2
        shown = 0
        for hit in hits:
            note = _left_out_note(len(hits) - shown - 1)
            cap = min(MATCH_CAP, room - (_tokens(note) + 1 if note else 0))
            if cap < MIN_MATCH:
                break
            block = _match_block(hit, cap)
            blocks.append(block)
            room -= _tokens(block) + 1
            shown += 1
        if blocks:
            note = _left_out_note(len(hits) - shown)
            parts.append(match_head + "\n".join(blocks) + (f"\n{note}\n" if note else ""))
    text = "".join(parts)
    while _tokens(text) > budget and len(parts) > 1:  # estimates are not quite additive
        if blocks and len(parts) == (3 if rule_lines else 2):
            blocks.pop()
            note = _left_out_note(len(hits) - len(blocks))
            parts[-1] = (match_head + "\n".join(blocks) + (f"\n{note}\n" if note else "")
                         if blocks else "")
        else:
            parts.pop()
        text = "".join(parts)
    return text if _tokens(text) <= budget else ""


def _left_out_note(n: int) -> str:
    if n <= 0:
        return ""
    what = "entry" if n == 1 else "entries"
    return (f"_({n} more matching {what} left out for the token budget: "
            '`python -m lean_memory get --query "<words>"`)_')


# -- the hook command -----------------------------------------------------------------


def _find_memory_root(cwd: object, root: str | None) -> Path | None:
    """The input's ``cwd`` when it leads to a memory, else ``--root``, env, the cwd."""
    if isinstance(cwd, str) and cwd:
        here = Path(cwd)
        if here.is_absolute() and here.is_dir():
            for folder in (here, *here.parents):
                if (folder / ".agents" / "memory").is_dir():
                    return folder
    if root:
        return Path(root)
    from .store import find_root

    return find_root()


def _read_input(stdin: IO[str] | IO[bytes] | Any) -> Any:
    import json

    stream = getattr(stdin, "buffer", stdin)
    data = stream.read()
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    return json.loads(data)


def hook_output(event: str, root: str | None, payload: Any,
                budget_tokens: int | None = None) -> str:
    """The JSON line to print for ``payload`` ('' for nothing); raises on bad input."""
    import json

    if not isinstance(payload, dict):
        raise ValueError("hook input is not a JSON object")
    name = payload.get("hook_event_name")
    if name not in EVENTS.values():
        name = EVENTS[event]
    prompt = payload.get("prompt") if name == "UserPromptSubmit" else ""
    if not isinstance(prompt, str):
        raise ValueError("hook input has no prompt string")
    where = _find_memory_root(payload.get("cwd"), root)
    if where is None:
        return ""
    from .store import Memory

    mem = Memory(where)
    if not mem.dir.is_dir():
        return ""  # no memory here: nothing to say
    _state["mem"] = mem
    if budget_tokens is None:
        env = os.environ.get("LEAN_MEMORY_DIGEST_TOKENS", "")
        budget_tokens = int(env) if env.isdigit() else 1200
    from .search import time_limit

    # Index and rules always; matches only if the search index can be brought up to date
    # in half the hook's time (else it is finished in the background for the next prompt).
    with time_limit(hook_timeout(os.environ.get("LEAN_MEMORY_HOOK_TIMEOUT", "")) / 2,
                    warm=True):
        text = digest(mem, prompt, budget_tokens=budget_tokens)
    note = ""
    if len(text) > CONTEXT_LIMIT and text.endswith(")_\n") and "withheld: " in text[-200:]:
        cut = text.rstrip("\n").rfind("\n") + 1  # the note of withheld entries stays
        text, note = text[:cut], text[cut:]
    while len(text) + len(note) > CONTEXT_LIMIT:  # both agents cap additionalContext at 10,000
        text = text[: text.rstrip("\n").rfind("\n") + 1] if "\n" in text.rstrip("\n") else ""
    text = text + note if text.strip() else ""
    if not text.strip():
        return ""
    out = {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}
    return json.dumps(out, ensure_ascii=True) + "\n"


_state: dict[str, Any] = {}


def _log(event: str, message: str) -> None:
    """One line in ``.cache/hook.log`` of the memory being served, if any; never raises."""
    mem = _state.get("mem")
    if mem is None:
        return
    try:
        import time

        from .fsutil import append_line

        if not mem.dir.is_dir():
            return
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        # never through a link: a cloned repository may commit hook.log as one (ADR 0012)
        append_line(mem.cache_dir / "hook.log", f"{stamp} {event}: {message}\n",
                    limit=LOG_LIMIT, root=mem.agents_dir)
    except Exception:  # logging must never break the hook
        pass


def _describe(exc: BaseException) -> str:
    """The exception's type and where it happened; never its message (it could quote
    the prompt, and the prompt may hold a secret)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}" if tb else ""
    return f"{type(exc).__name__}{where}"


def hook_timeout(value: str) -> float:
    """``LEAN_MEMORY_HOOK_TIMEOUT`` as seconds: the default when unset or not a finite
    number, clamped to [0, MAX_HOOK_TIMEOUT] (a huge value would overflow the thread join
    and make the hook exit non-zero, which blocks the prompt)."""
    import math

    try:
        timeout = float(value)
    except ValueError:
        return HOOK_TIMEOUT
    if math.isnan(timeout):
        return HOOK_TIMEOUT
    return min(max(timeout, 0.0), MAX_HOOK_TIMEOUT)


def run_hook(event: str, root: str | None, stdin: Any, out: Any) -> int:
    """``hook EVENT``: print the context for the agent, or nothing. Always returns 0."""
    import threading

    box: list[Any] = []
    _state.clear()

    def work() -> None:
        try:
            box.append(hook_output(event, root, _read_input(stdin)))
        except BaseException as exc:  # fail open, whatever happened
            box.append(exc)

    timeout = hook_timeout(os.environ.get("LEAN_MEMORY_HOOK_TIMEOUT", ""))
    worker = threading.Thread(target=work, daemon=True, name="lean-memory-hook")
    worker.start()
    worker.join(timeout)
    if not box:
        _log(event, f"gave up after {timeout:g} s (slow disk?); printed nothing")
        return 0
    result = box[0]
    if isinstance(result, BaseException):
        _log(event, f"failed open: {_describe(result)}")
        return 0
    if result:
        try:
            out.write(result)
            out.flush()
        except Exception as exc:  # e.g. a closed pipe
            _log(event, f"could not write the output: {_describe(exc)}")
    return 0


# -- agent setup ----------------------------------------------------------------------


def cli_command() -> str:
    """How to run lean_memory as it is installed here: the ``lean-memory`` script when the
    one on PATH is this installation's, else that script's absolute path, else this
    interpreter with ``-m`` (pipx, ``uv tool`` and venvs that are not active all work)."""
    import shutil

    bindir = Path(sys.executable).parent
    for name in ("lean-memory.exe", "lean-memory") if os.name == "nt" else ("lean-memory",):
        script = bindir / name
        if script.is_file():
            found = shutil.which("lean-memory")
            if found is not None and Path(found).resolve() == script.resolve():
                return "lean-memory"
            return _quoted(script.as_posix())
    return f"{_quoted(Path(sys.executable).as_posix())} -m lean_memory"


def _quoted(word: str) -> str:
    return f'"{word}"' if any(ch in word for ch in " \t'\"$`&;|<>()") else word


def hook_command(event: str, *, portable: bool = False) -> str:
    """The shell command an agent runs for ``event``: this machine's interpreter, or, for
    a file the team shares (``portable``), the ``lean-memory`` script found on PATH."""
    if portable:
        return f"lean-memory hook {event}"
    py = Path(sys.executable).as_posix()
    return f'"{py}" -m lean_memory hook {event}'


def hook_config(agent: str) -> dict[str, Any]:
    """The ``hooks`` settings for Claude Code (``.claude/settings.local.json``, personal) or
    Codex (``.codex/hooks.json``, shared with the team, so its command is portable)."""
    portable = agent == "codex"
    start: dict[str, Any] = {"type": "command", "timeout": 10,
                             "command": hook_command("session-start", portable=portable)}
    prompt: dict[str, Any] = {"type": "command", "timeout": 10,
                              "command": hook_command("user-prompt-submit", portable=portable)}
    if agent == "codex":
        start["statusMessage"] = "Loading project memory"
        prompt["statusMessage"] = "Recalling project memory"
    sources = "startup|resume|clear|compact"
    return {"hooks": {"SessionStart": [{"matcher": sources, "hooks": [start]}],
                      "UserPromptSubmit": [{"hooks": [prompt]}]}}


def _has_our_hooks(settings: Any) -> bool:
    hooks = settings.get("hooks") if isinstance(settings, dict) else None
    if not isinstance(hooks, dict):
        return False

    def ours(event: str, needle: str) -> bool:
        for group in hooks.get(event) or []:
            for h in (group.get("hooks") or []) if isinstance(group, dict) else []:
                cmd = h.get("command", "") if isinstance(h, dict) else ""
                if isinstance(cmd, str) and needle in cmd and "lean" in cmd:
                    return True
        return False

    return ours("SessionStart", "hook session-start") and \
        ours("UserPromptSubmit", "hook user-prompt-submit")


def instructions(mem: Memory) -> str:
    """The AGENTS.md / CLAUDE.md section telling an agent how to use the memory, with the
    command that runs lean_memory as it is installed on this machine."""
    cmd = cli_command()
    shards = ", ".join(f"`{s}`" for s in mem.shards)
    rules = (f"\n- `{RULES_SHARD}` holds standing rules, shown with every prompt: keep them "
             "few, short and real rules." if RULES_SHARD in mem.shards else "")
    return f"""{SECTION_BEGIN}
## Project memory (lean_memory)

Durable memory for agents lives in `.agents/memory/` as Markdown shards ({shards}).
Its index, the standing rules and the entries matching each prompt are added to your context
automatically; pull more when you need it. Run lean_memory as `{cmd}`:

- `{cmd} get --query "words"`: the entries about a topic (with their ids).
- `{cmd} get <shard>`: a whole shard; `{cmd} get`: the index.

Write down what a future session must know, one fact per entry, in the shard it belongs to:

- `{cmd} put failures "What broke, why, and the fix that worked" --tag ci`
- longer text from standard input: `{cmd} put insights - --title "Short title"`
- a correction of an entry that is wrong or outdated:
  `{cmd} put corrections "What is right instead" --supersedes <id>`
  (the old entry is hidden, never deleted; do not edit memory files by hand for this).{rules}
- Absolute dates only; never store secrets (a write containing a credential is refused).
{SECTION_END}
"""


def _ensure_ignored(root: Path, path: Path) -> str | None:
    """Make git ignore ``path`` (a personal file) with a line in its folder's .gitignore;
    a line to print, or None when git already ignores it or this is not a repository."""
    import subprocess

    from .fsutil import atomic_write

    try:
        r = subprocess.run(["git", "-C", str(root), "check-ignore", "-q", str(path)],
                           capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 1:  # 0: ignored already; 128: not a repository (or no git)
        return None
    ignore = path.parent / ".gitignore"
    try:
        current = ignore.read_bytes().decode("utf-8")
    except FileNotFoundError:
        current = ""
    sep = "" if not current or current.endswith("\n") else "\n"
    atomic_write(ignore, f"{current}{sep}{path.name}\n")
    rel = ignore.relative_to(root).as_posix()
    return f"{rel}: ignores {path.name} (it names this machine's interpreter)"


def _write_section(path: Path, section: str) -> str:
    from .fsutil import atomic_write

    try:
        current = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        current = ""
    begin, end = current.find(SECTION_BEGIN), current.find(SECTION_END)
    if begin != -1 and end > begin:
        stop = end + len(SECTION_END)
        if current[stop:stop + 1] == "\n":
            stop += 1
        new = current[:begin] + section + current[stop:]
    else:
        sep = "" if not current else ("\n" if current.endswith("\n") else "\n\n")
        if current.endswith("\n") and not current.endswith("\n\n"):
            sep = "\n"
        new = current + sep + section
    if new == current:
        return f"{path.name}: memory instructions already present"
    atomic_write(path, new)
    return f"{path.name}: {'updated' if current else 'wrote'} the memory instructions section"


def setup_agent(mem: Memory, agent: str) -> list[str]:
    """Configure ``agent`` (``claude`` or ``codex``) for this memory; lines to print."""
    import json

    from .errors import LeanMemoryError
    from .fsutil import atomic_write

    if agent not in ("claude", "codex"):
        raise LeanMemoryError(f"unknown agent {agent!r}: expected claude or codex")
    if agent == "claude":
        # settings.local.json: the command names this machine's interpreter, so it is
        # personal (Claude Code keeps that file out of git); the team shares CLAUDE.md.
        settings = mem.root / ".claude" / "settings.local.json"
        notes = "Claude Code"
        doc = mem.root / "CLAUDE.md"
    else:
        settings = mem.root / ".codex" / "hooks.json"
        notes = "Codex"
        doc = mem.root / "AGENTS.md"
    config = hook_config(agent)
    snippet = json.dumps(config, indent=2)
    rel = settings.relative_to(mem.root).as_posix()
    lines: list[str] = []
    if settings.exists():
        try:
            current = json.loads(settings.read_bytes().decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            current = None
        if current is not None and _has_our_hooks(current):
            lines.append(f"{rel}: {notes} hooks already configured")
        else:
            lines.append(f"{rel} exists; merge these hooks into it by hand:")
            lines.extend(snippet.splitlines())
    else:
        settings.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(settings, snippet + "\n")
        lines.append(f"wrote {rel}: {notes} hooks SessionStart and UserPromptSubmit")
    if agent == "claude":
        ignored = _ensure_ignored(mem.root, settings)
        if ignored is not None:
            lines.append(ignored)
    else:
        lines.append("Codex: trust the two new hooks once in Codex's /hooks (until then Codex "
                     "skips them); project .codex/ files load only in a trusted project")
        if cli_command() != "lean-memory":
            lines.append("Codex: the hooks run `lean-memory` from PATH, which is not there "
                         "yet: `pipx install lean-memory-md` (each teammate too)")
    lines.append(_write_section(doc, instructions(mem)))
    return lines
