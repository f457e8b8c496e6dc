"""Issue 34, item 2: decisions belong to the person, and a project is the same project after
a move or a fresh clone. On main ea4449c a `--no` was kept in the project's session folder
(keyed by its path): the same rule came back in the next project, and in the same one once
moved or re-cloned; a preference said in one project was proposed in every other."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import lean_memory
from lean_memory import learn
from lean_memory.layers import session_home
from tests import test_learn
from tests.conftest import git
from tests.test_layers_global import ok
from tests.test_learn import ask

home = test_learn.home  # the fixture: HOME and XDG_DATA_HOME in tmp_path

RULE = "Don't deploy on Fridays."


def ids(listing: str) -> list[str]:
    return re.findall(r"^(p-[0-9a-f]{8})  ", listing, re.M)


def targets(root: Path, env: dict[str, str]) -> list[str]:
    """Where each waiting proposal would be written: "project" or "global"."""
    return [p["target"] for p in json.loads(ok("promote", "--json", cwd=root, env=env))]


def make(root: Path, env: dict[str, str], *, commit: str = "") -> Path:
    """A repository with a first commit holding ``commit`` (none when empty)."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    if commit:
        (root / "README").write_text(commit + "\n")
        git(root, "add", "README")
        git(root, "commit", "-qm", "first")
    ok("init", "--no-git", cwd=root, env=env)
    return root


def test_a_no_holds_in_every_project(tmp_path: Path, home: dict[str, str]) -> None:
    """Catches: "Don't deploy on Fridays." dismissed in one repository and proposed in the
    next with the evidence of every project."""
    a, b = make(tmp_path / "a", home), make(tmp_path / "b", home)
    for s in ("a1", "a2"):
        ask(a, home, s, RULE)
    for s in ("b1", "b2"):
        ask(b, home, s, RULE)
    [pid] = ids(ok("promote", cwd=a, env=home))
    assert targets(a, home) == ["global"]  # asked in two projects: a rule for the person
    ok("promote", pid, "--no", cwd=a, env=home)
    ask(b, home, "b3", RULE)
    assert ids(ok("promote", cwd=b, env=home)) == []
    assert ids(ok("promote", cwd=a, env=home)) == []


def test_a_preference_of_one_project_is_proposed_there_only(
        tmp_path: Path, home: dict[str, str]) -> None:
    """Catches: a rule said only in one project proposed in another (and for the global
    layer)."""
    a, b = make(tmp_path / "a", home), make(tmp_path / "b", home)
    for s in ("a1", "a2", "a3"):
        ask(a, home, s, RULE)
    assert targets(a, home) == ["project"]
    assert ids(ok("promote", cwd=b, env=home)) == []
    start = ask(b, home, "b1", "why is the build slow")
    assert "proposal" not in start


def test_a_moved_project_keeps_its_decisions_and_its_asks(
        tmp_path: Path, home: dict[str, str]) -> None:
    """Catches: identity by path: a moved repository forgot a --no, and counted its own
    earlier asks as another project's (a global suggestion for one project's rule)."""
    a = make(tmp_path / "a", home, commit="hello")
    for s in ("a1", "a2", "a3"):
        ask(a, home, s, RULE)
    [pid] = ids(ok("promote", cwd=a, env=home))
    ok("promote", pid, "--no", cwd=a, env=home)
    for s in ("x1", "x2", "x3"):
        ask(a, home, s, "Never commit the build folder.")
    ok("promote", cwd=a, env=home)  # identity noted
    moved = tmp_path / "elsewhere" / "renamed"
    moved.parent.mkdir()
    shutil.move(str(a), str(moved))
    ask(moved, home, "m1", "Never commit the build folder.")
    ask(moved, home, "m2", RULE)
    listing = ok("promote", cwd=moved, env=home)
    assert "Fridays" not in listing
    assert "build folder" in listing and targets(moved, home) == ["project"]


def test_a_fresh_clone_is_the_same_project(tmp_path: Path, home: dict[str, str]) -> None:
    """Catches: a re-cloned repository taken for another project (its asks and the
    original's counted as two projects), and a repository without commits or git breaking
    the listing."""
    a = make(tmp_path / "a", home, commit="hello")
    for s in ("a1", "a2"):
        ask(a, home, s, RULE)
    ok("promote", cwd=a, env=home)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(a), str(clone))
    ok("init", "--no-git", cwd=clone, env=home)
    ask(clone, home, "c1", RULE)
    assert targets(clone, home) == ["project"]
    assert learn.project_identity(a) == learn.project_identity(clone)
    assert learn.project_identity(a).startswith("r-")
    bare = make(tmp_path / "nocommit", home)
    assert learn.project_identity(bare) == session_home(bare).name  # the path's
    assert learn.project_identity(lean_memory.Memory(bare).root) != learn.project_identity(a)


def test_an_unrelated_repository_in_the_same_place_is_another_project(
        tmp_path: Path, home: dict[str, str]) -> None:
    """Catches: an identity kept for a path after the repository there was replaced by
    another one (its decisions and proposals would follow the wrong repository)."""
    a = make(tmp_path / "a", home, commit="hello")
    first = learn.project_identity(a)
    assert first == learn.project_identity(a)
    shutil.rmtree(a)
    other = make(tmp_path / "a", home, commit="another history")
    assert learn.project_identity(other) != first
