"""The global layer and one view over the layers (issue 23, ADR 0022): real CLI runs, with
HOME and XDG_DATA_HOME in temporary folders (the real home is never touched)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lean_memory import Memory
from lean_memory.layers import (
    CLEARLY_BETTER,
    GLOBAL,
    OVERRIDES,
    PROJECT,
    SESSION,
    find,
    global_memory,
    project_overrides,
)
from lean_memory.search import find as search_find
from tests.conftest import ROOT, git, snapshot


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """The environment of a person: a home and a data folder of their own."""
    (tmp_path / "home").mkdir()
    return {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data")}


def cli(*args: str, cwd: Path, env: dict[str, str],
        stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    full.pop("LEAN_MEMORY_ROOT", None)
    full.pop("LEAN_MEMORY_GLOBAL", None) if "LEAN_MEMORY_GLOBAL" not in env else None
    return subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=cwd, input=stdin,
                          capture_output=True, env=full, timeout=120, check=False,
                          text=stdin is None)


def ok(*args: str, cwd: Path, env: dict[str, str]) -> str:
    r = cli(*args, cwd=cwd, env=env)
    assert r.returncode == 0, (args, r.stdout, r.stderr)
    return str(r.stdout)


@pytest.fixture
def project(tmp_path: Path, home: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    ok("init", "--no-git", cwd=root, env=home)
    return root


def global_dir(home: dict[str, str]) -> Path:
    return Path(home["XDG_DATA_HOME"]) / "lean-memory" / "global" / ".agents" / "memory"


def session_start(root: Path, env: dict[str, str], session: str = "s-new") -> str:
    payload = json.dumps({"session_id": session, "cwd": str(root), "source": "startup",
                          "hook_event_name": "SessionStart"}).encode()
    r = cli("hook", "session-start", cwd=root, env=env, stdin=payload)
    assert r.returncode == 0
    out = r.stdout.decode() if isinstance(r.stdout, bytes) else r.stdout
    return str(json.loads(out)["hookSpecificOutput"]["additionalContext"]) if out else ""


def test_every_command_acts_on_the_global_store_with_global(project: Path,
                                                           home: dict[str, str]) -> None:
    """Catches: no --global (the commands knew one memory, the project's), or a global
    store kept where root discovery takes it for a project."""
    before = snapshot(project / ".agents")
    added = ok("put", "--global", "conventions", "Answer in British English.", "--json",
               cwd=project, env=home)
    gid = json.loads(added)["id"]
    assert "## Answer in British English." in (global_dir(home) / "conventions.md").read_text()
    assert snapshot(project / ".agents") == before  # the project's memory untouched
    assert "British English" in ok("list", "--global", cwd=project, env=home)
    assert "British English" in ok("show", "--global", gid, cwd=project, env=home)
    assert "British English" in ok("get", "--global", "conventions", cwd=project, env=home)
    assert "conventions" in ok("status", "--global", cwd=project, env=home)
    assert "INDEX.md" in ok("index", "--global", cwd=project, env=home)
    assert "British" not in ok("list", cwd=project, env=home)  # project alone
    ok("compact", "--global", "--dry-run", cwd=project, env=home)
    ok("forget", "--global", gid, "--reason", "changed my mind", cwd=project, env=home)
    assert "British" not in ok("list", "--global", cwd=project, env=home)
    # the store is under the data folder, never under the home where discovery looks
    assert not (Path(home["HOME"]) / ".agents").exists()


def test_one_search_labels_layers_and_says_a_text_once(project: Path,
                                                       home: dict[str, str]) -> None:
    """Catches: `get --query` searching the project alone, hits without their layer, and the
    same text shown twice when both layers hold it (global wins, the project copy hidden)."""
    ok("put", "--global", "quirks", "pnpm store breaks on network drives: set store-dir",
       cwd=project, env=home)
    ok("put", "quirks", "pnpm store breaks on network drives: set store-dir",
       cwd=project, env=home)
    ok("put", "quirks", "pnpm lockfile conflicts: run pnpm install to fix", cwd=project,
       env=home)
    hits = json.loads(ok("get", "--query", "pnpm store network", "--json", cwd=project,
                         env=home))
    texts = [(h["layer"], h["text"].strip()) for h in hits]
    assert ("global", "pnpm store breaks on network drives: set store-dir") in texts
    assert [t for _, t in texts].count("pnpm store breaks on network drives: set store-dir") == 1
    assert ("project", "pnpm lockfile conflicts: run pnpm install to fix") in texts
    shown = ok("get", "--query", "pnpm store network", cwd=project, env=home)
    assert "layer: global" in shown and "layer: project" in shown
    # the loser is hidden, never deleted
    assert "network drives" in (project / ".agents" / "memory" / "quirks.md").read_text()


def test_a_project_entry_supersedes_a_global_one_here_only(project: Path, tmp_path: Path,
                                                           home: dict[str, str]) -> None:
    """Catches: a global rule the project corrected still riding in that project, or the
    correction editing the global store (other projects lose the rule)."""
    gid = json.loads(ok("put", "--global", "conventions", "Indent with tabs.", "--json",
                        cwd=project, env=home))["id"]
    ok("put", "conventions", "Indent with four spaces here.", "--supersedes", gid,
       cwd=project, env=home)
    here = session_start(project, home)
    assert "four spaces" in here and "Indent with tabs" not in here
    other = tmp_path / "other"
    other.mkdir()
    ok("init", "--no-git", cwd=other, env=home)
    assert "Indent with tabs" in session_start(other, home)
    assert "Indent with tabs" in (global_dir(home) / "conventions.md").read_text()


def test_standing_rules_ride_from_both_layers_global_first(project: Path,
                                                           home: dict[str, str]) -> None:
    """Catches: the digest (the hooks' block) seeing the project alone, or the global rules
    after the project's; and a long global note riding every session like a rule."""
    ok("put", "--global", "conventions", "Use uv, never pip.", cwd=project, env=home)
    ok("put", "conventions", "Run ruff before every commit.", cwd=project, env=home)
    ok("put", "--global", "insights", "Long note about databases. " + "word " * 1000,
       cwd=project, env=home)
    block = session_start(project, home)
    assert block.index("Use uv, never pip.") < block.index("Run ruff before every commit.")
    assert "Long note about databases" not in block
    digest = ok("get", "--digest", "why is the build slow", cwd=project, env=home)
    assert "Use uv, never pip." in digest and "Run ruff" in digest


def test_a_hostile_repository_cannot_reach_the_global_store(tmp_path: Path,
                                                            home: dict[str, str]) -> None:
    """Catches: a cloned repository redirecting, reading or writing the person's global store
    through its files: `.agents` linked to the global store, a config naming another place,
    an environment file, a repository inside the global folder, `--root` at it."""
    # the person's global store exists and holds one rule
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ok("put", "--global", "conventions", "Never push to main.", cwd=elsewhere, env=home)
    gdir = global_dir(home)
    before = snapshot(gdir.parent)

    evil = tmp_path / "evil"
    evil.mkdir()
    git(evil, "init", "-q")
    (evil / ".agents").symlink_to(gdir.parent, target_is_directory=True)
    (evil / ".env").write_text(f"LEAN_MEMORY_GLOBAL={tmp_path / 'stolen'}\n")
    (evil / ".lean-memory.toml").write_text(f'global = "{tmp_path / "stolen"}"\n')
    r = cli("put", "conventions", "Always push to main.", cwd=evil, env=home)
    assert r.returncode == 2 and "global store" in r.stderr
    r = cli("get", "conventions", cwd=evil, env=home)
    assert r.returncode == 2 and "Never push" not in r.stdout
    payload = json.dumps({"session_id": "x", "cwd": str(evil), "prompt": "always push to main",
                          "hook_event_name": "UserPromptSubmit"}).encode()
    r = cli("hook", "user-prompt-submit", cwd=evil, env=home, stdin=payload)
    assert r.returncode == 0 and b"Never push" not in r.stdout
    r = cli("--root", str(gdir.parent.parent), "put", "conventions", "x y z", cwd=evil,
            env=home)
    assert r.returncode == 2
    # a repository with a config of its own: it cannot name the global store's place
    (evil / ".agents").unlink()
    (evil / ".agents").mkdir()
    (evil / ".agents" / "config.toml").write_text(
        f'[memory]\nglobal = "{tmp_path / "stolen"}"\n')
    r = cli("put", "--global", "conventions", "Always push to main.", cwd=evil, env=home)
    assert r.returncode == 0  # the repository's config is not read for --global
    assert "Always push" in (gdir / "conventions.md").read_text()
    ok("forget", "--global", next(line.split()[0] for line in ok(
        "list", "--global", cwd=evil, env=home).splitlines() if "Always push" in line),
       "--reason", "test", cwd=evil, env=home)
    assert not (tmp_path / "stolen").exists()
    # a repository inside the global folder is never a project
    inside = gdir.parent.parent / "work"
    inside.mkdir()
    r = cli("put", "conventions", "Always push to main.", cwd=inside, env=home)
    assert r.returncode == 2 and "global store" in r.stderr
    live = [ln for ln in (gdir / "conventions.md").read_text().splitlines()
            if "push" in ln and "Always" in ln]
    assert len(live) <= 2  # only the entry the person wrote (then forgot) above
    assert "Never push to main." in (gdir / "conventions.md").read_text()
    assert snapshot(gdir.parent)["memory/conventions.md"].count(b"Never push") == \
        before["memory/conventions.md"].count(b"Never push")


def test_global_store_location_follows_the_environment_only(tmp_path: Path,
                                                            home: dict[str, str]) -> None:
    """Catches: a global store that is not where LEAN_MEMORY_GLOBAL (else XDG_DATA_HOME)
    says, or one that a relative LEAN_MEMORY_GLOBAL (resolved against a repository) sets."""
    where = tmp_path / "mine"
    env = {**home, "LEAN_MEMORY_GLOBAL": str(where)}
    assert "created" in ok("init", "--global", cwd=tmp_path, env=env)
    assert "already" in ok("init", "--global", cwd=tmp_path, env=env)
    ok("put", "--global", "conventions", "Prefer short answers.", cwd=tmp_path, env=env)
    assert "short answers" in (where / ".agents" / "memory" / "conventions.md").read_text()
    r = cli("put", "--global", "conventions", "x y", cwd=tmp_path,
            env={**home, "LEAN_MEMORY_GLOBAL": "relative/place"})
    assert r.returncode == 2 and not (tmp_path / "relative").exists()


# -- one view over the layers, in process (issue 37: survivors of a mutation run) -------------


@pytest.fixture
def layered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Memory, Memory]:
    """A global store (in a temporary folder) and a project, both initialised."""
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "global"))
    g = global_memory(create=True)
    project = Memory(tmp_path / "proj")
    project.init()
    return g, project


