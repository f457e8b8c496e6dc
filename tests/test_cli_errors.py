"""The command line's top-level error handlers (`cli.main`) and the failure paths of `edit`:
each failure is one redacted line on stderr and a documented exit code, never a traceback,
and a failed edit writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lean_memory
from lean_memory import cli
from lean_memory.commands import _common
from lean_memory.commands import list as list_command
from lean_memory.commands import status as status_command

from .conftest import ROOT, run_cli, snapshot

TOKEN = "ghp_" + "Zq8vK2mX7rT4wY9pL3nB6cD1fH5jS0aE2gUi"  # built here: this file scans clean


def _one_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8")
    assert text.count("\n") == 1 and "Traceback" not in text, text
    assert TOKEN not in text and TOKEN[8:] not in text
    return text


# -- cli.main's handlers, one by one -------------------------------------------------------


@pytest.mark.parametrize("name", [TOKEN, f"deploy-{TOKEN}"])
def test_an_os_error_naming_a_token_is_one_redacted_line_and_exit_2(
        tmp_path: Path, name: str) -> None:
    """The OSError branch of cli.main: `--root` is a file whose name holds a token, so
    creating .agents under it fails with NotADirectoryError naming that path.
    Catches: that branch writing its line without the CLI's redaction (e.g.
    ``sys.stderr.write(f"error: {exc.strerror}: {exc.filename}")``), which leaks the token;
    and the filename redacted as text, not as a path (``deploy-ghp_…`` leaked, fixed here)."""
    (tmp_path / name).write_text("a file, not a folder\n", encoding="utf-8")
    r = run_cli("--root", name, "init", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == b""
    line = _one_line(r.stderr)
    assert line.startswith("lean-memory: error: ")
    assert f": {name[:name.index('_')]}_\u2026" in line  # the path, redacted


def test_every_stderr_line_is_redacted_and_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``say``, the one way the CLI writes to stderr, redacts what it is given whatever its
    source (the OSError branch and the notes pass it text no LeanMemoryError redacted).
    Catches: the redaction removed from ``say``, which the subprocess tests cannot notice
    while each caller also redacts."""
    _common.say(f"error: cannot open deploy {TOKEN}\nsecond line")
    _common.say_error(f"Permission denied: /srv/{TOKEN}")
    assert capsys.readouterr().err == (
        "lean-memory: error: cannot open deploy ghp_\u2026 second line\n"
        "lean-memory: error: Permission denied: /srv/ghp_\u2026\n")


def test_a_usage_error_quoting_a_token_is_one_redacted_line(tmp_path: Path) -> None:
    """argparse quotes what it did not understand (a UsageError, redacted when it is made,
    then by ``_say``). Catches: a usage error written by argparse itself (its own stderr
    format, unredacted, exit code of argparse)."""
    lean_memory.Memory(tmp_path).init()
    for args in (("list", "quirks", TOKEN), ("forget", "e1", "--reason=x", TOKEN)):
        r = run_cli(*args, cwd=tmp_path)
        assert r.returncode == 2 and r.stdout == b""
        line = _one_line(r.stderr)
        assert line.startswith("lean-memory: error: unrecognized arguments: ghp_")


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pipe whose reader is gone")
def test_a_broken_pipe_exits_0_and_says_nothing(tmp_path: Path) -> None:
    """The BrokenPipeError branch: the reader of stdout is gone before anything is written
    (`lean-memory get | head -0`). Catches: the branch removed (the OSError branch would then
    say "Broken pipe" and exit 2) or Python's own "Exception ignored" at exit."""
    lean_memory.Memory(tmp_path).init()
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "lean_memory", "get"], cwd=tmp_path,
                           stdout=write, stderr=subprocess.PIPE, timeout=60, check=False,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (0, b"")


