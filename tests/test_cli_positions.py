"""The global options (``--root DIR``, ``--global``, ``--json``) work before and after the
command, as a person types them; a bad option is one error line. Before, ``--root`` worked
only before the command and ``--global``/``--json`` only after it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from lean_memory import Memory, cli


@pytest.fixture
def roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A project (not the working folder) and a global store, each with its own entry."""
    project, global_ = tmp_path / "p", tmp_path / "g"
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(global_))
    monkeypatch.delenv("LEAN_MEMORY_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    for root, text in ((project, "The project builds with make."),
                       (global_, "Answer in British English.")):
        mem = Memory(root)
        mem.init()
        mem.put_entry("conventions", text)
    return project, global_


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    out = io.StringIO()
    code = cli.main(argv, out)
    return code, out.getvalue(), capsys.readouterr().err


def test_root_json_and_global_anywhere(roots: tuple[Path, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Guards `status --root DIR` and `--json status` being usage errors."""
    project = str(roots[0])
    shapes = [["--root", project, "status", "--json"], ["status", "--json", "--root", project],
              ["--json", "status", "--root", project], ["--root", project, "--json", "status"],
              ["status", "--root", project, "--json"]]
    outputs = set()
    for argv in shapes:
        code, out, err = _run(argv, capsys)
        assert (code, err) == (0, ""), argv
        assert json.loads(out)["shards"], argv
        outputs.add(out)
    assert len(outputs) == 1
    for argv in (["list", "--global"], ["--global", "list"], ["--global", "list", "--json"],
                 ["--json", "--global", "list"]):
        code, out, err = _run(argv, capsys)
        assert (code, err) == (0, ""), argv
        assert "British English" in out and "make" not in out, argv
    for argv in (["list", "--root", project], ["--root", project, "list"]):
        code, out, err = _run(argv, capsys)
        assert (code, err) == (0, ""), argv
        assert "make" in out and "British English" not in out, argv
    code, out, _ = _run(["get", "--root", project, "-q", "builds make"], capsys)
    assert code == 0 and "builds with make" in out  # the project's, found from elsewhere


def test_fast_reader_takes_them_anywhere() -> None:
    """Guards the hot commands' own reader (no argparse) refusing, or misreading, the
    options where argparse now takes them."""
    for argv in (["get", "--root", "/r", "-q", "x"], ["--json", "get", "-q", "x"],
                 ["--global", "status"], ["--json", "--root", "/r", "status"],
                 ["put", "quirks", "t", "--root", "/r"], ["hook", "session-start", "--root", "/r"],
                 ["--global", "put", "--json", "quirks", "t"]):
        fast = cli._fast_args(argv)
        assert fast is not None, argv
        assert vars(fast) == vars(cli.build_parser().parse_args(argv)), argv
    fast = cli._fast_args(["--json", "--root", "/a", "get", "--root", "/b"])
    assert fast is not None and (fast.json, fast.root) == (True, "/b")


@pytest.mark.parametrize("argv, needle", [
    (["--json", "init"], "init takes no --json"),
    (["--global", "scan"], "scan takes no --global"),
    (["--json", "hook", "session-start"], "hook takes no --json"),
    (["get", "--bogus"], "unrecognized arguments: --bogus"),
    (["--bogus", "get"], "unrecognized arguments: --bogus"),
    (["status", "--root"], "--root: expected one argument"),
])
def test_a_bad_option_is_one_line(argv: list[str], needle: str, roots: tuple[Path, Path],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Guards a global option before a command that lacks it being taken silently, and a
    bad option giving more than one line (or a traceback)."""
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("argv, needle", [
    (["init", "--json"], "init takes no --json"),
    (["index", "--json"], "index takes no --json"),
    (["serve", "--json"], "serve takes no --json"),
    (["scan", "--global"], "scan takes no --global"),
    (["demo", "--global"], "demo takes no --global"),
])
def test_a_global_option_after_a_command_that_lacks_it(
        argv: list[str], needle: str, roots: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Guards `init --json` saying "unrecognized arguments: --json" while `--json init`
    says "init takes no --json": the option's place changed the message (docs/cli.md
    promises the latter either way)."""
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err, err


@pytest.mark.parametrize("argv", [["status", "--global"], ["--global", "get"],
                                  ["list", "--global"]])
def test_no_global_store_names_the_command_that_makes_it(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Guards `status --global` without a global store telling a person to run
    `lean-memory init`, which makes the project's memory and leaves the error as it was."""
    monkeypatch.setenv("LEAN_MEMORY_GLOBAL", str(tmp_path / "g"))
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "`lean-memory init --global`" in err, err
    assert not (tmp_path / "g").exists()
