"""The command line: a thin layer over the library API.

Exit codes: 0 success, 1 a secret was found or refused, 2 bad usage or bad input (or, for
`scan`, a file that could not be scanned: the check fails closed).
Errors are one line on stderr, redacted (they may quote user input); no traceback ever
reaches the user.
"""

from __future__ import annotations

import os
import sys

from .errors import LeanMemoryError, SecretFound, redact_message

# Not typing.TYPE_CHECKING: the hot commands never import typing, argparse or json (their
# arguments are read by _fast_args; the parser is built only for the other commands).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any, NoReturn, TextIO

    from .format import Entry
    from .store import Memory

PROG = "lean-memory"


class UsageError(LeanMemoryError):
    """Bad command-line usage."""


def _memory(args: argparse.Namespace) -> Memory:
    """The memory a command acts on: the global store with ``--global`` (created by a
    put), else the project's, which may never be the global store (ADR 0022)."""
    from .layers import check_project, global_memory
    from .store import Memory

    if getattr(args, "global_", False):
        if args.root:
            raise UsageError("give --global or --root, not both")
        return global_memory(create=args.command == "put")
    return check_project(Memory(args.root))


def entry_json(entry: Entry) -> dict[str, Any]:
    """The stable ``--json`` shape of an entry."""
    return {
        "id": entry.id,
        "shard": entry.shard,
        "title": entry.title,
        "date": entry.date,
        "tags": list(entry.tags),
        "supersedes": entry.supersedes,
        "meta": dict(entry.meta),
        "text": entry.text,
    }


def _dump(data: Any, out: TextIO) -> None:
    import json

    json.dump(data, out, ensure_ascii=False, indent=2)
    out.write("\n")


# -- commands -----------------------------------------------------------------


