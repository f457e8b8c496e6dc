"""`scan` is a gate that fails closed: nothing is skipped silently, nothing makes it hang.

Secrets are built at run time (random bodies), so this file scans clean.
"""

from __future__ import annotations

import base64
import io
import json
import os
import random
import shutil
import socket
import string
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lean_memory import InvalidEntry, Memory, SecretFound, scanfiles
from lean_memory.errors import LeanMemoryError
from lean_memory.scanfiles import scan_paths, scan_staged, scan_stream
from lean_memory.secrets import Allowlist, scan_text

from .conftest import git, run_cli

AN = string.ascii_letters + string.digits
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def token(seed: int = 0) -> str:
    rng = random.Random(seed)
    return "ghp" + "_" + "".join(rng.choice(AN) for _ in range(36))


def pem(seed: int = 0) -> str:
    rng = random.Random(seed)
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(1200))).decode()
    kind = "RSA " + "PRIVATE KEY"
    return (f"-----BEGIN {kind}-----\n"
            + "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
            + f"\n-----END {kind}-----\n")


def found(result: scanfiles.ScanResult) -> list[tuple[str, int, str]]:
    return [(Path(f.path or "").name, f.line, f.rule) for f in result.findings]


# -- the library ------------------------------------------------------------------------------


def test_scan_paths_counts_binaries_and_scans_large_files(tmp_path: Path) -> None:
    value = token()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "notes.md").write_text(f"hello\nGITHUB={value}\n")
    (tmp_path / "clean.txt").write_text("nothing to see\n")
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2" + value.encode())
    (tmp_path / "late-nul.txt").write_bytes(b"x" * 8000 + b"\0\n" + value.encode() + b"\n")
    for skipped in (".git", ".cache"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "c.txt").write_text(f"t={value}\n")
    res = scan_paths([tmp_path])
    assert found(res) == [("late-nul.txt", 2, "github-pat"), ("notes.md", 2, "github-pat")]
    assert res.binary == 1 and res.scanned == 3 and not res.errors and not res.skipped
    allowed = scan_paths([tmp_path], allow=Allowlist(paths=("*/a/*", "*/late-nul.txt")))
    assert not allowed.findings


def test_a_file_over_two_megabytes_is_scanned_to_its_end(tmp_path: Path) -> None:
    log = tmp_path / "build.log"
    line = "INFO step finished in 12 ms; nothing to report here at all\n"
    with log.open("w") as fh:
        for _ in range(2_200_000 // len(line)):
            fh.write(line)
        fh.write(f"export GITHUB_TOKEN={token(1)}\n")
    lines = log.read_text().count("\n")
    res = scan_paths([log])
    assert found(res) == [("build.log", lines, "github-pat")] and res.scanned == 1


@needs_fifo
def test_missing_paths_and_special_files_are_errors(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("fine\n")
    os.mkfifo(tmp_path / "fifo")
    res = scan_paths([tmp_path, tmp_path / "missing.txt"])
    assert [(Path(p).name, r) for p, r in res.errors] == [
        ("fifo", "not a regular file (a FIFO)"), ("missing.txt", "no such file or directory")]
    assert res.scanned == 1


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges")
def test_symlinks_are_reported_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "key.txt").write_text(f"t={token(2)}\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "to-file").symlink_to(outside / "key.txt")
    (tree / "to-dir").symlink_to(outside)
    (tree / "loop").symlink_to(tree / "loop")
    res = scan_paths([tree])
    assert not res.findings and not res.errors and res.scanned == 0
    assert sorted(Path(p).name for p, _ in res.skipped) == ["loop", "to-dir", "to-file"]
    assert {r for _, r in res.skipped} == {"symlink, not followed"}


def _chunked(text: str) -> list[tuple[str, int, str]]:
    data = io.BytesIO(text.encode("utf-8"))
    return [(f.rule, f.line, f.fingerprint) for f in scan_stream(data.read, "x")]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(st.characters(codec="utf-8", exclude_characters="\n"), max_size=90),
                max_size=60),
       st.integers(0, 60), st.booleans())
