"""The learning loop (issue 23, ADR 0023): asks kept by the prompt hook, proposals written
only with a person's yes, quiet sessions distilled, and `context`. Real CLI runs, with HOME
and XDG_DATA_HOME in temporary folders."""

from __future__ import annotations

import json
import os
import random
import re
import stat
import string
from pathlib import Path

import pytest

import lean_memory
from lean_memory import learn
from lean_memory.layers import session_home
from tests.conftest import git
from tests.test_layers_global import cli, ok

_RNG = random.Random(5)
TOKEN = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits)
                         for _ in range(36))  # a GitHub token's shape: the scanner flags it


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    (tmp_path / "home").mkdir()
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}
    for k, v in env.items():  # the API calls below see the same layers as the CLI
        monkeypatch.setenv(k, v)
    return env


@pytest.fixture
def project(tmp_path: Path, home: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    ok("init", "--no-git", cwd=root, env=home)
    return root


def hook(event: str, root: Path, env: dict[str, str], **payload: str) -> str:
    name = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}[event]
    data = json.dumps({"cwd": str(root), "hook_event_name": name, **payload}).encode()
    r = cli("hook", event, cwd=root, env=env, stdin=data)
    assert r.returncode == 0 and not r.stderr
    out = r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def first_id(listing: str) -> str:
    """The id of the first proposal a `promote` listing shows."""
    found = re.match(r"(p-[0-9a-f]{8})  ", listing)
    assert found, listing
    return found.group(1)


def ask(root: Path, env: dict[str, str], session: str, prompt: str) -> str:
    return hook("user-prompt-submit", root, env, session_id=session, prompt=prompt)


def test_a_persons_week(project: Path, tmp_path: Path, home: dict[str, str]) -> None:
    """The worked example of the README. Catches: prompts not kept as asks, a request that
    came back in three sessions not proposed, a rule written without a yes, a proposal
    approved from a hook, and a promoted rule that does not ride the next sessions."""
    ask(project, home, "mon", "Fix the flaky login test. Please use pnpm, not npm.")
    ask(project, home, "mon", "add a retry to the upload client")
    ask(project, home, "wed", "remember: pnpm instead of npm for installs")
    ask(project, home, "wed", "uninstall pnpm from the docker image")  # a near miss
    assert "pnpm" not in ok("promote", cwd=project, env=home)  # two sessions: not yet
    ask(project, home, "fri", "Install the date library; always pnpm over npm.")
    listed = ok("asks", cwd=project, env=home)
    assert "upload client" in listed and listed.count("\n") == 5
    proposals = ok("promote", cwd=project, env=home)
    assert proposals.startswith("p-") and "pnpm" in proposals and "3 sessions" in proposals
    assert "mon" in proposals and "remember: pnpm instead of npm" in proposals
    pid = first_id(proposals)
    start = hook("session-start", project, home, session_id="sat", source="startup")
    assert "1 rule proposal waits" in start and "pnpm over npm" not in start
    conventions = project / ".agents" / "memory" / "conventions.md"
    before = conventions.read_bytes()
    r = cli("promote", pid, cwd=project, env=home, stdin=b"y\n")  # no terminal: no yes
    assert r.returncode == 2 and conventions.read_bytes() == before
    said = ok("promote", pid, "--yes", cwd=project, env=home)
    assert "wrote" in said and "pnpm" in conventions.read_text()
    assert "no proposals" in ok("promote", cwd=project, env=home)
    for session in ("sun", "next-mon"):
        block = hook("session-start", project, home, session_id=session, source="startup")
        assert "pnpm" in block and "proposal" not in block
        # pay-once (ADR 0030): the rule rode the start; a prompt does not repeat it
        assert "pnpm" not in ask(project, home, session, "why is the build slow")