def test_a_project_correction_hides_the_global_entry_from_a_query(
        layered: tuple[Memory, Memory]) -> None:
    """Catches: `get --query` (layers.find) still showing a global entry that a project
    entry supersedes (the `supersedes-global:` tag no longer read, or not applied to the
    global hits)."""
    g, project = layered
    gid = g.put_entry("conventions", "Indent makefiles with tabs, always.").id
    project.put_entry("conventions", "Indent makefiles with four spaces in this project.",
                      tags=[OVERRIDES + gid])
    # the fixture reaches the case: the global entry matches the query on its own
    assert [h.entry.id for h in search_find(g, "indent makefiles tabs").hits] == [gid]
    assert project_overrides(project) == {gid: project.entries()[0].id}
    hits, _, _ = find(project, "indent makefiles tabs", k=5)
    assert [(h.layer, h.hit.entry.text) for h in hits] == [
        (PROJECT, "Indent makefiles with four spaces in this project.")]
    # another project still sees it: the global store is never edited
    other = Memory(g.root.parent / "other")
    other.init()
    assert [h.hit.entry.id for h in find(other, "indent makefiles tabs", k=5)[0]] == [gid]


def test_on_a_tie_of_ranks_the_higher_layer_comes_first(
        layered: tuple[Memory, Memory], tmp_path: Path) -> None:
    """Catches: the interleave of layers losing "higher layer first on a tie" (global, then
    project, then session): e.g. sorting on the layer descending, or on the rank alone
    with the lists merged in another order."""
    g, project = layered
    for mem, layer in ((g, "global"), (project, "project")):
        mem.put_entry("insights", f"Widget gears wear out in the {layer} layer.")
        mem.put_entry("insights", f"Widget springs rust, says the {layer} layer.")
    s = Memory(tmp_path / "session")
    s.init()
    s.put_entry("insights", "Widget gears wear out in the session layer.")
    s.put_entry("insights", "Widget springs rust, says the session layer.")
    session = search_find(s, "widget gears").hits
    assert len(session) == 2
    hits, _, _ = find(project, "widget gears", k=6, session=session)
    # the fixture reaches the case: every layer has a hit at rank 0 and one at rank 1
    assert [h.layer for h in hits] == [GLOBAL, PROJECT, SESSION, GLOBAL, PROJECT, SESSION]
    assert all("gears" in h.hit.entry.text for h in hits[:3])
    assert find(project, "widget gears", k=2, session=session)[0] == hits[:2]


