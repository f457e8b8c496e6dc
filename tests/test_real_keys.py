"""Keys made by real tools at test time are found, raw and pasted the ways an agent pastes them.

Every key is generated here (ssh-keygen, openssl, gpg, and puttygen / age-keygen when
installed), so the repository holds none. Assertions and failure messages name only the tool,
the key kind and the paste form, never key material.

``python tests/test_real_keys.py`` prints the found / total table per tool and form.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_memory.secrets import scan_text

ROOT = Path(__file__).resolve().parent.parent
KEY_RULES = frozenset({"private-key", "age-secret-key"})
PASS = "-".join(["correct", "horse", "7"])  # a passphrase for the encrypted variants


# ---------------------------------------------------------------------------------------------
# The ways a key is pasted into a note, a chat or a config file.


def _lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def _indent(text: str, blank: str) -> str:
    return "Key:\n\n" + "\n".join("    " + ln if ln else blank for ln in _lines(text)) + "\n"


FORMS: dict[str, Callable[[str], str]] = {
    "raw": lambda t: t,
    "fence": lambda t: "Here it is:\n\n```\n" + t.rstrip("\n") + "\n```\n",
    "indent": lambda t: _indent(t, ""),
    "indent-ws": lambda t: _indent(t, "    "),
    "json": lambda t: json.dumps({"private_key": t}) + "\n",
    "json2": lambda t: json.dumps({"config": json.dumps({"private_key": t})}) + "\n",
    "quoted": lambda t: "\n".join(("> " + ln).rstrip() for ln in _lines(t)) + "\n",
    "crlf": lambda t: t.replace("\n", "\r\n"),
    "one-line": lambda t: " ".join(ln for ln in _lines(t) if ln.strip()) + "\n",
    "joined": lambda t: "".join(_lines(t)) + "\n",
    "cut": lambda t: "\n".join(_lines(t)[:5]) + "\n",
    "yaml": lambda t: "ssh:\n  key: |\n" + "".join(f"    {ln}\n" for ln in _lines(t)),
    "strings": lambda t: "KEY = (\n" + "".join(f'    "{ln}\\n"\n' for ln in _lines(t)) + ")\n",
}


def _expected(key: Key, form: str) -> bool:
    """Whether the form still holds private material (a .ppk cut before its private lines
    holds only the public part)."""
    if form == "cut" and key.text.startswith("PuTTY-User-Key-File"):
        return re.search(r"Private-Lines: \d+\n\S", FORMS[form](key.text)) is not None
    return True


def found(text: str) -> bool:
    return any(f.rule in KEY_RULES for f in scan_text(text))


# ---------------------------------------------------------------------------------------------
# Key generation: once per session, each tool only when a test asks for its keys.


@dataclass(frozen=True)
class Key:
    tool: str
    name: str
    text: str


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> bytes:
    r = subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    if r.returncode != 0:
        # Only the command and the tool's own message: neither holds key material.
        raise AssertionError(f"{args[0]} {args[1:3]} failed: {r.stderr[-300:]!r}")
    return r.stdout


SSH_TYPES = {
    "ed25519": ["-t", "ed25519"],
    "rsa2048": ["-t", "rsa", "-b", "2048"],
    "rsa4096": ["-t", "rsa", "-b", "4096"],
    "ecdsa256": ["-t", "ecdsa", "-b", "256"],
    "ecdsa384": ["-t", "ecdsa", "-b", "384"],
    "ecdsa521": ["-t", "ecdsa", "-b", "521"],
}
SSH_FORMATS = ("RFC4716", "PEM", "PKCS8")  # RFC4716 is ssh-keygen's name for its own format


def _ssh_keygen(d: Path) -> Iterator[Key]:
    for kind, args in SSH_TYPES.items():
        base = d / kind
        _run(["ssh-keygen", "-q", *args, "-N", "", "-C", "t@h", "-f", str(base)], d)
        for fmt in SSH_FORMATS:
            for pw in ("", PASS):
                out = d / f"{kind}-{fmt}-{bool(pw)}"
                shutil.copy(base, out)
                out.chmod(0o600)
                _run(
                    [
                        "ssh-keygen",
                        "-q",
                        "-p",
                        "-a",
                        "2",
                        "-P",
                        "",
                        "-N",
                        pw,
                        "-m",
                        fmt,
                        "-f",
                        str(out),
                    ],
                    d,
                )
                label = "openssh" if fmt == "RFC4716" else fmt.lower()
                yield Key(
                    "ssh-keygen", f"{kind}-{label}-{'pass' if pw else 'plain'}", out.read_text()
                )


OPENSSL_ALGS = {
    "rsa": ["-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
    "ec": ["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"],
    "ed25519": ["-algorithm", "Ed25519"],
    "x25519": ["-algorithm", "X25519"],
}


def _openssl(d: Path) -> Iterator[Key]:
    enc = ["-aes256", "-passout", "pass:" + PASS]
    for alg, args in OPENSSL_ALGS.items():
        plain = _run(["openssl", "genpkey", *args], d).decode()
        yield Key("openssl", f"{alg}-pkcs8", plain)
        (d / alg).write_text(plain)
        yield Key(
            "openssl", f"{alg}-aes256", _run(["openssl", "pkey", "-in", alg, *enc], d).decode()
        )
        if alg in ("rsa", "ec"):  # the 25519 curves have no traditional format
            trad = ["openssl", "pkey", "-in", alg, "-traditional"]
            yield Key("openssl", f"{alg}-traditional", _run(trad, d).decode())
            yield Key("openssl", f"{alg}-traditional-aes256", _run([*trad, *enc], d).decode())


def _pkcs12(d: Path) -> Iterator[Key]:
    _run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
          "-out", "p.key"], d)  # fmt: skip
    _run(["openssl", "req", "-x509", "-key", "p.key", "-subj", "/CN=t", "-days", "2",
          "-out", "p.crt"], d)  # fmt: skip
    _run(["openssl", "pkcs12", "-export", "-inkey", "p.key", "-in", "p.crt",
          "-passout", "pass:" + PASS, "-out", "p.p12"], d)  # fmt: skip
    if shutil.which("base64"):
        yield Key("pkcs12", "base64-wrapped", _run(["base64", "p.p12"], d).decode())
        yield Key("pkcs12", "base64-one-line", _run(["base64", "-w0", "p.p12"], d).decode())
    yield Key("pkcs12", "openssl-base64", _run(["openssl", "base64", "-in", "p.p12"], d).decode())


def _gpg_env(home: Path) -> dict[str, str]:
    return {**os.environ, "GNUPGHOME": str(home)}


def _gpg(d: Path) -> Iterator[Key]:
    home = d / "gnupg"
    home.mkdir(mode=0o700)
    env = _gpg_env(home)
    base = ["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback"]
    try:
        for name, algo, pw in (("ed25519", "ed25519", ""), ("rsa2048", "rsa2048", PASS)):
            uid = f"{name} <{name}@test.invalid>"
            _run([*base, "--passphrase", pw, "--quick-gen-key", uid, algo, "default", "0"], d, env)
            out = _run([*base, "--passphrase", pw, "--armor", "--export-secret-keys", uid], d, env)
            yield Key("gpg", f"{name}-{'pass' if pw else 'plain'}", out.decode())
    finally:
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True, check=False)


def _puttygen(d: Path) -> Iterator[Key]:
    (d / "pw").write_text(PASS + "\n")
    (d / "empty").write_text("")
    for kind, args in (("ed25519", ["-t", "ed25519"]), ("rsa2048", ["-t", "rsa", "-b", "2048"])):
        for version in ("2", "3"):
            pw = "pw" if kind == "rsa2048" else "empty"
            out = f"{kind}-v{version}.ppk"
            _run(["puttygen", *args, "-q", "-o", out, "--new-passphrase", pw,
                  "--ppk-param", f"version={version}"], d)  # fmt: skip
            label = f"{kind}-v{version}-{'pass' if pw == 'pw' else 'plain'}"
            yield Key("puttygen", label, (d / out).read_text())
            if kind == "rsa2048" and version == "3":  # ssh.com's format holds RSA and DSA only
                _run(["puttygen", out, "--old-passphrase", pw, "-O", "private-sshcom",
                      "-o", "sshcom.key"], d)  # fmt: skip
                yield Key("puttygen", "rsa2048-sshcom", (d / "sshcom.key").read_text())


def _age(d: Path) -> Iterator[Key]:
    _run(["age-keygen", "-o", "age.txt"], d)
    yield Key("age-keygen", "x25519", (d / "age.txt").read_text())


TOOLS: dict[str, tuple[str, Callable[[Path], Iterator[Key]]]] = {
    "ssh-keygen": ("ssh-keygen", _ssh_keygen),
    "openssl": ("openssl", _openssl),
    "pkcs12": ("openssl", _pkcs12),
    "gpg": ("gpg", _gpg),
    "puttygen": ("puttygen", _puttygen),  # Debian package putty-tools
    "age-keygen": ("age-keygen", _age),  # Debian package age
}

# The key names each tool makes, known before generation so that tests can be listed.
# fmt: off
NAMES: dict[str, list[str]] = {
    "ssh-keygen": [f"{k}-{f}-{p}" for k in SSH_TYPES for f in ("openssh", "pem", "pkcs8")
                   for p in ("plain", "pass")],
    "openssl": [f"{a}-{v}" for a in OPENSSL_ALGS for v in ("pkcs8", "aes256")]
    + [f"{a}-{v}" for a in ("rsa", "ec") for v in ("traditional", "traditional-aes256")],
    "pkcs12": ["base64-wrapped", "base64-one-line", "openssl-base64"],
    "gpg": ["ed25519-plain", "rsa2048-pass"],
    "puttygen": [f"{k}-v{v}-{p}" for k, p in (("ed25519", "plain"), ("rsa2048", "pass"))
                 for v in ("2", "3")] + ["rsa2048-sshcom"],
    "age-keygen": ["x25519"],
}
# fmt: on


class Keyring:
    """Generates a tool's keys on first use, in a folder that lives for the session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._keys: dict[str, dict[str, Key]] = {}

    def get(self, tool: str, name: str) -> Key:
        if tool not in self._keys:
            binary, make = TOOLS[tool]
            if shutil.which(binary) is None:
                pytest.skip(f"{binary} is not installed")
            d = self.folder / tool
            d.mkdir()
            self._keys[tool] = {k.name: k for k in make(d)}
        if name not in self._keys[tool]:
            pytest.skip(f"{tool} did not make {name} here (base64 missing?)")
        return self._keys[tool][name]