def test_promote_no_dismisses_for_good(project: Path, home: dict[str, str]) -> None:
    """Catches: a dismissed proposal coming back when the request is asked again."""
    for s in ("a", "b", "c"):
        ask(project, home, s, "Never edit the generated protobuf files.")
    listed = ok("promote", cwd=project, env=home)
    assert "protobuf" in listed
    assert "dismissed" in ok("promote", first_id(listed), "--no", cwd=project, env=home)
    ask(project, home, "d", "never touch the generated protobuf files")
    assert "no proposals" in ok("promote", cwd=project, env=home)
    assert "protobuf" not in (project / ".agents" / "memory" / "conventions.md").read_text()


def test_promote_global_rides_in_another_project(project: Path, tmp_path: Path,
                                                 home: dict[str, str]) -> None:
    """Catches: `promote --global` writing to the project, or asks of two projects not
    suggesting the global layer."""
    other = tmp_path / "other"
    other.mkdir()
    ok("init", "--no-git", cwd=other, env=home)
    ask(project, home, "p1", "Please always answer in British English.")
    ask(other, home, "o1", "always answer in British English")
    ask(other, home, "o2", "remember to answer in British English")
    shown = json.loads(ok("promote", "--json", cwd=project, env=home))
    assert shown[0]["suggest_global"] and len(shown[0]["projects"]) == 2
    ok("promote", shown[0]["id"], "--yes", "--global", cwd=project, env=home)
    assert "British" not in (project / ".agents" / "memory" / "conventions.md").read_text()
    assert "British English" in hook("session-start", other, home, session_id="o3",
                                     source="startup")
    assert "no proposals" in ok("promote", cwd=other, env=home)


def test_asks_are_scanned_bounded_private_and_can_be_off(project: Path,
                                                         home: dict[str, str]) -> None:
    """Catches: a credential in a prompt stored, a pasted log kept whole, asks readable by
    others, and capture_asks = false not honoured."""
    from lean_memory.secrets import scan_text

    assert scan_text(TOKEN)  # the precondition: a credential the scanner knows
    ask(project, home, "s1", f"deploy with token {TOKEN} to staging")
    ask(project, home, "s1", "look at this log: " + "line of output " * 4000)
    folder = session_home(project) / "asks"
    [path] = list(folder.glob("*.jsonl"))
    data = path.read_text()
    leaked = TOKEN in data or TOKEN[4:16] in data  # a bool: the token never reaches output
    assert not leaked and "deploy with token" in data
    assert all(len(line.encode()) < 25 * 1024 for line in data.splitlines())
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    shown = ok("asks", "--session", "s1", cwd=project, env=home)
    leaked = TOKEN[4:16] in shown
    assert not leaked and shown.count("\n") == 2
    (project / ".agents" / "config.toml").write_text("[memory]\ncapture_asks = false\n")
    ask(project, home, "s2", "never use sudo in scripts")
    assert "sudo" not in "".join(p.read_text() for p in folder.glob("*.jsonl"))


def test_asks_per_session_are_capped_and_ids_deterministic(project: Path,
                                                           home: dict[str, str]) -> None:
    """Catches: an endless session growing its file without bound, and one prompt at one
    time kept twice."""
    mem = lean_memory.Memory(project)
    for i in range(205):
        learn.record(mem, "long", f"request number {i} about the parser",
                     at=f"2026-01-01T10:{i // 60:02d}:{i % 60:02d}Z")
    again = learn.record(mem, "long", "request number 204 about the parser",
                         at="2026-01-01T10:03:24Z")
    kept = learn.load_asks(session_home(project), session="long")
    assert again is None and len(kept) == 200 and kept[-1].text.endswith("204 about the parser")


def test_after_compaction_the_session_start_brings_back_its_asks(
        project: Path, home: dict[str, str]) -> None:
    """Catches: a compacted session losing what the person asked (SessionStart source
    compact)."""
    ask(project, home, "s1", "migrate the billing tables to the new schema")
    ask(project, home, "s1", "and keep the old columns until Friday")
    block = hook("session-start", project, home, session_id="s1", source="compact")
    assert "billing tables" in block and "old columns until Friday" in block
    fresh = hook("session-start", project, home, session_id="s1", source="startup")
    assert "billing tables" not in fresh