@example([], 0, True)
@example(["é" * 90] * 40, 20, True)
def test_chunks_find_what_one_scan_finds(noise: list[str], where: int, key: bool) -> None:
    """With chunks much smaller than the secret, each secret is still reported once, on its
    line, as a scan of the whole text reports it."""
    secret = pem(where) if key else token(where)
    lines = [*noise[:where], *secret.rstrip("\n").split("\n"), *noise[where:]]
    text = "\n".join(lines) + "\n"
    whole = [(f.rule, f.line, f.fingerprint) for f in scan_text(text)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scanfiles, "CHUNK", 4096)
        mp.setattr(scanfiles, "OVERLAP", 1900)  # longer than the PEM block
        mp.setattr(scanfiles, "_BLOCK", 333)
        assert _chunked(text) == whole
    line = min(where, len(noise)) + 1
    assert any(f[1] == line for f in whole)


def test_a_huge_single_line_is_scanned_in_bounded_pieces() -> None:
    text = "a " * 1_500_000 + token(3) + " b" * 10
    assert [f[:2] for f in _chunked(text)] == [("github-pat", 1)]


@needs_git
@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges")
def test_scan_staged_streams_blobs_counts_binaries(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    value = token(4)
    (tmp_path / "staged.md").write_text(f"token={value}\n")
    (tmp_path / "unstaged.md").write_text(f"token={value}\n")
    (tmp_path / "dir with space").mkdir()
    (tmp_path / "dir with space" / "ok.txt").write_text("clean\n")
    (tmp_path / "img.bin").write_bytes(b"\0\0" + value.encode())
    big = "INFO nothing to see in this line of the log\n" * 50_000 + f"t={token(5)}\n"
    (tmp_path / "big.log").write_text(big)
    for i in range(40):  # many blobs through one cat-file, one at a time
        (tmp_path / f"f{i}.txt").write_text(f"file {i}\n" * (i * 50))
    (tmp_path / "link").symlink_to("staged.md")
    git(tmp_path, "add", "-A", ":!unstaged.md")
    (tmp_path / "staged.md").write_text("clean now\n")  # the index still holds the secret
    res = scan_staged(tmp_path)
    assert sorted((f.path, f.line, f.rule) for f in res.findings) == [
        ("big.log", 50_001, "github-pat"), ("staged.md", 1, "github-pat")]
    assert res.binary == 1 and not res.errors and res.scanned == 44
    git(tmp_path, "add", "staged.md")
    (tmp_path / "staged.md").write_text(f"token={value}\n")
    assert found(scan_staged(tmp_path / "dir with space")) == [("big.log", 50_001, "github-pat")]


@needs_git
def test_scan_staged_outside_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    with pytest.raises(LeanMemoryError, match="not a git repository"):
        scan_staged(tmp_path)


def test_put_refuses_control_characters(mem: Memory) -> None:
    for bad in ("\0", "\x1b[31m", "\x0b", "\x7f", "\x85"):
        with pytest.raises(InvalidEntry, match="control character"):
            mem.put_entry("insights", f"first line\nsecond {bad} line")
    e = mem.put_entry("insights", "tab\there\r\nand CRLF\nlines")
    assert e.text == "tab\there\r\nand CRLF\nlines"


def test_allow_paths_star_does_not_turn_off_the_put_scan(tmp_path: Path) -> None:
    Memory(tmp_path).init()
    (tmp_path / ".agents" / "config.toml").write_text('[secrets]\nallow_paths = ["*"]\n')
    mem = Memory(tmp_path)
    assert mem.allowlist.paths == ("*",)
    with pytest.raises(SecretFound):
        mem.put_entry("insights", f"deploy with {token(6)}")
    with pytest.raises(SecretFound):
        mem.put_entry("insights", "clean text", title=f"deploy with {token(6)}")
    with pytest.raises(SecretFound):
        mem.put_entry("insights", "clean text", tags=[token(6)])
    assert not scan_paths([tmp_path / ".agents"], allow=mem.allowlist).scanned  # scan: skipped


# -- the command line, as a subprocess ---------------------------------------------------------


def _stderr_lines(r: object) -> list[str]:
    return [ln for ln in r.stderr.decode().splitlines() if ln]  # type: ignore[attr-defined]


@needs_fifo
def test_cli_scan_fails_closed_on_a_fifo_and_a_socket(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "ok.txt").write_text("fine\n")
    os.mkfifo(tree / "pipe")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(tree / "sock"))
    except OSError:
        sock.close()
        sock = None  # type: ignore[assignment]
    try:
        r = run_cli("scan", "tree", cwd=tmp_path)  # hangs forever if it opens the FIFO
    finally:
        if sock is not None:
            sock.close()
    assert r.returncode == 2, r.stderr
    errors = [ln for ln in _stderr_lines(r) if ": error: " in ln]
    assert "lean-memory: error: could not scan tree/pipe: not a regular file (a FIFO)" in errors
    if sock is not None:
        assert any("tree/sock: not a regular file (a socket)" in ln for ln in errors)
    assert run_cli("scan", "/dev/null", cwd=tmp_path).returncode == 2


