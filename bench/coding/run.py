"""The session bench (issue 33): what a coding agent's memory costs per session, and what
it recalls, through the real hooks, beside the baseline "INDEX.md at session start + the
top 5 of `get --query` on every prompt", in the same run.

    PYTHONPATH=$PWD python bench/coding/run.py [--data DIR] [--budget 1200]
        [--hooks all|N|0] [--json out.json] [--split dev|heldout|all]

Data (``--data``; default ``bench/coding/data``, else the hand-made ``bench/coding/mini``):
``projects/<slug>.json``, ``prompts.jsonl``, ``sessions.json`` (formats: bench/coding/README).

**Sessions.** For each session a memory is built in a temp folder (one project's entries,
or every project's for ``"pooled"``) through the public API, and ``init --agent claude``'s
library call writes ``.claude/settings.local.json``; its SessionStart and UserPromptSubmit
commands are then run exactly as Claude Code runs them (``sh -c``, the hook JSON on stdin:
``session_id``, ``transcript_path``, ``cwd``, ``source: startup``; then one
UserPromptSubmit per prompt, same ``session_id``), and ``additionalContext`` is read from
their output. The transcript file gets each prompt and each injected text appended, as the
agent's would. ``--hooks N`` runs the first N sessions through the hook command line and
the rest in-process (``learn.hook_text``, the same code the command runs); the output says
which. Evidence counts as *in context* when an entry's whole text was injected at any point
of the session so far (it is still in the transcript).

**Per prompt** (in-process, every prompt alone: a fresh session, the start block not
counted): the prompt hook's own tokens; for prompts with evidence, recall from the prompt's
block and from the start block plus it; unrelated prompts' tokens and the share that get
nothing; case variants: the same decision (matches or not) as the prompt they vary; typo
variants: recall beside the prompt they vary.

Tokens: ``lean_memory.estimate_tokens`` (and tiktoken ``o200k_base`` if installed).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import lean_memory  # noqa: E402
from lean_memory import agents, learn  # noqa: E402
from lean_memory.dedup import main_text  # noqa: E402
from lean_memory.layers import find as layer_find  # noqa: E402
from lean_memory.search import render_hits  # noqa: E402
from lean_memory.tokens import estimate_tokens  # noqa: E402

try:
    import tiktoken

    _ENC: Any = tiktoken.get_encoding("o200k_base")
except Exception:  # not installed, or no encoding offline
    _ENC = None

HERE = Path(__file__).resolve().parent
ANSWERING = ("answerable", "generic", "typo", "case", "foreign")


def tok(text: str) -> int:
    return estimate_tokens(text)


def tik(text: str) -> int | None:
    return len(_ENC.encode(text)) if _ENC is not None else None


def norm(text: str) -> str:
    return " ".join(text.split()).lower()


# -- data ------------------------------------------------------------------------------------


def load_data(folder: Path) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
    projects = {}
    for f in sorted((folder / "projects").glob("*.json")):
        d = json.loads(f.read_text(encoding="utf-8"))
        projects[d["slug"]] = d
    prompts = {}
    for line in (folder / "prompts.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            p = json.loads(line)
            prompts[p["id"]] = p
    sessions = json.loads((folder / "sessions.json").read_text(encoding="utf-8"))
    return projects, prompts, sessions


class Built:
    """A memory built from entries, and what each entry key became."""

    def __init__(self, root: Path, slugs: list[str], projects: dict[str, Any]) -> None:
        self.root = root
        mem = lean_memory.Memory(root)
        loader = _loader(projects)
        if loader is not None:  # the bench's own writer (bench/coding/load.py)
            module, bench = loader
            name = "pooled" if len(slugs) > 1 else slugs[0]
            self.key_id = dict(module.write_memory(bench, root, name))
        else:
            mem.init()
            self.key_id = {}
            for slug in slugs:
                for e in projects[slug]["entries"]:
                    stored = mem.put_entry(e["shard"], e["text"], title=e.get("title") or None,
                                           tags=tuple(e.get("tags") or ()),
                                           date="2026-01-15", new=True)
                    self.key_id[e["key"]] = stored.id
        by_id = {e.id: e for e in mem.entries()}
        self.key_text = {k: norm(main_text(by_id[i].text)) for k, i in self.key_id.items()
                         if i in by_id}
        mem.search("warm")  # the index, the status and the rules' cache: as after a put
        mem.status()
        from lean_memory.digest import warm_rules

        warm_rules(mem, 1200)
        agents.setup_agent(mem, "claude")
        settings = json.loads((root / ".claude" / "settings.local.json").read_text())
        self.commands = {ev: settings["hooks"][ev][0]["hooks"][0]["command"]
                         for ev in ("SessionStart", "UserPromptSubmit")}
        self.index_md = (mem.agents_dir / "memory" / "INDEX.md").read_text(encoding="utf-8")
        self.mem = mem

    def held(self, keys: list[str], context: str) -> float:
        """The share of ``keys`` whose entry text ``context`` holds whole."""
        if not keys:
            return 1.0
        return sum(1 for k in keys if k in self.key_text and self.key_text[k] in context) / len(
            keys)


_LOADER: dict[str, Any] = {}


def _loader(projects: dict[str, Any]) -> tuple[Any, Any] | None:
    """bench/coding/load.py next to the data (imported by path: bench/ is no package) and
    the bench it loads, or None (data with no load.py beside it)."""
    path = _LOADER.get("data")
    if path is None:
        return None
    if "module" not in _LOADER:
        import importlib.util

        spec = importlib.util.spec_from_file_location("coding_load", path.parent / "load.py")
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        sys.modules["coding_load"] = module
        spec.loader.exec_module(module)
        _LOADER["module"] = module
        _LOADER["bench"] = module.load(path)
    return _LOADER["module"], _LOADER["bench"]


def use_loader(data: Path) -> None:
    if (data.parent / "load.py").exists():
        _LOADER["data"] = data


# -- one session ---------------------------------------------------------------------------


def run_hook(built: Built, event: str, payload: dict[str, Any], env: dict[str, str],
             cpu: list[float]) -> str:
    before = os.times()
    r = subprocess.run(["sh", "-c", built.commands[event]], input=json.dumps(payload),
                       capture_output=True, text=True, cwd=built.root, env=env, check=False)
    after = os.times()
    cpu[0] += (after.children_user - before.children_user) + (
        after.children_system - before.children_system)
    if r.returncode != 0:
        raise SystemExit(f"hook {event} exited {r.returncode}: {r.stderr[-400:]}")
    if not r.stdout.strip():
        return ""
    return str(json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"])


def in_process(built: Built, event: str, payload: dict[str, Any], budget: int) -> str:
    prompt = payload.get("prompt", "") if event == "UserPromptSubmit" else ""
    text = learn.hook_text(lean_memory.Memory(built.root), event, payload, prompt, budget)
    return text if text.strip() else ""


def baseline_prompt(built: Built, prompt: str) -> str:
    """What `get --query PROMPT` prints (top 5, over the layers)."""
    from lean_memory.bm25 import tokenize

    if not tokenize(prompt):
        return ""
    hits, _, _ = layer_find(built.mem, prompt, k=5)
    return render_hits([h.hit for h in hits]) if hits else ""


def run_session(built: Built, session: dict[str, Any], prompts: dict[str, Any], budget: int,
                hooks: bool, env: dict[str, str], work: Path, cpu: list[float]) -> dict[str, Any]:
    sid = f"bench-{session['id']}"
    transcript = work / f"{sid}.jsonl"
    transcript.write_text("", encoding="utf-8")
    base = {"session_id": sid, "transcript_path": str(transcript), "cwd": str(built.root)}

    def call(event: str, payload: dict[str, Any]) -> str:
        if hooks:
            return run_hook(built, event, payload, env, cpu)
        return in_process(built, event, payload, budget)

    start = call("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    with transcript.open("a", encoding="utf-8") as f:
        f.write(json.dumps({"type": "context", "text": start}) + "\n")
    ours = norm(start)
    theirs = norm(built.index_md)
    rows = []
    for pid in session["prompts"]:
        p = prompts[pid]
        text = call("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit",
                                         "prompt": p["text"]})
        with transcript.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"type": "user", "text": p["text"]}) + "\n")
            f.write(json.dumps({"type": "context", "text": text}) + "\n")
        ours += " " + norm(text)
        b = baseline_prompt(built, p["text"])
        theirs += " " + norm(b)
        rows.append({"id": pid, "kind": p["kind"], "tokens": tok(text), "base_tokens": tok(b),
                     "tik": tik(text), "base_tik": tik(b),
                     "recall": built.held(p["evidence"], ours) if p["evidence"] else None,
                     "base_recall": built.held(p["evidence"], theirs) if p["evidence"] else None})
    total = tok(start) + sum(r["tokens"] for r in rows)
    base_total = tok(built.index_md) + sum(r["base_tokens"] for r in rows)
    ans = [r for r in rows if r["recall"] is not None and r["kind"] in ANSWERING]
    return {"id": session["id"], "memory": session["memory"], "split": session["split"],
            "hooks": hooks, "start_tokens": tok(start), "base_start_tokens": tok(built.index_md),
            "tokens": total, "base_tokens": base_total,
            "recall": mean([r["recall"] for r in ans]),
            "base_recall": mean([r["base_recall"] for r in ans]), "prompts": rows}


def mean(xs: list[Any]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.fmean(xs) if xs else None


# -- per prompt ----------------------------------------------------------------------------


def per_prompt(built: Built, p: dict[str, Any], budget: int, start: str) -> dict[str, Any]:
    sid = f"alone-{p['id']}"
    payload = {"session_id": sid, "cwd": str(built.root), "prompt": p["text"],
               "hook_event_name": "UserPromptSubmit"}
    mem = lean_memory.Memory(built.root)
    blocks = learn.hook_blocks(mem, "UserPromptSubmit", payload, p["text"], budget, act=False)
    text = "".join(b.text for b in blocks).lstrip("\n")
    ctx = norm(text)
    return {"id": p["id"], "kind": p["kind"], "split": p["split"],
            "variant_of": p.get("variant_of"), "tokens": tok(text),
            "matched": "## " in text and "matching this prompt" in text,
            "recall": built.held(p["evidence"], ctx) if p["evidence"] else None,
            "recall_with_start": built.held(p["evidence"], norm(start) + " " + ctx)
            if p["evidence"] else None}


# -- reports -------------------------------------------------------------------------------


def fmt(x: Any, digits: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}" if abs(x) < 10 else f"{x:,.0f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def summarize(split: str, sessions: list[dict[str, Any]], alone: list[dict[str, Any]],
              prompts: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"split": split}
    for scope, pick in (("project", lambda s: s["memory"] != "pooled"),
                        ("pooled", lambda s: s["memory"] == "pooled")):
        ss = [s for s in sessions if pick(s)]
        if not ss:
            continue
        tokens = sum(s["tokens"] for s in ss)
        base = sum(s["base_tokens"] for s in ss)
        out[scope] = {
            "sessions": len(ss), "through_hooks": sum(1 for s in ss if s["hooks"]),
            "mean_session_tokens": tokens / len(ss), "base_mean_session_tokens": base / len(ss),
            "ratio": tokens / base if base else None,
            "mean_start_tokens": mean([s["start_tokens"] for s in ss]),
            "mean_prompt_tokens": mean([r["tokens"] for s in ss for r in s["prompts"]]),
            "base_mean_prompt_tokens": mean([r["base_tokens"] for s in ss for r in s["prompts"]]),
            "recall_in_context": mean([r["recall"] for s in ss for r in s["prompts"]
                                       if r["recall"] is not None and r["kind"] in ANSWERING]),
            "base_recall_in_context": mean([r["base_recall"] for s in ss for r in s["prompts"]
                                            if r["base_recall"] is not None
                                            and r["kind"] in ANSWERING]),
            "min_session_recall": min((s["recall"] for s in ss if s["recall"] is not None),
                                      default=None),
        }
    for scope in ("project", "pooled"):
        rows = [a for a in alone if a["scope"] == scope]
        if not rows:
            continue
        by = {r["id"]: r for r in rows}
        kinds: dict[str, Any] = {}
        for kind in sorted({r["kind"] for r in rows}):
            rk = [r for r in rows if r["kind"] == kind]
            kinds[kind] = {"n": len(rk), "mean_tokens": mean([r["tokens"] for r in rk]),
                           "empty_share": mean([0.0 if r["tokens"] else 1.0 for r in rk]),
                           "recall": mean([r["recall"] for r in rk]),
                           "recall_with_start": mean([r["recall_with_start"] for r in rk])}
        case = [r for r in rows if r["kind"] == "case" and r["variant_of"] in by]
        typo = [r for r in rows if r["kind"] == "typo" and r["variant_of"] in by
                and r["recall"] is not None]
        out[f"alone_{scope}"] = {
            "kinds": kinds,
            "case_same_decision": mean([1.0 if r["matched"] == by[r["variant_of"]]["matched"]
                                        else 0.0 for r in case]),
            "case_n": len(case),
            "typo_recall": mean([r["recall_with_start"] for r in typo]),
            "typo_originals_recall": mean([by[r["variant_of"]]["recall_with_start"]
                                           for r in typo]),
            "typo_n": len(typo),
        }
    return out


def table(s: dict[str, Any]) -> str:
    lines = [f"### split: {s['split']}", ""]
    lines.append("| sessions | n (hooks) | session tokens, ours / baseline | ratio | start | "
                 "per prompt, ours / baseline | in-context recall, ours / baseline | "
                 "worst session |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for scope in ("project", "pooled"):
        if scope in s:
            x = s[scope]
            lines.append(
                f"| {scope} | {x['sessions']} ({x['through_hooks']}) | "
                f"{fmt(x['mean_session_tokens'])} / {fmt(x['base_mean_session_tokens'])} | "
                f"{fmt(x['ratio'])} | {fmt(x['mean_start_tokens'])} | "
                f"{fmt(x['mean_prompt_tokens'])} / {fmt(x['base_mean_prompt_tokens'])} | "
                f"{fmt(x['recall_in_context'])} / {fmt(x['base_recall_in_context'])} | "
                f"{fmt(x['min_session_recall'])} |")
    for scope in ("project", "pooled"):
        a = s.get(f"alone_{scope}")
        if not a:
            continue
        lines += ["", f"per prompt alone ({scope} memory): kind | n | mean tokens | empty | "
                  "recall (own block) | recall (+ start)", ""]
        lines.append("| kind | n | mean tokens | empty | recall | recall + start |")
        lines.append("|---|---|---|---|---|---|")
        for kind, k in a["kinds"].items():
            lines.append(f"| {kind} | {k['n']} | {fmt(k['mean_tokens'])} | "
                         f"{fmt(k['empty_share'])} | {fmt(k['recall'])} | "
                         f"{fmt(k['recall_with_start'])} |")
        lines.append(f"\ncase variants, same decision: {fmt(a['case_same_decision'])} "
                     f"(n={a['case_n']}); one typo: recall {fmt(a['typo_recall'])} vs "
                     f"{fmt(a['typo_originals_recall'])} for the originals (n={a['typo_n']})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = HERE / "data" if (HERE / "data" / "prompts.jsonl").exists() else HERE / "mini"
    ap.add_argument("--data", type=Path, default=default)
    ap.add_argument("--budget", type=int, default=1200)
    ap.add_argument("--hooks", default="all",
                    help="sessions run through the hook command line: all, N (the first N) "
                         "or 0")
    ap.add_argument("--split", default="all", choices=("dev", "heldout", "all"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-alone", action="store_true", help="skip the per-prompt figures")
    args = ap.parse_args(argv)
    projects, prompts, sessions = load_data(args.data)
    use_loader(args.data)
    # Only the split asked, sessions and per-prompt figures alike: the held-out split is
    # for reporting, never printed while tuning on dev.
    splits = ("dev", "heldout") if args.split == "all" else (args.split,)
    sessions = [s for s in sessions if s["split"] in splits]
    work = Path(tempfile.mkdtemp(prefix="lm-coding-"))
    env = {**os.environ, "XDG_DATA_HOME": str(work / "data"),
           "LEAN_MEMORY_GLOBAL": str(work / "global"), "PYTHONPATH": str(ROOT),
           "LEAN_MEMORY_DIGEST_TOKENS": str(args.budget), "LEAN_MEMORY_HOOK_TIMEOUT": "60"}
    os.environ.update({k: env[k] for k in ("XDG_DATA_HOME", "LEAN_MEMORY_GLOBAL")})
    limit = len(sessions) if args.hooks == "all" else int(args.hooks)
    cpu = [0.0]
    t0 = time.time()
    built: dict[str, Built] = {}

    def memory(name: str) -> Built:
        if name not in built:
            slugs = sorted(projects) if name == "pooled" else [name]
            built[name] = Built(work / "mem" / name / "repo", slugs, projects)
        return built[name]

    try:
        results = [run_session(memory(s["memory"]), s, prompts, args.budget, i < limit, env,
                               work, cpu) for i, s in enumerate(sessions)]
        alone: list[dict[str, Any]] = []
        starts: dict[str, str] = {}
        if not args.no_alone:
            for scope in ("project", "pooled"):
                for p in prompts.values():
                    if p["split"] not in splits:
                        continue
                    name = "pooled" if scope == "pooled" else p["project"]
                    b = memory(name)
                    if name not in starts:
                        starts[name] = learn.hook_text(
                            lean_memory.Memory(b.root), "SessionStart",
                            {"session_id": "", "source": "startup"}, "", args.budget)
                    alone.append({**per_prompt(b, p, args.budget, starts[name]),
                                  "scope": scope})
        report = {"data": str(args.data), "budget": args.budget,
                  "tokenizer": "estimate_tokens" + (" + o200k" if _ENC else ""),
                  "hook_cpu_s": round(cpu[0], 2), "wall_s": round(time.time() - t0, 1),
                  "splits": [], "sessions": results, "alone": alone}
        for split in splits:
            ss = [s for s in results if s["split"] == split]
            aa = [a for a in alone if a["split"] == split]
            if ss or aa:
                summary = summarize(split, ss, aa, prompts)
                report["splits"].append(summary)
                print(table(summary), "\n")
        print(f"hooks: {sum(1 for s in results if s['hooks'])} of {len(results)} sessions "
              f"through the hook command line (CPU {cpu[0]:.1f} s in hook processes); "
              f"wall {report['wall_s']} s; tokens: {report['tokenizer']}")
        if args.json:
            args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
