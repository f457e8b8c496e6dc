"""Only what earns its place reaches the agent (issue 22, ADR 0021): the digest's relevance
gate, forgotten entries kept out of search and the digest, superseded entries marked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lean_memory
from lean_memory import digest as dg
from lean_memory.manage import archive_entries, forget
from lean_memory.memory_tool import MemoryToolHandler

from .conftest import ROOT, run_cli, snapshot
from .test_semantic import configure, fake, fill_memory  # noqa: F401  (fake: a fixture)

RULE = "Run the tests with pytest before every commit."
TOPIC_A = [
    "Deploy to staging with make deploy-staging; the VPN must be up first.",
    "The support bot restarts the deploy queue when the cache is stale.",
    "Postgres migrations run before the deploy; a failed one blocks the release.",
    "Docker builds need the buildx plugin on the CI runners.",
    "The flaky test_cache test fails when the suite runs in parallel.",
    "Release notes are written from the merged pull requests, never by hand.",
]


@pytest.fixture
def topic_a(tmp_path: Path) -> lean_memory.Memory:
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    mem.put_entry("conventions", RULE, date="2026-11-01")
    for i, text in enumerate(TOPIC_A):
        mem.put_entry(("quirks", "insights", "failures")[i % 3], text, date="2026-11-02")
    return mem


def matches(text: str) -> list[str]:
    _, _, section = text.partition(dg.MATCH_HEAD.strip("\n") + "\n")
    return [ln for ln in section.splitlines() if ln.startswith("- ")]


def set_config(mem: lean_memory.Memory, body: str) -> None:
    (mem.agents_dir / "config.toml").write_text(f"[memory]\n{body}\n", encoding="utf-8")
    mem.__dict__.pop("config", None)


# -- the gate ---------------------------------------------------------------------------

UNRELATED = "What did Caroline say about the LGBTQ support group in Sweden?"


def test_a_prompt_memory_is_not_about_gets_no_matches_and_the_rules_still_ride(
        topic_a: lean_memory.Memory) -> None:
    """The old digest injected every weak word match ("support") for a prompt about
    people and places memory has never heard of; the gate leaves the matches out and the
    standing rules in."""
    block = topic_a.digest(UNRELATED)
    assert matches(block) == [] and "## Memory matching" not in block
    assert RULE in block
    r = run_cli("get", "--digest", UNRELATED, cwd=topic_a.root)
    assert r.returncode == 0 and b"## Memory matching" not in r.stdout and RULE.encode() in r.stdout


def test_a_relevant_prompt_still_gets_its_evidence(topic_a: lean_memory.Memory) -> None:
    """The gate must not close on what memory is about, names and identifiers included:
    an identifier whose parts memory holds (``test_queue``: test, queue) is not a new
    name, though memory never saw it whole."""
    assert any("deploy-staging" in ln for ln in matches(topic_a.digest(
        "How do I deploy to staging?")))
    assert any("buildx" in ln for ln in matches(topic_a.digest(
        "Why do the Docker builds fail on CI?")))
    assert any("test_cache" in ln for ln in matches(topic_a.digest(
        "why does test_queue fail")))


def test_the_gate_is_deterministic_across_processes(topic_a: lean_memory.Memory) -> None:
    """Same memory, same prompt: the same block, in this process and in a fresh one."""
    prompts = [UNRELATED, "How do I deploy to staging?", "postgres release blocked"]
    here = [topic_a.digest(p) for p in prompts]
    assert here == [topic_a.digest(p) for p in prompts]
    for p, block in zip(prompts, here, strict=True):
        r = run_cli("get", "--digest", p, cwd=topic_a.root)
        assert r.stdout.decode() == block


def test_min_coverage_zero_turns_the_gate_off(topic_a: lean_memory.Memory) -> None:
    """``digest_min_coverage = 0``: every match that fits, as before the gate (the weak
    "support" match included); 1: only a hit holding every query term opens it."""
    set_config(topic_a, "digest_min_coverage = 0")
    assert any("support bot" in ln for ln in matches(topic_a.digest(UNRELATED)))
    set_config(topic_a, "digest_min_coverage = 1.0")
    assert matches(topic_a.digest("deploy postgres migrations zebra")) == []
    assert matches(topic_a.digest("postgres migrations"))


@pytest.mark.parametrize(("value", "said"), [
    ("2", "must be between 0 and 1, got 2"),
    ("-0.1", "must be between 0 and 1, got -0.1"),
    ('"high"', "must be a number, got 'high'"),
    ("true", "must be a number, got True"),
])
def test_a_bad_min_coverage_is_one_clear_error(topic_a: lean_memory.Memory, value: str,
                                               said: str) -> None:
    """The key is validated like the others: one line naming it, exit 2, no traceback."""
    set_config(topic_a, f"digest_min_coverage = {value}")
    r = run_cli("get", "--digest", "deploy", cwd=topic_a.root)
    err = r.stderr.decode()
    assert r.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert f"[memory] digest_min_coverage {said}" in err


def test_the_digest_is_never_over_budget_gated_or_not(topic_a: lean_memory.Memory) -> None:
    for coverage in ("0", "0.25", "1"):
        set_config(topic_a, f"digest_min_coverage = {coverage}")
        for budget in (0, 40, 105, 400, 1200):
            for p in (UNRELATED, "deploy staging postgres docker", ""):
                assert lean_memory.estimate_tokens(topic_a.digest(p, budget_tokens=budget)) \
                    <= budget


# -- forgotten and superseded -----------------------------------------------------------


def _mcp(root: Path, name: str, arguments: dict[str, Any]) -> str:
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2024-11-05", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "0"}}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}}]
    proc = subprocess.run([sys.executable, "-m", "lean_memory", "--root", str(root), "mcp"],
                          input="".join(json.dumps(m) + "\n" for m in lines).encode(),
                          capture_output=True, timeout=120, check=False,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    replies = [json.loads(line) for line in proc.stdout.splitlines()]
    return str(replies[1]["result"]["content"][0]["text"])


def test_a_forgotten_entry_never_reaches_the_agent_an_archived_original_does(
        tmp_path: Path) -> None:
    """After ``forget``, "how do I deploy?" got the forgotten entry as its only match, and
    ``get --query``, MCP ``memory_search`` and the API's search returned it. Compaction's
    archived originals (folded for space, still true) stay searchable."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    legacy = mem.put_entry("quirks", "Deploy with make deploy-legacy on the old cluster",
                           date="2026-11-01")
    folded = mem.put_entry("insights", "Deploy windows are Tuesday and Thursday mornings",
                           date="2026-11-01")
    r = run_cli("forget", legacy.id, "--reason", "removed in v3", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    archive_entries(mem, mem.read_shard("insights"), [folded])  # as compaction does
    prompt = "how do I deploy?"
    digest = run_cli("get", "--digest", prompt, cwd=tmp_path).stdout.decode()
    query = run_cli("get", "--query", "deploy legacy", cwd=tmp_path).stdout.decode()
    wide = run_cli("get", "--query", "deploy legacy", "--archive", cwd=tmp_path).stdout.decode()
    mcp = _mcp(tmp_path, "memory_search", {"query": "deploy legacy"})
    api = [h.entry.id for h in mem.search("deploy legacy", k=10)]
    for shown in (digest, query, wide, mcp, mem.digest(prompt), "\n".join(api)):
        assert "deploy-legacy" not in shown and legacy.id not in shown
    assert "Deploy windows are Tuesday" in digest and folded.id in api
    # kept, not destroyed: the archive file holds it, with why
    assert "reason=removed in v3" in mem.shard_path("quirks", archive=True).read_text("utf-8")


def test_a_forgotten_correction_still_hides_what_it_corrected(tmp_path: Path) -> None:
    """A forgotten entry hides itself without dropping its own ``supersedes`` link."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    old = mem.put_entry("quirks", "The cache server listens on port 6379", date="2026-11-01")
    fix = mem.put_entry("corrections", "The cache server listens on port 6380",
                        supersedes=old.id, date="2026-11-02")
    forget(mem, fix.id, reason="moved to the runbook")
    ids = [h.entry.id for h in mem.search("cache server port", k=10)]
    assert old.id not in ids and fix.id not in ids


def test_every_whole_shard_read_marks_a_superseded_entry_without_changing_the_file(
        tmp_path: Path) -> None:
    """``get quirks``, MCP ``memory_get_shard`` and the memory tool's ``view`` printed the
    old fact with no marker; the CLAUDE.md section tells the agent to read shards that way."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    old = mem.put_entry("quirks", "Deploy with make deploy-k8s", date="2026-11-01")
    keep = mem.put_entry("quirks", "Staging needs the VPN", date="2026-11-01")
    new = mem.put_entry("corrections", "Deploy with make deploy-k9s now", supersedes=old.id,
                        date="2026-11-20")
    before = snapshot(mem.dir)
    mark = f"_(superseded by {new.id} on 2026-11-20)_"
    cli = run_cli("get", "quirks", cwd=tmp_path).stdout.decode()
    mcp = _mcp(tmp_path, "memory_get_shard", {"shard": "quirks"})
    view = MemoryToolHandler(mem).execute({"command": "view", "path": "/memories/quirks.md"})
    for shown in (cli, mcp, mem.get_memory("quirks"), view):
        heading = next(ln for ln in shown.splitlines() if "deploy-k8s" in ln and "##" in ln)
        assert heading.endswith(f"## Deploy with make deploy-k8s {mark}")
        assert shown.count("superseded by") == 1 and keep.title in shown
    # the mark rides on the heading's own line: the view's line numbers stay the file's
    line = mem.shard_path("quirks").read_text("utf-8").splitlines().index(
        "## Deploy with make deploy-k8s") + 1
    assert f"{line:6}\t## Deploy with make deploy-k8s {mark}" in view.splitlines()
    assert snapshot(mem.dir) == before  # only what is shown changes


# -- the semantic extra ------------------------------------------------------------------

def test_the_paraphrase_rescue_injects_no_neighbours_for_a_prompt_memory_is_not_about(
        mem: lean_memory.Memory, fake: Any) -> None:  # noqa: F811
    """With an embedder configured, a prompt BM25 finds nothing for was filled with the
    embedder's nearest neighbours, however far: the digest injected them for any prompt.
    Neighbours that share no word with the prompt never open the gate."""
    from lean_memory.embedcmd import embed_missing

    m = configure(mem, fake[1])
    fill_memory(m)
    assert embed_missing(m) == (4, 4)
    prompt = "Caroline adopted a puppy in Sweden"
    assert m.search(prompt, k=5)  # the rescue still fills a search ...
    assert matches(m.digest(prompt)) == []  # ... never the digest
    assert any("postgres" in ln for ln in matches(m.digest("why is postgres slow at night?")))


def test_get_shard_as_json_names_what_superseded_an_entry(tmp_path: Path) -> None:
    """``get quirks --json`` listed a superseded entry like a current one."""
    mem = lean_memory.Memory(tmp_path)
    mem.init()
    old = mem.put_entry("quirks", "Deploy with make deploy-k8s", date="2026-11-01")
    new = mem.put_entry("corrections", "Deploy with make deploy-k9s", supersedes=old.id,
                        date="2026-11-20")
    r = run_cli("get", "quirks", "--json", cwd=tmp_path)
    [shown] = json.loads(r.stdout)
    assert shown["superseded_by"] == {"id": new.id, "date": "2026-11-20"}
