"""No error message echoes a secret: every path that repeats user input, run as a real
`python -m lean_memory` subprocess; the secret must be in no byte of stdout or stderr.

The secrets are built at run time, so this file scans clean; assertions never show them.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory import InvalidEntry, LeanMemoryError, Memory, SecretFound, UnknownShard
from lean_memory.errors import ConfigError, redact_message
from lean_memory.secrets import redact, scan_text

from .conftest import run_cli

AN = string.ascii_letters + string.digits
_R = random.Random()


def _github() -> str:
    return "ghp" + "_" + "".join(_R.choice(AN) for _ in range(36))


def _aws() -> str:
    # no vowels: a random key never spells a placeholder word ("AKIAYOUR…" reads as <YOUR_KEY>)
    return "AK" + "IA" + "".join(_R.choice("BCDFGHJKLMNPQRSTVWXZ234567") for _ in range(16))


def _password() -> str:
    return "pass" + "word=" + "Tulip-Rocket-" + "".join(_R.choice(string.digits) for _ in range(4))


def _gitlab() -> str:
    return "glp" + "at-" + "".join(_R.choice(AN) for _ in range(20))


SECRETS: dict[str, Callable[[], str]] = {
    "github": _github, "aws": _aws, "password": _password, "gitlab": _gitlab,
}

# Each case: the argv for a secret S. Every one repeats S in an error (argparse or ours).
CASES: dict[str, Callable[[str], list[str]]] = {
    "unquoted put text": lambda s: ["put", "failures", "the", "token", "is", s, "now"],
    "--date": lambda s: ["put", "failures", "x", "--date", s],
    "--date with a prefix": lambda s: ["put", "failures", "x", "--date", f"2026-01-01 {s}"],
    "--supersedes": lambda s: ["put", "failures", "x", "--supersedes", s],
    "put shard name": lambda s: ["put", s, "x"],
    "get shard name": lambda s: ["get", s],
    "get --archive shard": lambda s: ["get", s, "--archive"],
    "-k": lambda s: ["get", "-k", s],
    "--tag": lambda s: ["put", "failures", "x", "--tag", s],
    "--tag with a control char": lambda s: ["put", "failures", "x", "--tag", s + "\x01"],
    "--tag after a control char": lambda s: ["put", "failures", "x", "--tag", "x\x01" + s],
    "--tag in colour": lambda s: ["put", "failures", "x", "--tag", f"\x1b[1;31m{s}\x1b[0m"],
    "--title": lambda s: ["put", "failures", "x", "--title", s],
    "--title with a control char": lambda s: ["put", "failures", "x", "--title", s + "\x02"],
    "command": lambda s: [s],
    "hook event": lambda s: ["hook", s],
    "init --agent": lambda s: ["init", "--agent", s],
    "unknown option": lambda s: ["status", f"--{s}"],
    "extra argument": lambda s: ["compact", "--dry-run", s],
    "scan a missing path": lambda s: ["scan", s],
    "--root": lambda s: ["--root", s, "get"],
    "get --digest": lambda s: ["get", "--digest", s, "-k", "x"],
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("no-echo")
    assert run_cli("init", "--no-git", cwd=root).returncode == 0
    return root


def _assert_not_echoed(secret: str, out: bytes) -> None:
    # Not `assert secret not in out`: pytest would print both sides, the secret with them.
    body = secret[-16:]  # the part that is not a public prefix
    if secret.encode() in out or body.encode() in out:
        pytest.fail("the secret was echoed (the output is withheld from this message)")


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_errors_never_echo_a_github_token(project: Path, case: str) -> None:
    secret = _github()
    r = run_cli(*CASES[case](secret), cwd=project)
    _assert_not_echoed(secret, r.stdout + r.stderr)
    assert r.returncode in (1, 2), r.returncode
    assert b"error: " in r.stderr and r.stderr.count(b"\n") >= 1


@pytest.mark.parametrize("kind", ["aws", "password", "gitlab"])
@pytest.mark.parametrize("case", ["unquoted put text", "--date", "get shard name", "-k",
                                  "--tag with a control char", "command"])
def test_cli_errors_never_echo_other_kinds(project: Path, case: str, kind: str) -> None:
    secret = SECRETS[kind]()
    r = run_cli(*CASES[case](secret), cwd=project)
    _assert_not_echoed(secret, r.stdout + r.stderr)
    assert r.returncode in (1, 2)


def test_put_text_with_a_nul_from_stdin(project: Path) -> None:
    secret = _github()
    r = run_cli("put", "failures", "-", cwd=project, stdin=f"{secret}\0 and more".encode())
    _assert_not_echoed(secret, r.stdout + r.stderr)
    assert r.returncode == 2 and b"control character" in r.stderr


def test_config_errors_never_echo(tmp_path: Path) -> None:
    assert run_cli("init", "--no-git", cwd=tmp_path).returncode == 0
    secret = _password()
    config = tmp_path / ".agents" / "config.toml"
    for text in (f'[memory]\nshards = ["{secret}"]\n', f'[secrets]\nallow_rules = 3\n# {secret}\n',
                 f'[memory]\n"{secret}" = 1\n'):
        config.write_text(text, encoding="utf-8")
        r = run_cli("status", cwd=tmp_path)
        _assert_not_echoed(secret, r.stdout + r.stderr)
        assert r.returncode == 2 and b"error: " in r.stderr


def test_scan_of_a_file_named_by_a_secret(tmp_path: Path) -> None:
    secret = _github()
    (tmp_path / f"{secret}.txt").write_text("clean\n", encoding="utf-8")
    ok = run_cli("scan", f"{secret}.txt", cwd=tmp_path)
    assert ok.returncode == 0
    (tmp_path / f"{secret}.txt").write_text(f"t={_github()}\n", encoding="utf-8")
    for r in (run_cli("scan", ".", cwd=tmp_path), run_cli("scan", "--json", ".", cwd=tmp_path)):
        assert r.returncode == 1
        # stdout names the file as it is (the user's own path); stderr never repeats it
        _assert_not_echoed(secret, r.stderr)


# -- the API: exceptions carry no secret either -------------------------------------------------


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_exceptions_never_carry_a_secret(mem: Memory, kind: str) -> None:
    secret = SECRETS[kind]()
    attempts: list[Callable[[], object]] = [
        lambda: mem.put_entry("insights", "x", date=secret),
        lambda: mem.put_entry("insights", "x", tags=[secret + "\x01"]),
        lambda: mem.put_entry("insights", "x", tags=["x\x01" + secret]),
        lambda: mem.put_entry("insights", "x", tags=[f"\x1b[31m{secret}\x1b[0m"]),
        lambda: mem.put_entry("insights", "x", tags=[secret]),
        lambda: mem.put_entry("insights", "x", title=secret),
        lambda: mem.put_entry("insights", "x", title=secret + "\n"),
        lambda: mem.put_entry("insights", "x", supersedes=secret),
        lambda: mem.put_entry(secret, "x"),
        lambda: mem.entries(secret),
        lambda: mem.search(secret, shards=(secret,)),
    ]
    for attempt in attempts:
        with pytest.raises(LeanMemoryError) as err:
            attempt()
        assert isinstance(err.value, InvalidEntry | SecretFound | UnknownShard)
        text = " ".join([str(err.value), repr(err.value), *map(str, err.value.args)])
        _assert_not_echoed(secret, text.encode())


def test_every_error_class_redacts_its_message() -> None:
    secret = _github()
    for cls in (LeanMemoryError, InvalidEntry, UnknownShard, ConfigError):
        exc = cls(f"bad value {secret!r} here")
        _assert_not_echoed(secret, str(exc).encode())
        assert str(exc) == "bad value 'ghp_\u2026' here"


def test_redact_keeps_clean_text_and_is_idempotent() -> None:
    clean = "invalid date '2026-13-01': no such day (see `lean-memory --help`)"
    assert redact(clean) == clean == redact_message(clean)
    secrets = _github(), _aws(), _password()
    text = "a {} b {} c\nsecond line {}".format(*secrets)
    once = redact(text)
    for secret in secrets:
        _assert_not_echoed(secret, once.encode())
    assert redact(once) == once and not scan_text(once)
    assert once.startswith("a ghp_\u2026 b AKIA\u2026 c\nsecond line pass" + "word=\u2026")


def test_redact_a_long_message() -> None:
    secret = _github()
    text = "x" * 10_000 + f" {secret} " + "y" * 10_000
    out = redact(text)
    _assert_not_echoed(secret, out.encode())
    assert out == "x" * 10_000 + " ghp_\u2026 " + "y" * 10_000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=300), st.text(max_size=300), st.sampled_from(sorted(SECRETS)),
       st.sampled_from([" ", "\n", "'", '"', "--", "=", ": ", "(", "[", "`", "<", "\t",
                        "\\x01", "\\n", "\\x1b[31m", "\\u2028"]),
       st.sampled_from([" ", "\n", "'", '"', "-", ")", "]", ",", ".", ";", "`", ">", ""]))
def test_redact_removes_a_secret_wherever_a_message_quotes_it(
        before: str, after: str, kind: str, left: str, right: str) -> None:
    secret = SECRETS[kind]()
    out = redact(f"{before} {left}{secret}{right} {after}")
    _assert_not_echoed(secret, out.encode())
    assert redact(out) == out


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=500))
def test_redact_never_raises_and_leaves_text_without_secrets_alone(text: str) -> None:
    out = redact(text)
    if not scan_text(text):
        assert out == text