@pytest.fixture(scope="session")
def keyring(tmp_path_factory: pytest.TempPathFactory) -> Keyring:
    return Keyring(tmp_path_factory.mktemp("real-keys"))


CASES = [(tool, name) for tool, names in NAMES.items() for name in names]


@pytest.mark.parametrize(("tool", "name"), CASES, ids=[f"{t}:{n}" for t, n in CASES])
def test_real_key_found_in_every_form(keyring: Keyring, tool: str, name: str) -> None:
    key = keyring.get(tool, name)
    missed = [
        form for form, paste in FORMS.items() if _expected(key, form) and not found(paste(key.text))
    ]
    assert not missed, f"{tool} {name} missed in forms {missed}"


# ---------------------------------------------------------------------------------------------
# Without the tools: the same shapes built from random bytes, so CI always checks the forms.

_OPENSSH_PLAIN = b"openssh-key-v1\0" + b"\0\0\0\4none" * 2 + b"\0\0\0\0\0\0\0\1"


def _wrap(data: bytes, width: int) -> str:
    b64 = base64.b64encode(data).decode()
    return "\n".join(b64[i : i + width] for i in range(0, len(b64), width))


def _pfx_head(n: int) -> bytes:
    """The DER start of a PKCS#12 PFX of about ``n`` bytes: version 3, then id-data [0]."""
    oid_data = bytes.fromhex("06092a864886f70d010701")
    inner = n - 30
    head = b"\x30\x82" + n.to_bytes(2, "big") + b"\x02\x01\x03"
    return head + b"\x30\x82" + inner.to_bytes(2, "big") + oid_data + b"\xa0\x82" + b"\x07\xc0"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=st.binary(min_size=120, max_size=600),
    shape=st.sampled_from(["openssh", "pkcs8", "pgp", "pkcs12", "ppk"]),
    form=st.sampled_from(sorted(FORMS)),
)
def test_synthetic_key_found_in_every_form(body: bytes, shape: str, form: str) -> None:
    if len(set(body)) < 40:
        return  # not random enough to be key material (hypothesis likes runs of zeros)
    if shape == "openssh":
        text = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_wrap(_OPENSSH_PLAIN + body, 70)}\n"
        text += "-----END OPENSSH PRIVATE KEY-----\n"
    elif shape == "pkcs8":
        text = f"-----BEGIN PRIVATE KEY-----\n{_wrap(body, 64)}\n-----END PRIVATE KEY-----\n"
    elif shape == "pgp":
        text = "-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: t\n\n" + _wrap(body, 64)
        text += "\n-----END PGP PRIVATE KEY BLOCK-----\n"
    elif shape == "pkcs12":
        text = _wrap(_pfx_head(2000) + body, 76) + "\n"
    else:
        priv = _wrap(body, 64)
        text = "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: t\n"
        text += f"Private-Lines: {priv.count(chr(10)) + 1}\n{priv}\nPrivate-MAC: 00\n"
    assert found(FORMS[form](text)), f"{shape} missed in form {form}"