def cmd_init(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    if args.agent and not args.global_:
        from .agents import check_agent

        check_agent(mem.root, args.agent)  # refused before anything is made
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
        from .merge import setup_merge_driver

        for line in setup_merge_driver(mem.root, index_hooks=args.index_hooks):
            out.write(line + "\n")
    unprotected: LeanMemoryError | None = None
    if args.git_hook:
        from .githook import install_git_hook

        try:
            out.write(install_git_hook(mem.root) + "\n")
        except LeanMemoryError as exc:
            unprotected = exc  # the rest of init still runs; the exit code says it failed
    elif (mem.root / ".git").exists():
        from .githook import refresh_git_hook

        refreshed = refresh_git_hook(mem.root)  # one an older version wrote
        if refreshed is not None:
            out.write(refreshed + "\n")
    from .agents import refresh_hooks

    for line in refresh_hooks(mem.root):  # commands older versions wrote
        out.write(line + "\n")
    if args.agent:
        from .agents import setup_agent

        for line in setup_agent(mem, args.agent):
            out.write(line + "\n")
    if not created:
        out.write(f"memory already initialised at {os.path.relpath(mem.dir, mem.root)}\n")
    if unprotected is not None:
        raise unprotected
    return 0


def _read_stdin() -> str:
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("standard input is not valid UTF-8") from None


def cmd_put(args: argparse.Namespace, out: TextIO) -> int:
    if args.text == "-" or (args.text is None and not sys.stdin.isatty()):
        text = _read_stdin()
    elif args.text is None:
        raise UsageError("put needs the entry text (an argument, or '-' to read standard input)")
    else:
        text = args.text
    mem = _memory(args)
    tags, supersedes = args.tag or [], args.supersedes
    if supersedes and not args.global_:
        from .layers import OVERRIDES, overrides_global

        if overrides_global(mem, supersedes):  # hidden in this project's views only
            tags, supersedes = [*tags, OVERRIDES + supersedes], None
    entry = mem.put_entry(args.shard, text, title=args.title, tags=tags,
                          date=args.date, supersedes=supersedes, new=args.new)
    if args.json:
        _dump(entry_json(entry), out)
    elif entry.get("said_again") and not args.new:
        out.write(f"said again: {entry.id} in {entry.shard}: {entry.title} "
                  f"(x{int(entry.get('said_again') or 0) + 1})\n")
    else:
        out.write(f"added {entry.id} to {entry.shard}: {entry.title}\n")
    return 0


def cmd_get(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    if args.k < 1:
        raise UsageError("-k must be at least 1")
    archive = False if args.no_archive else None  # None: the config's search_archive
    own = getattr(args, "global_", False)  # --global: that layer alone
    if args.digest is not None:
        if own:
            out.write(mem.digest(args.digest, include_archive=archive))
        else:
            from .layers import digest

            out.write(digest(mem, args.digest, include_archive=archive))
        return 0
    from .withhold import live_entries, read_shown

    if args.query is not None:
        from .layers import GLOBAL, PROJECT, LayerHit, find, render

        shards = (args.shard,) if args.shard else None
        scope = True if args.archive else archive
        if own:
            from .search import find as find_one

            one = find_one(mem, args.query, k=args.k, shards=shards, include_archive=scope)
            hits = [LayerHit(GLOBAL, h) for h in one.hits]
            withheld, notes = one.withheld, one.notes
        else:
            session = []
            if getattr(args, "session", None):
                from .learn import ask_hits

                session = ask_hits(mem, args.session, args.query, args.k)
            hits, withheld, notes = find(mem, args.query, k=args.k, shards=shards,
                                         include_archive=scope, session=session)
        _note_withheld(withheld)
        if notes:  # searched without a retriever: one line, BM25 answered
            _say("note: " + "; ".join(notes))
        if args.json:
            _dump([{**entry_json(h.hit.entry), "score": round(h.hit.score, 6),
                    "archived": h.hit.archived, "layer": h.layer} for h in hits], out)
        else:
            out.write(render(hits) if hits and (own or any(h.layer != PROJECT for h in hits))
                      else _plain(hits))
            if not hits:
                _say("no entry matches the query")
        return 0
    if args.shard is None:
        if args.json:
            _dump(status_json(mem), out)
        else:
            out.write(read_shown(mem)[0])
        return 0
    if args.json:
        from .withhold import superseders

        kept, n = live_entries(mem, mem.entries(args.shard, archive=args.archive))
        by = superseders(mem)
        _dump([{**entry_json(e), **({"superseded_by": {"id": by[e.id][0], "date": by[e.id][1]}}
                                    if e.id in by else {})} for e in kept], out)
    else:
        text, ids = read_shown(mem, args.shard, archive=args.archive)
        out.write(text)
        n = len(ids)
    _note_withheld(n)
    return 0


def _plain(hits: Sequence[Any]) -> str:
    """Hits of the project layer alone, rendered as before there were layers."""
    from .search import render_hits

    return render_hits([h.hit for h in hits])


def _note_withheld(n: int) -> None:
    from .withhold import count_note

    if n:
        sys.stderr.write(f"{PROG}: note: {count_note(n)}\n")


def cmd_index(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    before = mem.read_text(mem.index_path).encode("utf-8")
    text = mem.index()
    changed = text.encode("utf-8") != before
    out.write(f"{os.path.relpath(mem.index_path, mem.root)}: "
              f"{'updated' if changed else 'unchanged'}\n")
    return 0


def status_json(mem: Memory) -> dict[str, Any]:
    st = mem.status()
    return {
        "shards": [{"name": s.name, "entries": s.entries, "superseded": s.superseded,
                    "tokens": s.tokens, "description": s.description} for s in st.shards],
        "total_tokens": st.total_tokens,
        "token_budget": st.token_budget,
        "compact_threshold": st.compact_threshold,
        "compaction_due": st.compaction_due,
        **_retrievers_json(mem),
    }


def _retrievers_json(mem: Memory) -> dict[str, Any]:
    """The configured retrievers, those not installed, and the vectors of ``ollama``."""
    from .errors import quoted

    names = mem.config.retrievers  # a cloned config may name a credential: shown redacted
    missing: list[str] = []
    if any(n not in ("bm25", "ollama") for n in names):  # built in: .retrievers stays unloaded
        from .retrievers import unknown

        missing = unknown(names)
    out: dict[str, Any] = {"retrievers": [quoted(n) for n in names],
                           "unknown_retrievers": [quoted(n) for n in missing]}
    if "ollama" in names:
        from .embedcmd import describe

        out["vectors"] = describe(mem)
    return out


def cmd_status(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    if args.json:
        _dump(status_json(mem), out)
        return 0
    st = mem.status()
    if not getattr(args, "global_", False):
        context_line = _context_line(mem)
    width = max(len("shard"), *(len(s.name) for s in st.shards))
    out.write(f"{'shard':<{width}}  {'entries':>7}  {'superseded':>10}  {'tokens':>7}\n")
    for s in st.shards:
        out.write(f"{s.name:<{width}}  {s.entries:>7}  {s.superseded:>10}  {s.tokens:>7,}\n")
    pct = 100 * st.total_tokens // max(st.token_budget, 1)
    due = "due" if st.compaction_due else "not due"
    out.write(f"total ~{st.total_tokens:,} of {st.token_budget:,} tokens ({pct}%); "
              f"compaction {due} (threshold {st.compact_threshold:,})\n")
    if not getattr(args, "global_", False):
        out.write(context_line)
    extra = _retrievers_json(mem)
    if extra["retrievers"] != ["bm25"]:
        out.write(f"retrievers: {', '.join(extra['retrievers'])}\n")
    for name in extra["unknown_retrievers"]:
        out.write(f"retriever {name!r} is not installed: searches run without it\n")
    vectors = extra.get("vectors")
    if vectors:
        todo = vectors["entries"] - vectors["embedded"]
        out.write(f"vectors ({vectors['model']}): {vectors['embedded']} of "
                  f"{vectors['entries']} entries"
                  f"{f'; run `{PROG} embed` for the {todo} left' if todo else ''}\n")
        out.write(_skip_line(vectors.get("last_skipped")))
    return 0


def _skip_line(skip: dict[str, str] | None) -> str:
    """When and why the prompt hook last searched without the semantic extra."""
    if not skip:
        return "semantic extra: the prompt hook never searched without it\n"
    return f"semantic extra, last searched without by the prompt hook ({skip['when']}): " \
           f"{skip['why']}\n"


def _context_line(mem: Memory) -> str:
    """What rides at session start and before the last prompt, in tokens (`context`)."""
    from .learn import context
    from .tokens import estimate_tokens

    try:
        parts = context(mem, None, 1200)
    except LeanMemoryError:
        return ""
    start, before = (sum(estimate_tokens(b.text) for b in blocks) for _, blocks in parts)
    return (f"injected: ~{start:,} tokens at session start, ~{before:,} before the last "
            f"prompt (see `{PROG} context`)\n")


def cmd_embed(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    if "ollama" not in mem.config.retrievers:
        raise UsageError('the ollama retriever is off: add "ollama" to [memory] retrievers '
                         "in .agents/config.toml")
    from .embedcmd import embed_missing

    shown = [False]

    def progress(done: int, total: int) -> None:
        if total > 64 and not args.quiet:  # only when it is long
            sys.stderr.write(f"\r{PROG}: embedded {done}/{total}")
            shown[0] = True

    try:
        done, total = embed_missing(mem, progress, timeout=args.timeout)
    finally:
        if shown[0]:
            sys.stderr.write("\n")
    out.write(f"embedded {done} entries; {total} searchable entries have vectors\n")
    return 0


def cmd_compact(args: argparse.Namespace, out: TextIO) -> int:
    mem = _memory(args)
    report = mem.compact(dry_run=args.dry_run)
    if args.json:
        _dump(report.to_json(), out)
    else:
        out.write(report.describe())
    return 0


def cmd_scan(args: argparse.Namespace, out: TextIO) -> int:
    from .folder import find_root
    from .scanfiles import scan_paths, scan_staged
    from .secrets import format_finding
    from .store import Memory

    allow = None
    try:
        allow = Memory(args.root or find_root()).allowlist
    except LeanMemoryError:
        allow = None  # a broken config must not stop a commit check from running
    if args.staged:
        if args.paths:
            raise UsageError("scan: give paths or --staged, not both")
        result = scan_staged(".", allow=allow)
    else:
        result = scan_paths(args.paths or ["."], allow=allow, all_files=args.all_files)
    if args.json:
        _dump({"findings": [{"path": f.path, "line": f.line, "rule": f.rule,
                             "preview": f.preview, "fingerprint": f.fingerprint}
                            for f in result.findings],
               "skipped": [{"path": p, "reason": r} for p, r in result.skipped],
               "errors": [{"path": p, "reason": r} for p, r in result.errors],
               "binary": result.binary, "scanned": result.scanned}, out)
    else:
        for f in result.findings:
            out.write(format_finding(f) + "\n")
        if len(result.skipped) <= 3:
            for path, reason in result.skipped:
                _say(f"note: skipped {path}: {reason}")
        else:
            _say(f"note: skipped {len(result.skipped)} symlinks (not followed; see --json)")
        if result.binary:
            _say(f"note: {result.binary} binary file(s) not scanned (a NUL in the first "
                 "8,000 bytes, as git decides)")
    for path, reason in result.errors:
        _say(f"error: could not scan {path}: {reason}")
    if result.findings:
        _say(f"{len(result.findings)} possible secret(s) found; remove them, "
             "or allowlist a false positive with `lean-memory: allow`")
        return 1
    if result.errors:
        _say(f"{len(result.errors)} file(s) could not be scanned: the check fails closed; "
             "fix or remove them, or allowlist their paths (allow_paths in "
             ".agents/config.toml)")
        return 2
    return 0


def cmd_demo(args: argparse.Namespace, out: TextIO) -> int:
    from .demo import run_demo

    return run_demo(main, out)


def cmd_hook(args: argparse.Namespace, out: TextIO) -> int:
    from .agents import run_hook  # session-end too: prints nothing, exit 0, time-bounded

    return run_hook(args.event, args.root, sys.stdin, out)


def cmd_mcp(args: argparse.Namespace, out: TextIO) -> int:
    from .mcp_server import run

    return run(args.root)


def cmd_merge_driver(args: argparse.Namespace, out: TextIO) -> int:
    from .merge import merge_driver

    return merge_driver(args.base, args.ours, args.theirs, args.path)


def cmd_list(args: argparse.Namespace, out: TextIO) -> int:
    from dataclasses import replace

    from .manage import list_entries
    from .withhold import masked

    mem = _memory(args)
    rows = list_entries(mem, args.shard)
    shown, withheld = masked(mem, [r.entry for r in rows])
    rows = [replace(r, entry=e) for r, e in zip(rows, shown, strict=True)]
    _note_withheld(withheld)
    if args.json:
        _dump([{**entry_json(r.entry), "tokens": r.tokens, "superseded": r.superseded,
                "said_again": r.said_again} for r in rows], out)
        return 0
    shard = None
    for r in rows:
        if r.entry.shard != shard:
            shard = r.entry.shard
            out.write(f"{shard}:\n")
        marks = ("  [superseded]" if r.superseded else "") + (
            f"  [said again {r.said_again}x]" if r.said_again else "")
        out.write(f"  {r.entry.id}  {r.entry.date or '----------'}  ~{r.tokens:>4}  "
                  f"{r.entry.title}{marks}\n")
    if not rows:
        out.write("no entries\n")
    return 0


def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    from .manage import find_entry
    from .withhold import masked

    mem = _memory(args)
    [entry], withheld = masked(mem, [find_entry(mem, args.id)])
    _note_withheld(withheld)
    if args.json:
        _dump(entry_json(entry), out)
    else:
        out.write(entry.raw if entry.raw.endswith("\n") else entry.raw + "\n")
    return 0


def cmd_edit(args: argparse.Namespace, out: TextIO) -> int:
    import shlex
    import subprocess
    import tempfile

    from .manage import find_entry, replace_entry

    mem = _memory(args)
    entry = find_entry(mem, args.id)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    from .errors import quoted

    fd, name = tempfile.mkstemp(prefix=f"edit-{quoted(entry.id, 40)}-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(entry.raw)
        try:
            code = subprocess.run([*shlex.split(editor), name], check=False).returncode
        except OSError as exc:
            from .secrets import redact_path

            raise UsageError(f"cannot start the editor {redact_path(editor)!r}: "
                             f"{exc.strerror}; set $EDITOR") from None
        if code != 0:
            raise UsageError(f"the editor exited with {code}; nothing was written")
        try:
            with open(name, encoding="utf-8", newline="") as fh:
                edited = fh.read()
        except UnicodeDecodeError:  # not an internal error: the editor saved another encoding
            raise UsageError("the edited entry is not UTF-8; nothing was written") from None
    finally:
        os.unlink(name)
    if edited == entry.raw:
        out.write(f"{entry.id}: unchanged\n")
        return 0
    stored = replace_entry(mem, entry.id, edited, expected_raw=entry.raw)
    out.write(f"{stored.id}: edited ({stored.shard}: {stored.title})\n")
    return 0


def cmd_forget(args: argparse.Namespace, out: TextIO) -> int:
    from .manage import forget

    entry = forget(_memory(args), args.id, reason=args.reason, date=args.date)
    out.write(f"{entry.id}: moved to archive/{entry.shard}.md ({entry.title})\n")
    return 0


def cmd_asks(args: argparse.Namespace, out: TextIO) -> int:
    from .layers import session_home
    from .learn import load_asks

    mem = _memory(args)
    found = load_asks(session_home(mem.root), session=args.session, archived=args.archived)
    if args.json:
        _dump([{"id": a.id, "session": a.session, "at": a.at, "text": a.text} for a in found],
              out)
        return 0
    for a in found:
        out.write(f"{a.at}  {a.session[:12]:<12}  {a.id}  {' '.join(a.text.split())[:100]}\n")
    if not found:
        out.write("no asks kept" + (" (capture_asks = false)" if not mem.config.capture_asks
                                    else "") + "\n")
    return 0


def cmd_promote(args: argparse.Namespace, out: TextIO) -> int:
    from .learn import decide, pick, proposals

    mem = _memory(args)
    if args.which is None:
        if args.yes or args.no:
            raise UsageError("promote --yes/--no needs a proposal's number")
        found = proposals(mem)
        if args.json:
            _dump([{"number": i, "key": p.key, "rule": p.rule, "sessions": list(p.sessions),
                    "projects": len(p.projects), "suggest_global": p.suggest_global,
                    "evidence": [{"ask": e.ask, "session": e.session, "date": e.date,
                                  "text": e.text} for e in p.evidence]}
                   for i, p in enumerate(found, 1)], out)
            return 0
        for i, p in enumerate(found, 1):
            where = " (asked in several projects: --global suggested)" if p.suggest_global \
                else ""
            out.write(f"{i}. {p.rule}  [{len(p.sessions)} sessions{where}]\n")
            for e in p.evidence[:6]:
                out.write(f"     {e.date} {e.session[:12]}: {e.text}\n")
        out.write(f"{len(found)} proposal(s); `{PROG} promote N --yes` writes one, "
                  f"`--no` dismisses it\n" if found else "no proposals\n")
        return 0
    p = pick(mem, args.which)
    if not (args.yes or args.no):
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise UsageError("promote N needs --yes or --no (or a terminal to ask on)")
        where = "global" if args.global_ else "project"
        sys.stdout.write(f"write to the {where} conventions: {p.rule}\n[y/N] ")
        sys.stdout.flush()
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            out.write("nothing written\n")
            return 0
    out.write(decide(mem, p, not args.no, to_global=args.global_) + "\n")
    return 0


def cmd_distill(args: argparse.Namespace, out: TextIO) -> int:
    from .learn import distill

    done = distill(_memory(args), ended=args.session or (), everything=args.all)
    for s in done:
        out.write(f"distilled {s.session}: {len(s.asked)} asks, {len(s.decided)} decided, "
                  f"{len(s.open)} open, {len(s.dead_ends)} dead ends ({s.id})\n")
    if not done:
        out.write("no quiet session to distill\n")
    return 0


def cmd_context(args: argparse.Namespace, out: TextIO) -> int:
    from ._listeners import listeners
    from .learn import context
    from .tokens import estimate_tokens

    mem = _memory(args)
    mem._require_init()
    skipped: list[str] = []  # the semantic extra searched without, now
    listeners.append(skipped.append)
    try:
        parts = context(mem, args.prompt, args.budget, args.session)
    finally:
        listeners.remove(skipped.append)
    rows = [(when, b.layer, b.name, estimate_tokens(b.text), b.note)
            for when, blocks in parts for b in blocks]
    if args.json:
        _dump([{"when": w, "layer": layer, "block": n, "tokens": t, "note": note}
               for w, layer, n, t, note in sorted(rows, key=lambda r: (-r[3], r[0], r[2]))],
              out)
        return 0
    for when, blocks in parts:
        total = sum(estimate_tokens(b.text) for b in blocks)
        out.write(f"{when}: ~{total:,} of {args.budget:,} tokens\n")
        for b in sorted(blocks, key=lambda b: (-estimate_tokens(b.text), b.name)):
            out.write(f"  ~{estimate_tokens(b.text):>5}  {b.layer:<8} {b.name}"
                      f"{'  (' + b.note + ')' if b.note else ''}\n")
        if not blocks:
            out.write("  nothing\n")
    if "ollama" in mem.config.retrievers:
        from .embedcmd import SKIPPED, last_skip

        now = [n for n in skipped if n.startswith(SKIPPED)]
        out.write(f"semantic extra skipped now: {'; '.join(dict.fromkeys(now))}\n" if now
                  else _skip_line(last_skip(mem)))
    return 0


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


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    from .serve import App, make_server, url

    mem = _memory(args)
    mem.status()  # not initialised, a broken config: one line now, not on the page
    if args.global_:  # your own memory alone; a yes on a proposal is a project's affair
        app = App([("global", mem)])
    else:
        from .layers import open_global

        g = open_global()
        app = App([("project", mem), *([("global", g)] if g is not None else [])],
                  proposals=_page_proposals(mem))
    server = make_server(app, args.port)
    out.write(f"lean-memory: serving {mem.dir} on 127.0.0.1 only; open\n  {url(app)}\n"
              "(the address carries this run's token; Ctrl-C stops)\n")
    out.flush()
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0


def _page_proposals(mem: Memory) -> Any:
    """The learning loop as the page reaches it: a yes clicked there (a person, with the
    run's token) writes the rule to the project's conventions; `promote --global` on the
    command line is the way to the global layer."""
    from . import learn
    from .serve import Proposal, Proposals

    def pending() -> list[Proposal]:
        return [Proposal(p.key, p.rule, tuple(f"{e.date} ({e.session[:12]}): {e.text}"
                                              for e in p.evidence))
                for p in learn.proposals(mem)]

    def decide(key: str, yes: bool) -> str:
        return learn.decide(mem, learn.pick(mem, key), yes)

    return Proposals(pending, decide)


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from .config import DEFAULT_SHARDS

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{message} (see `{self.prog} --help`)")

    p = _Parser(prog=PROG, description="Durable, token-lean Markdown memory for coding agents.",
                epilog=_EPILOG.format(shards=", ".join(DEFAULT_SHARDS)),
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", help="project root (default: LEAN_MEMORY_ROOT, the nearest folder "
                                  "with .agents/memory, the git top level, or the cwd)")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    s = sub.add_parser("init", help="create .agents/memory (idempotent)")
    s.add_argument("--git-hook", action="store_true",
                   help="also install a git pre-commit hook that scans staged files for secrets")
    s.add_argument("--agent", choices=("claude", "codex"),
                   help="also set up the hooks and instructions for this agent")
    s.add_argument("--index-hooks", action="store_true",
                   help="also install git post-merge/post-rewrite hooks that regenerate INDEX.md "
                        "(left as a change to commit; no commit is ever rewritten)")
    s.add_argument("--no-git", action="store_true",
                   help="do not set up the git merge driver in a git repository")
    _global_flag(s)
    s.set_defaults(func=cmd_init)

    s = sub.add_parser("put", help="add an entry to a shard")
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
    s.set_defaults(func=cmd_put)

    s = sub.add_parser("get", help="print INDEX.md, a shard, or the entries matching a query")
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
    s.set_defaults(func=cmd_get)

    s = sub.add_parser("index", help="regenerate INDEX.md")
    _global_flag(s)
    s.set_defaults(func=cmd_index)

    s = sub.add_parser("status", help="per-shard counts, tokens, budget")
    s.add_argument("--json", action="store_true", help="the status as JSON")
    _global_flag(s)
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("embed", help="compute the missing vectors of the ollama retriever")
    s.add_argument("--quiet", action="store_true", help="no progress on stderr")
    s.add_argument("--timeout", type=float, default=120.0, metavar="S",
                   help="seconds to wait for each batch of 32 entries (default 120)")
    s.set_defaults(func=cmd_embed)

    s = sub.add_parser("compact", help="fold the oldest entries when over budget")
    s.add_argument("--dry-run", action="store_true", help="say what would be folded; write nothing")
    s.add_argument("--json", action="store_true", help="the report as JSON")
    _global_flag(s)
    s.set_defaults(func=cmd_compact)

    s = sub.add_parser("scan", help="check files (or the staged changes) for secrets; exit 1 "
                                    "on findings, 2 when a file could not be scanned")
    s.add_argument("paths", nargs="*", metavar="PATH",
                   help="files or folders (default with --staged: what git has staged)")
    s.add_argument("--staged", action="store_true", help="scan what git has staged")
    s.add_argument("--all-files", action="store_true",
                   help="scan every file under a folder, even those .gitignore leaves out "
                        "(by default a folder in a git work tree is scanned as git sees it)")
    s.add_argument("--json", action="store_true", help="findings, skipped files and errors as JSON")
    s.set_defaults(func=cmd_scan)

    s = sub.add_parser("demo", help="a guided run in a temporary directory")
    s.set_defaults(func=cmd_demo)

    s = sub.add_parser("hook", help="agent hook: read the event JSON on stdin, print context")
    s.add_argument("event", choices=("session-start", "user-prompt-submit", "session-end"),
                   help="the agent event whose hook JSON comes on stdin")
    s.set_defaults(func=cmd_hook)

    s = sub.add_parser("list", help="the live entries: id, date, tokens, title, marks")
    s.add_argument("shard", nargs="?", help="only this shard")
    s.add_argument("--json", action="store_true", help="a JSON list of entries")
    _global_flag(s)
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="one entry as Markdown")
    s.add_argument("id", help="the entry's id (see `list`)")
    s.add_argument("--json", action="store_true", help="the entry as JSON")
    _global_flag(s)
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("edit", help="edit one entry in $EDITOR (checked like a put)")
    s.add_argument("id", help="the entry's id (see `list`)")
    _global_flag(s)
    s.set_defaults(func=cmd_edit)

    s = sub.add_parser("forget", help="move one entry to the archive (never destroyed)")
    s.add_argument("id", help="the entry's id (see `list`)")
    s.add_argument("--reason", required=True, help="one line: why it goes")
    s.add_argument("--date", metavar="YYYY-MM-DD", help="the date recorded (default today)")
    _global_flag(s)
    s.set_defaults(func=cmd_forget)

    s = sub.add_parser("asks", help="what the person asked, as the prompt hook kept it")
    s.add_argument("--session", metavar="ID", help="only this session")
    s.add_argument("--archived", action="store_true",
                   help="the asks of distilled sessions (kept, never injected)")
    s.add_argument("--json", action="store_true", help="a JSON list of asks")
    s.set_defaults(func=cmd_asks)

    s = sub.add_parser("promote", help="requests that came back in 3+ sessions, proposed as "
                                       "rules; write one only with a yes")
    s.add_argument("which", nargs="?", metavar="N", help="a proposal's number (or key)")
    verdict = s.add_mutually_exclusive_group()
    verdict.add_argument("--yes", action="store_true", help="write the rule to conventions")
    verdict.add_argument("--no", action="store_true", help="dismiss it for good")
    _global_flag(s)
    s.add_argument("--json", action="store_true", help="the proposals as JSON")
    s.set_defaults(func=cmd_promote)

    s = sub.add_parser("distill", help="fold each quiet session into one summary entry")
    s.add_argument("--session", metavar="ID", action="append",
                   help="a session that ended (distilled now); repeat for several")
    s.add_argument("--all", action="store_true", help="every session with asks, quiet or not")
    s.set_defaults(func=cmd_distill)

    s = sub.add_parser("context", help="every block lean_memory injects, with its token cost")
    s.add_argument("prompt", nargs="?", help="the prompt (default: the last one kept)")
    s.add_argument("--session", metavar="ID", help="the session whose asks to count")
    s.add_argument("--budget", type=int, default=1200, metavar="T",
                   help="the hook's token budget (default 1200)")
    s.add_argument("--json", action="store_true", help="the blocks as JSON")
    s.set_defaults(func=cmd_context)

    s = sub.add_parser("serve", help="a local page: what memory holds, what rides every prompt")
    s.add_argument("--port", type=int, default=8765, metavar="N",
                   help="the port on 127.0.0.1 (default 8765; 0 for any free one)")
    _global_flag(s)
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("mcp", help="serve the memory over the Model Context Protocol (stdio)")
    s.set_defaults(func=cmd_mcp)

    s = sub.add_parser("merge-driver", help="git merge driver for shards (%%O %%A %%B %%P)")
    s.add_argument("base", help="the common ancestor (git's %%O)")
    s.add_argument("ours", help="our version, overwritten with the result (%%A)")
    s.add_argument("theirs", help="their version (%%B)")
    s.add_argument("path", nargs="?", default="", help="the path in the repository (%%P)")
    s.set_defaults(func=cmd_merge_driver)
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
_HOOK_EVENTS = ("session-start", "user-prompt-submit", "session-end")


def _fast_args(argv: Sequence[str]) -> Any:
    """The parsed arguments of a plain ``get``, ``status``, ``put`` or ``hook`` command
    line, without building the argparse parser (~8 ms with its import); None for anything
    else (help, abbreviations, ``--opt=value``, a value that starts with ``-``, errors),
    which argparse then handles as always."""
    argv = list(argv)
    root = None
    if len(argv) >= 2 and argv[0] == "--root" and not argv[1].startswith("-"):
        root, argv = argv[1], argv[2:]
    if not argv or argv[0] not in _FAST:
        return None
    command, rest = argv[0], argv[1:]
    positionals, flags, options, defaults = _FAST[command]
    values: dict[str, Any] = dict(defaults)
    given: list[str] = []
    i = 0
    run = -1  # where the run of positionals is; argparse takes them all from the first run
    while i < len(rest):
        word = rest[i]
        if word in flags:
            values[flags[word]] = True
        elif word in options:
            if i + 1 == len(rest) or rest[i + 1].startswith("-"):
                return None
            name, value = options[word], rest[i + 1]
            if name == "k":
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
            if given and run != i - 1:
                return None
            given.append(word)
            run = i
        i += 1
    if len(given) > len(positionals) or (command in ("put", "hook") and not given):
        return None
    values.update(zip(positionals, given, strict=False))
    if command == "hook" and values["event"] not in _HOOK_EVENTS:
        return None
    if command == "get" and values["archive"] and values["no_archive"]:
        return None  # mutually exclusive: argparse says so
    func = {"get": cmd_get, "status": cmd_status, "put": cmd_put, "hook": cmd_hook}[command]
    return _Args(root=root, command=command, func=func, **values)


def _version() -> str:
    from . import __version__

    return __version__


def _say(message: str) -> None:
    """The one way the CLI writes to stderr: one line, redacted (it may quote user input)."""
    line = " ".join(redact_message(message).split())
    sys.stderr.write(f"{PROG}: {redact_message(line)}\n")  # joined lines: check again


def _say_error(message: str) -> None:
    _say(f"error: {message}")


def run() -> int:
    """The process's entry (``python -m lean_memory``, the ``lean-memory`` script): :func:`main`,
    then what allocated is frozen, so that the exit's last garbage collection does not walk
    every object the loaded modules hold (~5 ms of a warm query) to free what the exit frees
    anyway. atexit handlers and the flush of stdout still run. Not for in-process callers."""
    code = main()
    import gc

    gc.freeze()
    return code


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    from . import _require_python

    _require_python()  # the console script installed on a Python too old
    out = out or sys.stdout
    try:
        args = _fast_args(sys.argv[1:] if argv is None else argv) or build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help(out)
            return 2
        code: int = args.func(args, out)
        out.flush()
        return code
    except SecretFound as exc:
        _say_error(str(exc))
        for line in exc.finding_lines():
            sys.stderr.write(f"  {line}\n")
        return 1
    except LeanMemoryError as exc:
        _say_error(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`| head`); nothing to report.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        from .secrets import redact_path  # a path may hold `deploy-ghp_…`, which redact misses

        _say_error(f"{exc.strerror or type(exc).__name__}"
                   f"{': ' + redact_path(str(exc.filename)) if exc.filename else ''}")
        return 2
    except Exception as exc:
        if os.environ.get("LEAN_MEMORY_DEBUG"):
            raise
        # Only the type: a message could quote the input, and the input may hold a secret.
        _say_error(f"internal error ({type(exc).__name__}); "
                   "rerun with LEAN_MEMORY_DEBUG=1 for details and report it")
        return 2