def test_cli_scan_of_a_missing_path_exits_2(tmp_path: Path) -> None:
    r = run_cli("scan", "nope.txt", cwd=tmp_path)
    assert r.returncode == 2
    assert "could not scan nope.txt: no such file or directory" in r.stderr.decode()


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="root reads any file (the next test covers this as root)")
def test_cli_scan_of_an_unreadable_file_exits_2(tmp_path: Path) -> None:
    p = tmp_path / "secret.txt"
    p.write_text("x\n")
    p.chmod(0)
    r = run_cli("scan", ".", cwd=tmp_path)
    assert r.returncode == 2 and "unreadable" in r.stderr.decode()


def test_cli_scan_fails_closed_when_a_file_cannot_be_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The same as the test above, in a way that works as root (CI): opening one file
    fails with EACCES, as a mode of 0 does for other users. Catches: an open error
    swallowed (the file counted as clean and exit 0) or escaping as a traceback."""
    from lean_memory import cli

    (tmp_path / "secret.txt").write_text("x\n")
    (tmp_path / "clean.txt").write_text("nothing here\n")
    real = scanfiles._open_regular

    def refuse(path: str) -> int:
        if Path(path).name == "secret.txt":
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(scanfiles, "_open_regular", refuse)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--root", str(tmp_path), "scan", "."]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "lean-memory: error: could not scan ./secret.txt: unreadable (Permission denied)" \
        in err.splitlines()
    assert "1 file(s) could not be scanned: the check fails closed" in err
    assert "clean.txt" not in err


def test_cli_scan_large_and_binary_files(tmp_path: Path) -> None:
    value = token(7)
    (tmp_path / "big.log").write_text("INFO all good\n" * 170_000 + f"key {value}\n")
    for i in range(5):
        (tmp_path / f"img{i}.png").write_bytes(b"\x89PNG\0\0" + value.encode())
    r = run_cli("scan", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stdout.decode() == "./big.log:170001: github-pat: ghp_\u2026\n"
    notes = [ln for ln in _stderr_lines(r) if "binary" in ln]
    assert notes == ["lean-memory: note: 5 binary file(s) not scanned (a NUL in the first "
                     "8,000 bytes, as git decides)"]
    j = run_cli("scan", "--json", ".", cwd=tmp_path)
    data = json.loads(j.stdout)
    assert set(data) == {"findings", "skipped", "errors", "binary", "scanned"}
    assert data["binary"] == 5 and data["scanned"] == 1 and data["errors"] == []
    assert value.encode() not in r.stdout + r.stderr + j.stdout + j.stderr


@needs_git
def test_cli_scan_staged_blocks_a_large_blob(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "huge.log").write_text("ok\n" * 800_000 + f"t={token(8)}\n")
    git(tmp_path, "add", "huge.log")
    r = run_cli("scan", "--staged", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.decode().startswith("huge.log:800001: github-pat")


def test_cli_put_refuses_a_nul(tmp_path: Path) -> None:
    assert run_cli("init", cwd=tmp_path).returncode == 0
    r = run_cli("put", "insights", "-", cwd=tmp_path, stdin=b"a line\0with a NUL\n")
    assert r.returncode == 2 and b"control character (U+0000 on line 1)" in r.stderr


def test_a_very_deep_tree_is_walked(tmp_path: Path) -> None:
    deep = str(tmp_path / "top")
    os.mkdir(deep)
    levels = [deep]
    for _ in range(1100):  # deeper than Python's recursion limit
        levels.append(os.path.join(levels[-1], "d"))
        os.mkdir(levels[-1])
    key = Path(levels[-1], "k.txt")
    key.write_text(f"t={token(9)}\n")
    try:
        assert [f.line for f in scan_paths([tmp_path]).findings] == [1]
    finally:  # shutil.rmtree (pytest's cleanup) recurses, and would fail on this tree
        key.unlink()
        for folder in reversed(levels):
            os.rmdir(folder)


# -- folders in a git work tree: what git would commit ------------------------------------


def _found_paths(r: object) -> set[str]:
    out = r.stdout.decode()  # type: ignore[attr-defined]
    return {ln.split(":", 1)[0] for ln in out.splitlines() if ln}


@needs_git
def test_cli_scan_of_a_folder_in_git_follows_gitignore(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "build").mkdir(parents=True)
    (repo / "src").mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("build/\n*.log\n")
    (repo / "build" / "out.txt").write_text(f"token {token(1)}\n")  # ignored folder
    (repo / "debug.log").write_text(f"token {token(2)}\n")  # ignored file
    (repo / "forced.log").write_text(f"token {token(3)}\n")  # ignored, but tracked
    (repo / "src" / "new.py").write_text(f"T = '{token(4)}'\n")  # untracked, not ignored
    (repo / "src" / "blob.bin").write_bytes(b"\0" * 10 + token(5).encode())
    (repo / "gone.txt").write_text("tracked, then deleted from the work tree\n")
    git(repo, "add", "-f", "forced.log", "gone.txt", ".gitignore")
    git(repo, "commit", "-qm", "x")
    (repo / "gone.txt").unlink()

    r = run_cli("scan", ".", cwd=repo)
    assert r.returncode == 1, r.stderr
    assert _found_paths(r) == {"./forced.log", "./src/new.py"}
    assert "note: 1 binary file(s) not scanned" in r.stderr.decode()
    every = run_cli("scan", "--all-files", ".", cwd=repo)
    assert every.returncode == 1, every.stderr
    assert _found_paths(every) == {"./build/out.txt", "./debug.log", "./forced.log",
                                   "./src/new.py"}
    # named explicitly, an ignored file or folder is scanned (as ripgrep does)
    assert _found_paths(run_cli("scan", "debug.log", "build", cwd=repo)) == {
        "debug.log", "build/out.txt"}
    assert _found_paths(run_cli("scan", "src", cwd=repo)) == {"src/new.py"}
    # the library keeps walking everything unless asked
    assert len(scan_paths([repo]).findings) == 4
    assert len(scan_paths([repo], all_files=False).findings) == 2


@needs_git
def test_scan_walks_everything_outside_git_or_without_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / ".gitignore").write_text("*.log\n")
    (repo / "debug.log").write_text(f"token {token(2)}\n")
    nobin = tmp_path / "nobin"  # no git on PATH: the folder is walked whole
    nobin.mkdir()
    r = run_cli("scan", ".", cwd=repo, env={"PATH": str(nobin)})
    assert r.returncode == 1 and _found_paths(r) == {"./debug.log"}, r.stderr
    plain = tmp_path / "plain"  # not a work tree (a .gitignore alone means nothing)
    shutil.copytree(repo, plain, ignore=shutil.ignore_patterns(".git"))
    r = run_cli("scan", ".", cwd=plain, env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert r.returncode == 1 and _found_paths(r) == {"./debug.log"}, r.stderr


@needs_git
def test_scan_lists_submodules_and_nested_repositories_with_their_own_git(
        tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    git(inner, "init", "-q")
    (inner / "keys.txt").write_text(f"token {token(9)}\n")
    (inner / ".gitignore").write_text("*.log\n")
    (inner / "skip.log").write_text(f"token {token(10)}\n")
    git(inner, "add", "keys.txt", ".gitignore")
    git(inner, "commit", "-qm", "i")
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    git(outer, "commit", "-qm", "s")
    nested = outer / "nested"  # an untracked repository inside: git lists it as "nested/"
    nested.mkdir()
    git(nested, "init", "-q")
    (nested / "n.txt").write_text(f"token {token(11)}\n")
    shutil.copytree(inner, outer / "sub", dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git"))
    res = scan_paths([outer], all_files=False)
    assert {f.path.rsplit("/", 2)[-2] + "/" + f.path.rsplit("/", 1)[-1]
            for f in res.findings} == {"sub/keys.txt", "nested/n.txt"}
    clone = tmp_path / "clone"  # its submodule is not checked out: an empty folder
    git(tmp_path, "clone", "-q", str(outer), str(clone))
    res = scan_paths([clone], all_files=False)  # no endless listing of the empty folder
    assert not res.findings and not res.errors and res.scanned == 1  # .gitmodules


@needs_git
@needs_fifo
def test_scan_of_a_hostile_clone_runs_nothing_and_follows_no_link(tmp_path: Path) -> None:
    """A repository's own config could name a file-system monitor program: git runs it for
    `ls-files` unless told not to. Symlinks are reported, FIFOs never opened."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    pwned = tmp_path / "pwned"
    git(repo, "config", "core.fsmonitor", f"touch '{pwned}'; echo")
    outside = tmp_path / "outside.txt"
    outside.write_text(f"token {token(6)}\n")
    (repo / "link.txt").symlink_to(outside)
    os.mkfifo(repo / "pipe")
    (repo / "ok.txt").write_text("fine\n")
    git(repo, "config", "core.fsmonitor", "false")
    assert not pwned.exists()
    git(repo, "add", "ok.txt")  # the hostile setting comes back after this add
    git(repo, "config", "core.fsmonitor", f"touch '{pwned}'; echo")
    r = run_cli("scan", ".", cwd=repo)
    assert not pwned.exists()
    assert r.returncode == 0 and not r.stdout, r.stderr
    assert "skipped ./link.txt: symlink, not followed" in r.stderr.decode()
    git(repo, "ls-files", "--others")  # the setting is live: plain git runs the program
    assert pwned.exists()