# ---------------------------------------------------------------------------------------------
# Public halves of the same keys are not credentials.


def _public_material(d: Path) -> Iterator[tuple[str, str]]:
    if shutil.which("ssh-keygen"):
        _run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "t@h", "-f", "s"], d)
        yield "ssh .pub", (d / "s.pub").read_text()
        yield "ssh RFC4716 public", _run(["ssh-keygen", "-e", "-f", "s.pub"], d).decode()
    if shutil.which("openssl"):
        _run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
              "-out", "k"], d)  # fmt: skip
        yield "openssl public", _run(["openssl", "pkey", "-in", "k", "-pubout"], d).decode()
        yield (
            "openssl rsa public",
            _run(["openssl", "rsa", "-in", "k", "-RSAPublicKey_out"], d).decode(),
        )
        yield "certificate", _run(["openssl", "req", "-x509", "-key", "k", "-subj", "/CN=t",
                                   "-days", "2"], d).decode()  # fmt: skip
    if shutil.which("gpg"):
        home = d / "gnupg"
        home.mkdir(mode=0o700)
        env = _gpg_env(home)
        base = ["gpg", "--batch", "--quiet", "--pinentry-mode", "loopback", "--passphrase", ""]
        try:
            _run(
                [*base, "--quick-gen-key", "p <p@test.invalid>", "ed25519", "default", "0"], d, env
            )
            yield (
                "gpg public",
                _run([*base, "--armor", "--export", "p@test.invalid"], d, env).decode(),
            )
        finally:
            subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True, check=False)
    if shutil.which("puttygen"):
        (d / "empty").write_text("")
        _run(["puttygen", "-t", "ed25519", "-q", "-o", "p.ppk", "--new-passphrase", "empty"], d)
        yield "putty public", _run(["puttygen", "p.ppk", "-O", "public"], d).decode()
        yield (
            "putty public-openssh",
            _run(["puttygen", "p.ppk", "-O", "public-openssh"], d).decode(),
        )
    if shutil.which("age-keygen"):
        _run(["age-keygen", "-o", "a.txt"], d)
        yield "age recipient", _run(["age-keygen", "-y", "a.txt"], d).decode()


