"""Issue 34, item 1: a yes writes the rule the person read. Proposals carry an id derived
from their content; `promote ID --yes|--no` acts on exactly that one or refuses in one line.
On main ea4449c `promote N --yes` took position N of a list recomputed at that moment (a
rule asked meanwhile took its place), and with `--global` the position of the global
store's list."""

from __future__ import annotations

import re
from pathlib import Path

import lean_memory
from lean_memory import learn
from lean_memory.layers import GLOBAL, PROJECT
from tests import test_learn
from tests.test_layers_global import cli, ok
from tests.test_learn import ask

home = test_learn.home  # the fixture: HOME and XDG_DATA_HOME in tmp_path
project = test_learn.project  # the fixture: an initialised git repository

# the same words in each session: whatever the matcher links, it links these
PNPM = ("Always use pnpm, not npm.",) * 3
PUSH = ("Never push directly to main.",) * 4


def ids(listing: str) -> list[str]:
    return re.findall(r"^(p-[0-9a-f]{8})  ", listing, re.M)


def test_the_id_is_the_rule_and_its_layer() -> None:
    """Catches: an id that depends on order or time (a yes would name another rule), or
    that ignores the layer a yes writes to."""
    a = learn.proposal_id("Always pnpm over npm.", PROJECT)
    assert a == learn.proposal_id("  always PNPM over   npm ", PROJECT)
    assert a != learn.proposal_id("Always pnpm over npm.", GLOBAL)
    assert a != learn.proposal_id("Never pnpm over npm.", PROJECT)
    assert re.fullmatch(r"p-[0-9a-f]{8}", a)


def test_a_yes_writes_the_rule_read_whatever_arrives_meanwhile(
        project: Path, home: dict[str, str]) -> None:
    """Catches: the week of issue 34: the person read the pnpm rule, asks arrived that put
    another rule first, and `promote 1 --yes` wrote `Never push directly to main.`"""
    for n, text in enumerate(PNPM):
        ask(project, home, f"s{n}", text)
    listing = ok("promote", cwd=project, env=home)
    [pnpm] = ids(listing)
    assert "pnpm" in listing
    for n, text in enumerate(PUSH):  # asked in more sessions: listed first now
        ask(project, home, f"t{n}", text)
    again = ok("promote", cwd=project, env=home)
    assert len(ids(again)) == 2 and ids(again)[0] != pnpm and pnpm in ids(again)
    said = ok("promote", pnpm, "--yes", cwd=project, env=home)
    conventions = (project / ".agents" / "memory" / "conventions.md").read_text()
    assert "pnpm" in said and "pnpm" in conventions and "push" not in conventions.lower()


def test_a_position_and_an_unknown_id_are_refused_in_one_line(
        project: Path, home: dict[str, str]) -> None:
    """Catches: a number taken as a position (it names another rule once the list moves),
    and an id no current proposal has written anyway or answered with a traceback."""
    for n, text in enumerate(PNPM):
        ask(project, home, f"s{n}", text)
    conventions = project / ".agents" / "memory" / "conventions.md"
    before = conventions.read_bytes()
    for which in ("1", "p-00000000", "p-"):
        r = cli("promote", which, "--yes", cwd=project, env=home)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "Traceback" not in r.stderr and conventions.read_bytes() == before
    assert "position" in cli("promote", "1", "--yes", cwd=project, env=home).stderr


def test_a_stale_id_is_refused(project: Path, home: dict[str, str]) -> None:
    """Catches: a yes on a proposal that was dismissed (or decided) since it was listed."""
    for n, text in enumerate(PNPM):
        ask(project, home, f"s{n}", text)
    [pid] = ids(ok("promote", cwd=project, env=home))
    assert "dismissed" in ok("promote", pid, "--no", cwd=project, env=home)
    r = cli("promote", pid, "--yes", cwd=project, env=home)
    assert r.returncode == 2 and "no current proposal" in r.stderr
    assert "pnpm" not in (project / ".agents" / "memory" / "conventions.md").read_text()


def test_global_changes_where_never_which(project: Path, home: dict[str, str],
                                          tmp_path: Path) -> None:
    """Catches: `--global` taking the id (or number) from the global store's own list: a
    rule just dismissed with --no written to every project."""
    for n, text in enumerate(PNPM):
        ask(project, home, f"s{n}", text)
    for n, text in enumerate(PUSH):
        ask(project, home, f"t{n}", text)
    listing = ok("promote", cwd=project, env=home)
    by_rule = {("pnpm" if "pnpm" in line else "push"): i for i, line in
               zip(ids(listing), [ln for ln in listing.splitlines() if ln.startswith("p-")],
                   strict=True)}
    ok("promote", by_rule["push"], "--no", cwd=project, env=home)
    said = ok("promote", by_rule["pnpm"], "--yes", "--global", cwd=project, env=home)
    assert "global" in said
    g = (Path(home["XDG_DATA_HOME"]) / "lean-memory" / "global" / ".agents" / "memory"
         / "conventions.md").read_text()
    assert "pnpm" in g and "push" not in g.lower()
    assert "pnpm" not in (project / ".agents" / "memory" / "conventions.md").read_text()
    assert ids(ok("promote", cwd=project, env=home)) == []


def test_every_listing_shows_the_ids(project: Path, home: dict[str, str]) -> None:
    """Catches: a listing (MCP status, the memory tool's view, the page) without the id
    `promote` takes, so the person cannot name what they read there."""
    from lean_memory.commands.serve import page_proposals as _page_proposals
    from lean_memory.mcp_server import Server
    from lean_memory.memory_tool import MemoryToolHandler

    for n, text in enumerate(PNPM):
        ask(project, home, f"s{n}", text)
    [pid] = ids(ok("promote", cwd=project, env=home))
    mem = lean_memory.Memory(project)
    text, data = Server(lambda: mem)._tool_status({})
    assert pid in text and data["proposals"][0]["id"] == pid
    assert pid in MemoryToolHandler(mem).execute({"command": "view", "path": "/memories"})
    assert [p.id for p in _page_proposals(mem).pending()] == [pid]