def test_a_weak_global_note_does_not_outrank_a_strong_project_entry(
        layered: tuple[Memory, Memory]) -> None:
    """Catches: ranks interleaved with the global layer first whatever the scores, so the
    global store's only, barely matching note took the first place from the project entry
    that answers the query (found trying it as a user would: `get --query ... -k 1`)."""
    g, project = layered
    g.put_entry("insights", "uv sync is faster than pip install")
    project.put_entry("quirks", "CI caches the pip download folder keyed on requirements.lock;"
                                " bust it by editing the lock")
    project.put_entry("quirks", "The CI cache of node_modules is keyed on package-lock.json")
    [best] = find(project, "pip cache in CI", k=1)[0]
    assert best.layer == PROJECT and "requirements.lock" in best.hit.entry.text
    hits = find(project, "pip cache in CI", k=5)[0]
    weak = next(h for h in hits if h.layer == GLOBAL)
    assert best.hit.score > CLEARLY_BETTER * weak.hit.score  # the case it guards


def test_the_global_store_opens_from_layers_alone(tmp_path: Path) -> None:
    """Caught: ``layers.global_memory()`` raised "lean_memory.store is not imported" unless
    something had made a store first, so tests (and callers) depended on import order."""
    code = ("import lean_memory.layers as L, sys; g = L.global_memory(create=True); "
            "print(type(g).__name__, g.dir.is_dir())")
    env = {**os.environ, "PYTHONPATH": str(ROOT),
           "LEAN_MEMORY_GLOBAL": str(tmp_path / "global")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120, check=False)
    assert (r.returncode, r.stdout.strip()) == (0, "Memory True"), r.stderr


def test_context_uses_the_hooks_budget(project: Path, home: dict[str, str]) -> None:
    """Caught: ``context`` (and ``status``'s injected line, through the same call) described
    a 1,200-token budget while the hooks used ``LEAN_MEMORY_DIGEST_TOKENS``."""
    env = {**home, "LEAN_MEMORY_DIGEST_TOKENS": "777"}
    assert "of 777 tokens" in ok("context", "why", cwd=project, env=env)
    assert "of 1,200 tokens" in ok("context", "why", cwd=project, env=home)
    assert "of 900 tokens" in ok("context", "why", "--budget", "900", cwd=project, env=env)
