"""The two hashes lean_memory uses: ``hashlib``'s, loaded the cheap way when that is safe.

``import hashlib`` loads OpenSSL first: ~8-15 ms of every process start on this project's
machine, against ~0.3 ms for CPython's built-in BLAKE2 and SHA-256 modules, which give the
same digests (``python -X importtime``, see the CHANGELOG). Those modules are private: not
there on PyPy, renamed in 3.12 (``_sha256`` became ``_sha2``), free to change. So they are
used only on CPython, only when they import, and only when they give the known answers
below; anything else falls back to ``hashlib``, the stable API.

``sha256`` (entry ids made for a put or a hand-written entry) is loaded when first asked
for (``_hash.sha256``, or ``from ._hash import sha256``): a prompt or a query never needs
it, and its module is one more shared library to load (ADR 0039).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not typing.TYPE_CHECKING: importing typing costs more than this module
    from typing import Any

# (algorithm, input, digest_size) -> hex digest, from hashlib (RFC 6234 / RFC 7693 vectors)
_SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
_BLAKE2B_16_ABC = "cf4ab791c62b8d2b2109c90275287816"


def _builtin_blake2b() -> Any:
    """CPython's built-in blake2b, or None when it is not safe to use."""
    if sys.implementation.name != "cpython":
        return None
    try:
        from _blake2 import blake2b
        known = blake2b(b"abc", digest_size=16).hexdigest() == _BLAKE2B_16_ABC
    except Exception:  # gone, or a private API that changed its signature
        return None
    return blake2b if known else None


def _builtin_sha256() -> Any:
    """CPython's built-in sha256, or None when it is not safe to use."""
    if sys.implementation.name != "cpython":
        return None
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return None
    try:
        known = sha256(b"abc").hexdigest() == _SHA256_ABC
    except Exception:  # a private API that changed its signature
        return None
    return sha256 if known else None


if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    blake2b = _builtin_blake2b()
    if blake2b is None:
        from hashlib import blake2b

    def __getattr__(name: str) -> Any:
        if name != "sha256":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        found = _builtin_sha256()
        if found is None:
            from hashlib import sha256 as found
        globals()["sha256"] = found
        return found

__all__ = ["blake2b", "sha256"]