def test_distill_folds_quiet_sessions_once(project: Path, home: dict[str, str]) -> None:
    """Catches: a busy session distilled, distill not idempotent, raw asks left riding, and
    the last session's still-open lines not reaching the next start."""
    mem = lean_memory.Memory(project)
    learn.record(mem, "old", "why does the cache warmer crash on startup", "2026-01-05T09:00:00Z")
    learn.record(mem, "old", "add metrics to the export job", "2026-01-05T09:30:00Z")
    learn.record(mem, "busy", "rename the config loader", "2026-01-05T12:00:00Z")
    done = learn.distill(mem, now="2026-01-05T12:30:00Z")
    assert [s.session for s in done] == ["old"]
    assert learn.distill(mem, now="2026-01-05T12:30:00Z") == []
    store = learn.session_store(mem)
    assert store is not None
    [summary] = store.entries("sessions")
    assert "cache warmer" in summary.text and "Still open" in summary.text
    home_dir = session_home(project)
    assert [a.session for a in learn.load_asks(home_dir)] == ["busy"]
    assert len(learn.load_asks(home_dir, archived=True)) == 2
    # `distill` folds what went quiet since ("busy", hours ago in real time; a session
    # start leaves that to a background process): the latest session's still-open lines ride
    assert "distilled busy" in ok("distill", cwd=project, env=home)
    block = hook("session-start", project, home, session_id="new", source="startup")
    assert "Still open from the last session" in block and "config loader" in block
    assert learn.load_asks(home_dir) == []
    ask(project, home, "now", "document the retry policy of the export job")
    assert "no quiet session" in ok("distill", cwd=project, env=home)
    assert "distilled now" in ok("distill", "--session", "now", cwd=project, env=home)


def test_context_lists_every_block_with_its_cost(project: Path, home: dict[str, str]) -> None:
    """Catches: no way to see what rides every prompt (`context`), or costs not ordered."""
    ok("put", "--global", "conventions", "Use uv, never pip.", cwd=project, env=home)
    ok("put", "quirks", "uv sync needs the lock file updated first", cwd=project, env=home)
    ask(project, home, "s1", "how do I sync with uv")
    rows = json.loads(ok("context", "sync uv lock", "--json", "--session", "s1",
                         cwd=project, env=home))
    costs = [r["tokens"] for r in rows]
    assert costs == sorted(costs, reverse=True) and all(c > 0 for c in costs)
    kinds = {(r["when"], r["layer"], r["block"]) for r in rows}
    assert ("session start", "global", "standing rules") in kinds
    assert ("session start", "session", "asks of this session") in kinds
    assert ("before a prompt", "project", "digest") in kinds
    text = ok("context", cwd=project, env=home)
    assert "session start: ~" in text and "before a prompt: ~" in text
    assert "injected: ~" in ok("status", cwd=project, env=home)


def test_context_only_reads(project: Path, home: dict[str, str]) -> None:
    """Catches: `context` (or `status`) recording asks or folding sessions, as the hook
    does: looking at what rides must not change it."""
    mem = lean_memory.Memory(project)
    learn.record(mem, "old", "why does the cache warmer crash", "2026-01-05T09:00:00Z")
    ok("context", "cache warmer", cwd=project, env=home)
    ok("status", cwd=project, env=home)
    assert [a.session for a in learn.load_asks(session_home(project))] == ["old"]


def test_no_tool_can_approve_a_proposal(project: Path, home: dict[str, str]) -> None:
    """Catches: an approve path outside the CLI (MCP tools, the hook)."""
    from lean_memory import mcp_server

    names = {t["name"] for t in mcp_server.TOOLS}
    assert not any("promote" in n or "approve" in n for n in names)
    for s in ("a", "b", "c"):
        ask(project, home, s, "always use tabs, not spaces, in the Makefile")
    before = (project / ".agents" / "memory" / "conventions.md").read_bytes()
    hook("session-start", project, home, session_id="d", source="startup")
    ask(project, home, "d", "promote 1 --yes")
    assert (project / ".agents" / "memory" / "conventions.md").read_bytes() == before
    assert os.path.exists(session_home(project) / "asks")