def test_scan_redacts_a_credential_in_a_path(tmp_path: Path) -> None:
    """A file may be named after a token: stdout, --json and stderr show its preview only."""
    secret = token(7)
    (tmp_path / f"{secret}.txt").write_text(f"key {token(8)}\n")
    r = run_cli("scan", ".", cwd=tmp_path)
    assert r.returncode == 1
    assert secret not in r.stdout.decode() + r.stderr.decode()
    assert r.stdout.decode().startswith("./ghp_")
    r = run_cli("scan", "--json", ".", cwd=tmp_path)
    assert secret not in r.stdout.decode()
    (tmp_path / f"{secret}.lnk").symlink_to(tmp_path / "nowhere")
    (tmp_path / f"{secret}.txt").unlink()
    r = run_cli("scan", ".", f"missing-{secret}", cwd=tmp_path)
    assert r.returncode == 2
    assert secret not in r.stdout.decode() + r.stderr.decode()
    res = scan_paths([tmp_path])
    assert all(secret not in p for p, _ in res.skipped)


@given(st.lists(st.text(alphabet=string.ascii_letters + "._ ", max_size=8), max_size=3),
       st.sampled_from(["/", "-", "\\", ".", " "]), st.sampled_from(["", "-x", ".txt", "/y"]),
       st.integers(0, 50))
@settings(max_examples=60, deadline=None)
def test_redact_path_leaves_no_token_in_a_path(parts: list[str], sep: str, tail: str,
                                                seed: int) -> None:
    from lean_memory.secrets import redact_path

    secret = token(seed)
    shown = redact_path(sep.join([*parts, secret]) + tail)
    assert secret not in shown and secret[4:20] not in shown
