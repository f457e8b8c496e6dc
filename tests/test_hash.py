"""Issue 25 item 9: ``_hash`` uses CPython's private hash modules only when they are safe
(CPython, importable, giving the known digests), else ``hashlib``; the digests never change."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from lean_memory import _hash

from .conftest import ROOT

PROBE = ("import hashlib; from lean_memory._hash import blake2b, sha256; "
         "print(sha256(b'x').hexdigest(), blake2b(b'x', digest_size=16).hexdigest(), "
         "sha256 is hashlib.sha256)")
WANT = f"{hashlib.sha256(b'x').hexdigest()} {hashlib.blake2b(b'x', digest_size=16).hexdigest()}"


def _run(prelude: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", prelude + PROBE], env=env, capture_output=True,
                         text=True, timeout=60, check=True).stdout.split()
    assert " ".join(out[:2]) == WANT
    return out


def test_same_digests_as_hashlib() -> None:
    for data in (b"", b"abc", "é ## x".encode(), bytes(range(256)) * 10):
        assert _hash.sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        for size in (4, 8, 16, 32, 64):
            assert (_hash.blake2b(data, digest_size=size).hexdigest() ==
                    hashlib.blake2b(data, digest_size=size).hexdigest())


@pytest.mark.parametrize("prelude", [
    # a private module that changed meaning (here: wrong digests)
    "import sys, types; m = types.ModuleType('_sha'); m.sha256 = lambda *a: "
    "__import__('hashlib').md5(b'?'); sys.modules['_sha2'] = sys.modules['_sha256'] = m; ",
    # another implementation (PyPy): its private modules are not CPython's
    "import sys; sys.implementation.name = 'pypy'; ",
    # the modules are gone (hashlib's BLAKE2 is ``_blake2`` itself: it stays)
    "import sys; sys.modules['_sha2'] = sys.modules['_sha256'] = None; ",
])
def test_falls_back_to_hashlib_when_the_private_modules_are_not_safe(prelude: str) -> None:
    """The old module used whatever ``_blake2`` gave, on any interpreter (wrong digests,
    here, and ids that differ between machines)."""
    assert _run(prelude)[2] == "True"


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's own modules")
def test_cpython_does_not_load_openssl_for_the_hashes() -> None:
    """The fast path is kept where it is safe: no ``hashlib`` (OpenSSL, ~10 ms) at start."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", "import lean_memory._hash"],
                       env=env, capture_output=True, text=True, timeout=60, check=True)
    loaded = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines()}
    assert "hashlib" not in loaded and "_hashlib" not in loaded