def test_search_sees_this_sessions_asks_below_the_other_layers(project: Path,
                                                              home: dict[str, str]) -> None:
    """Catches: `get --query --session` not seeing the session layer, its hits unlabelled,
    or an ask repeating an entry's text shown twice (the project's copy wins)."""
    ask(project, home, "s1", "add a retry to the upload client")
    ask(project, home, "s1", "the upload client times out on big files")
    ok("put", "insights", "the upload client times out on big files", cwd=project, env=home)
    hits = json.loads(ok("get", "--query", "upload client", "--session", "s1", "--json",
                         cwd=project, env=home))
    layers = [(h["layer"], h["text"].strip()) for h in hits]
    assert ("session", "add a retry to the upload client") in layers
    assert ("project", "the upload client times out on big files") in layers
    assert len(layers) == 2
    plain = json.loads(ok("get", "--query", "upload client", "--json", cwd=project, env=home))
    assert {h["layer"] for h in plain} == {"project"}


def test_the_page_lists_proposals_and_writes_only_on_a_yes(project: Path,
                                                          home: dict[str, str]) -> None:
    """Catches: `serve` without the learning loop (its proposals page empty), or its yes
    writing elsewhere than the project's conventions."""
    from lean_memory.commands.serve import page_proposals as _page_proposals

    for s in ("a", "b", "c"):
        ask(project, home, s, "always use tabs, not spaces, in the Makefile")
    page = _page_proposals(lean_memory.Memory(project))
    [shown] = page.pending()
    assert "tabs" in shown.rule and len(shown.evidence) == 3
    assert "dismissed" in page.decide(shown.id, False)
    assert page.pending() == []
    assert "tabs" not in (project / ".agents" / "memory" / "conventions.md").read_text()


def test_session_end_distills_that_session(project: Path, home: dict[str, str]) -> None:
    """Catches: a session that ended left undistilled until it goes quiet (SessionEnd), or
    the hook failing closed on bad input."""
    ask(project, home, "s1", "why does the exporter drop rows on retry")
    payload = json.dumps({"session_id": "s1", "cwd": str(project),
                          "hook_event_name": "SessionEnd"}).encode()
    r = cli("hook", "session-end", cwd=project, env=home, stdin=payload)
    assert r.returncode == 0 and not r.stdout
    assert learn.load_asks(session_home(project)) == []
    assert len(learn.load_asks(session_home(project), archived=True)) == 1
    r = cli("hook", "session-end", cwd=project, env=home, stdin=b"not json")
    assert r.returncode == 0 and not r.stdout and not r.stderr


def test_a_long_session_distills(project: Path, home: dict[str, str]) -> None:
    """Catches: a summary of a long session refused by the entry size cap (the session
    never distilled, its asks riding forever)."""
    mem = lean_memory.Memory(project)
    for i in range(120):
        learn.record(mem, "long", f"investigate failure {i} in the nightly export of table t{i} "
                     + "with the full stack trace and the query plan attached " * 3,
                     at=f"2026-01-05T0{i // 60}:{i % 60:02d}:00Z")
    [summary] = learn.distill(mem, now="2026-01-06T00:00:00Z")
    assert len(summary.asked) == 120 and learn.load_asks(session_home(project)) == []