def test_public_material_is_not_a_finding(tmp_path: Path) -> None:
    flagged = []
    checked = 0
    for what, text in _public_material(tmp_path):
        for form, paste in FORMS.items():
            checked += 1
            if scan_text(paste(text)):
                flagged.append(f"{what} {form}")
    if not checked:
        pytest.skip("no key tool installed")
    assert not flagged, f"public material flagged: {flagged}"


# ---------------------------------------------------------------------------------------------
# End to end: the CLI refuses a generated key and the hook's scan fails on it.


def _cli(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("LEAN_MEMORY_ROOT", None)
    return subprocess.run([sys.executable, "-m", "lean_memory", *args], cwd=cwd, input=stdin,
                          capture_output=True, env=env, timeout=60, check=False)  # fmt: skip


def _leaks(output: bytes, key: str) -> bool:
    """Whether any 16-character piece of the key's body shows up in the output."""
    out = output.decode("utf-8", "replace")
    pieces = {ln.strip()[i : i + 16] for ln in key.splitlines() if "-----" not in ln
              for i in range(0, max(0, len(ln.strip()) - 15), 8)}  # fmt: skip
    return any(p in out for p in pieces if len(p) == 16)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts}  # fmt: skip


def test_put_refuses_a_generated_key_and_scan_fails(keyring: Keyring, tmp_path: Path) -> None:
    key = keyring.get("ssh-keygen", "ed25519-openssh-plain").text
    assert _cli("init", cwd=tmp_path).returncode == 0
    before = _files(tmp_path / ".agents")
    r = _cli("put", "quirks", "-", cwd=tmp_path, stdin=key.encode())
    assert r.returncode == 1, f"put exit {r.returncode}"
    assert _files(tmp_path / ".agents") == before, "put wrote something"
    assert not _leaks(r.stdout + r.stderr, key), "put printed key material"
    (tmp_path / "id_ed25519").write_text(key)
    r = _cli("scan", "id_ed25519", cwd=tmp_path)
    assert r.returncode == 1, f"scan exit {r.returncode}"
    assert not _leaks(r.stdout + r.stderr, key), "scan printed key material"


# ---------------------------------------------------------------------------------------------
# `python tests/test_real_keys.py`: the found / total table per tool and form (counts only).


def main() -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        ring = Keyring(Path(tmp))
        print("tool        " + " ".join(f"{f:>9}" for f in FORMS))
        for tool, names in NAMES.items():
            hits = dict.fromkeys(FORMS, 0)
            totals = dict.fromkeys(FORMS, 0)
            try:
                keys = [ring.get(tool, n) for n in names]
            except pytest.skip.Exception as exc:
                print(f"{tool:<12}skipped: {exc}")
                continue
            for key in keys:
                for form, paste in FORMS.items():
                    if _expected(key, form):
                        totals[form] += 1
                        hits[form] += found(paste(key.text))
            print(f"{tool:<12}" + " ".join(f"{hits[f]:>4}/{totals[f]:<4}" for f in FORMS))


if __name__ == "__main__":
    main()