def test_a_refused_secret_exits_1_with_redacted_finding_lines(tmp_path: Path) -> None:
    """The SecretFound branch: exit 1 (not LeanMemoryError's 2), the error line, then one
    indented line per finding, all redacted. Catches: SecretFound handled as a plain
    LeanMemoryError (no finding lines) or the finding lines written unredacted."""
    lean_memory.Memory(tmp_path).init()
    r = run_cli("put", "quirks", f"the deploy token is {TOKEN}", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout == b""
    text = r.stderr.decode("utf-8")
    assert TOKEN not in text and TOKEN[8:] not in text and "Traceback" not in text
    first, *findings = text.splitlines()
    assert first.startswith("lean-memory: error: ") and "refused" in first
    assert findings and all(line.startswith("  ") and "ghp_" in line for line in findings)


def test_a_library_error_exits_with_its_code_and_one_line(tmp_path: Path) -> None:
    """The LeanMemoryError branch: a missing memory is exit 2 with one line saying what to
    do. Catches: the branch removed (the generic handler would say "internal error")."""
    r = run_cli("get", "quirks", cwd=tmp_path)
    assert r.returncode == 2
    line = _one_line(r.stderr)
    assert line.startswith("lean-memory: error: ") and "init" in line
    assert "internal error" not in line


def _raising(exc: BaseException) -> object:
    def command(args: object, out: object) -> int:
        raise exc
    return command


def test_ctrl_c_exits_130_without_a_traceback(
        mem: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The KeyboardInterrupt branch (a hot command, read by _fast_args, and one argparse
    reads). Catches: the branch removed or returning another code."""
    monkeypatch.setattr(status_command, "run", _raising(KeyboardInterrupt()))
    monkeypatch.setattr(list_command, "run", _raising(KeyboardInterrupt()))
    assert cli.main(["--root", str(mem.root), "status"]) == 130
    assert cli.main(["--root", str(mem.root), "list"]) == 130
    assert capsys.readouterr() == ("", "")


def test_an_unexpected_error_names_only_its_type_unless_debugging(
        mem: lean_memory.Memory, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The last branch: an exception no one planned for says its type and how to get
    details, never its message (which may quote a secret), and exits 2; with
    LEAN_MEMORY_DEBUG set it propagates. Catches: the message printed, or the debug switch
    ignored."""
    monkeypatch.delenv("LEAN_MEMORY_DEBUG", raising=False)
    monkeypatch.setattr(list_command, "run", _raising(ValueError(f"bad input {TOKEN}")))
    assert cli.main(["--root", str(mem.root), "list"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and TOKEN not in err and "bad input" not in err
    assert err == ("lean-memory: error: internal error (ValueError); rerun with "
                   "LEAN_MEMORY_DEBUG=1 for details and report it\n")
    monkeypatch.setenv("LEAN_MEMORY_DEBUG", "1")
    with pytest.raises(ValueError, match="bad input"):
        cli.main(["--root", str(mem.root), "list"])


# -- edit's failure paths ---------------------------------------------------------------


@pytest.fixture
def entry(mem: lean_memory.Memory) -> lean_memory.Entry:
    return mem.put_entry("quirks", "tox recreates envs when setup.cfg changes",
                         date="2026-11-01")


def _edit(mem: lean_memory.Memory, entry_id: str, tmp_path: Path,
          editor: str) -> subprocess.CompletedProcess[bytes]:
    """`lean-memory edit` with ``editor`` and a private TMPDIR (to see the copy go)."""
    tmp = tmp_path / "edit-tmp"
    tmp.mkdir(exist_ok=True)
    return run_cli("edit", entry_id, cwd=mem.root,
                   env={"EDITOR": editor, "VISUAL": "", "TMPDIR": str(tmp)})


def _script(tmp_path: Path, body: str) -> str:
    """An $EDITOR running ``body`` (Python; ``p`` is the file it is given)."""
    script = tmp_path / "ed.py"
    script.write_text(f"import sys\np = sys.argv[1]\n{body}\n", encoding="utf-8")
    return f"{sys.executable} {script}"


@pytest.mark.parametrize(("editor", "code", "needle"), [
    (f"/nonexistent/editor-{TOKEN}", 2, "cannot start the editor"),
    ("sys.exit(1)", 2, "the editor exited with 1; nothing was written"),
])
def test_an_editor_that_cannot_start_or_fails_writes_nothing(
        mem: lean_memory.Memory, entry: lean_memory.Entry, tmp_path: Path, editor: str,
        code: int, needle: str) -> None:
    """Catches: a failed editor taken as an edit (the entry replaced by what the copy
    holds), the temporary copy left behind, or the editor's name (a token here) echoed
    (it was: redacted as text, ``editor-ghp_…`` kept its token; fixed with redact_path)."""
    before = snapshot(mem.dir)
    if not editor.startswith("/"):
        editor = _script(tmp_path, f"open(p, 'a').write('half an edit'); {editor}")
    r = _edit(mem, entry.id, tmp_path, editor)
    assert r.returncode == code and r.stdout == b""
    assert needle in _one_line(r.stderr)
    assert snapshot(mem.dir) == before
    assert list((tmp_path / "edit-tmp").iterdir()) == []


def test_an_unchanged_edit_writes_nothing(mem: lean_memory.Memory, entry: lean_memory.Entry,
                                          tmp_path: Path) -> None:
    before = snapshot(mem.dir)
    r = _edit(mem, entry.id, tmp_path, _script(tmp_path, "pass"))
    assert (r.returncode, r.stdout, r.stderr) == (0, f"{entry.id}: unchanged\n".encode(), b"")
    assert snapshot(mem.dir) == before
    assert list((tmp_path / "edit-tmp").iterdir()) == []


def test_an_entry_changed_by_hand_during_the_edit_is_kept(
        mem: lean_memory.Memory, entry: lean_memory.Entry, tmp_path: Path) -> None:
    """Someone edits the shard while $EDITOR is open. Catches: the edit written over the
    hand edit (expected_raw not checked)."""
    shard = mem.dir / "quirks.md"
    editor = _script(tmp_path, (
        f"s = open({str(shard)!r}, encoding='utf-8').read()\n"
        f"open({str(shard)!r}, 'w', encoding='utf-8').write(s.replace('setup.cfg', "
        "'tox.ini'))\n"
        "open(p, 'a', encoding='utf-8').write('edited in the editor\\n')"))
    r = _edit(mem, entry.id, tmp_path, editor)
    assert r.returncode == 2
    assert "changed while it was being edited" in _one_line(r.stderr)
    text = shard.read_text(encoding="utf-8")
    assert "tox.ini" in text and "edited in the editor" not in text


@pytest.mark.parametrize(("content", "needle"), [
    (b"## t\n\nnul \x00 here\n", "contains a NUL character"),
    (b"## t\n\n\xff\xfe bad\n", "the edited entry is not UTF-8; nothing was written")])
def test_an_edit_that_is_not_text_is_refused(
        mem: lean_memory.Memory, entry: lean_memory.Entry, tmp_path: Path,
        content: bytes, needle: str) -> None:
    """A NUL, or bytes that are not UTF-8, in the edited copy. Catches: either written to
    the shard, a traceback, or (bytes not UTF-8, as it was) an "internal error ... report
    it" for what is the editor's encoding."""
    before = snapshot(mem.dir)
    r = _edit(mem, entry.id, tmp_path, _script(tmp_path, f"open(p, 'wb').write({content!r})"))
    assert r.returncode == 2
    assert needle in _one_line(r.stderr)
    assert snapshot(mem.dir) == before
    assert list((tmp_path / "edit-tmp").iterdir()) == []


def test_editing_an_unknown_id_starts_no_editor(mem: lean_memory.Memory,
                                                tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    r = _edit(mem, "nope", tmp_path, _script(tmp_path, f"open({str(marker)!r}, 'w')"))
    assert r.returncode == 2 and "no live entry has id 'nope'" in _one_line(r.stderr)
    assert not marker.exists()


@pytest.mark.parametrize("port", ["99999", "65536", "-1"])
def test_a_port_out_of_range_is_a_usage_line(tmp_path: Path, port: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Guards `serve --port 99999` ending in "internal error (OverflowError)" (the socket's
    bind refuses it) instead of saying which ports there are."""
    lean_memory.Memory(tmp_path).init()
    code = cli.main(["serve", "--root", str(tmp_path), "--port", port])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "--port" in err and "0 to 65535" in err and "internal error" not in err, err