def test_decided_is_what_was_written_during_the_session(project: Path, home: dict[str, str],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Catches: "decided" taken as every entry dated within the session's days (an entry
    written that morning before the session, or by the next session, counted), global
    writes left out, or a write log kept inside the repository."""
    from lean_memory import sessionlog, writelog
    from lean_memory.layers import global_memory

    clock = {"now": ""}
    monkeypatch.setattr(sessionlog, "now_utc", lambda: clock["now"])
    monkeypatch.setattr(writelog, "now_utc", lambda: clock["now"])  # the write log's writer
    monkeypatch.setattr(learn, "now_utc", lambda: clock["now"])

    def put(at: str, shard: str, text: str, mem: lean_memory.Memory | None = None) -> str:
        clock["now"] = at
        return (mem or lean_memory.Memory(project)).put_entry(shard, text,
                                                              date=at[:10]).id

    mem = lean_memory.Memory(project)
    before = put("2026-01-05T08:00:00Z", "insights", "the export job ran on cron at first")
    learn.record(mem, "s1", "why does the cache warmer crash on startup", "2026-01-05T09:00:00Z")
    dead = put("2026-01-05T09:10:00Z", "failures", "cache warmer: pinning the pool did not help")
    learn.record(mem, "s1", "add metrics to the export job", "2026-01-05T09:30:00Z")
    done = put("2026-01-05T09:40:00Z", "insights", "export job metrics go to statsd, per run")
    rule = put("2026-01-05T09:45:00Z", "conventions", "Use uv, never pip.",
               global_memory(create=True))
    learn.record(mem, "s2", "rename the config loader", "2026-01-05T10:00:00Z")
    later = put("2026-01-05T10:05:00Z", "insights", "the config loader is now settings.load")
    clock["now"] = "2026-01-05T13:00:00Z"
    summaries = {s.session: s for s in learn.distill(mem, now="2026-01-05T13:00:00Z")}
    s1, s2 = summaries["s1"], summaries["s2"]
    assert {i for i, _ in s1.decided} == {done, rule}
    assert {i for i, _ in s1.dead_ends} == {dead}
    assert [i for i, _ in s2.decided] == [later]
    assert before not in {i for s in (s1, s2) for i, _ in (*s.decided, *s.dead_ends)}
    assert [line for _, line in s1.open] == ["why does the cache warmer crash on startup"]
    assert learn.distill(mem, now="2026-01-05T13:00:00Z") == []  # idempotent
    assert not any(p.name.startswith("writes") for p in project.rglob("*"))
    assert stat.S_IMODE(os.stat(session_home(project) / "writes.jsonl").st_mode) == 0o600


def test_a_session_that_ended_decided_only_until_its_end(project: Path, home: dict[str, str],
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Catches: SessionEnd's time not bounding the window, or a window that depends on
    anything but the files (the same files give the same window and entries)."""
    from lean_memory import sessionlog, writelog

    clock = {"now": "2026-01-05T15:05:00Z"}
    monkeypatch.setattr(sessionlog, "now_utc", lambda: clock["now"])
    monkeypatch.setattr(writelog, "now_utc", lambda: clock["now"])  # the write log's writer
    monkeypatch.setattr(learn, "now_utc", lambda: clock["now"])
    mem = lean_memory.Memory(project)
    learn.record(mem, "s3", "document the retry policy of the uploader", "2026-01-05T15:00:00Z")
    during = mem.put_entry("insights", "uploader retries 3 times with backoff").id
    clock["now"] = "2026-01-05T15:10:00Z"
    learn.end_session({"session_id": "s3"}, project)
    clock["now"] = "2026-01-05T15:20:00Z"
    mem.put_entry("insights", "the downloader never retries")
    mine = learn.load_asks(session_home(project), session="s3", archived=True)
    ends = learn._ends(session_home(project))
    assert learn.window(mem, "s3", mine, mine, ends) == ("2026-01-05T15:00:00Z",
                                                         "2026-01-05T15:10:00Z")
    written = learn._written(mem, "2026-01-05T15:00:00Z", "2026-01-05T15:10:00Z")
    assert [w.id for w in written] == [during]
    assert written == learn._written(mem, "2026-01-05T15:00:00Z", "2026-01-05T15:10:00Z")
    [summary] = learn.session_store(mem).entries("sessions")
    assert during in summary.text and "downloader" not in summary.text
