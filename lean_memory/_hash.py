"""The two hashes lean_memory uses: ``hashlib``'s, loaded the cheap way when that is safe.

``import hashlib`` loads OpenSSL first: ~8-15 ms of every process start on this project's
machine, against ~0.3 ms for CPython's built-in BLAKE2 and SHA-256 modules, which give the
same digests (``python -X importtime``, see the CHANGELOG). Those modules are private: not
there on PyPy, renamed in 3.12 (``_sha256`` became ``_sha2``), free to change. So they are
used only on CPython, only when they import, and only when they give the known answers
below; anything else falls back to ``hashlib``, the stable API.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # not typing.TYPE_CHECKING: importing typing costs more than this module
    from typing import Any

# (algorithm, input, digest_size) -> hex digest, from hashlib (RFC 6234 / RFC 7693 vectors)
_SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
_BLAKE2B_16_ABC = "cf4ab791c62b8d2b2109c90275287816"


def _builtin() -> tuple[Any, Any] | None:
    """CPython's built-in (blake2b, sha256), or None when they are not safe to use."""
    if sys.implementation.name != "cpython":
        return None
    try:
        from _blake2 import blake2b
    except ImportError:
        return None
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return None
    try:
        known = (sha256(b"abc").hexdigest() == _SHA256_ABC and
                 blake2b(b"abc", digest_size=16).hexdigest() == _BLAKE2B_16_ABC)
    except Exception:  # a private API that changed its signature
        return None
    return (blake2b, sha256) if known else None


if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    _found = _builtin()
    if _found is None:
        from hashlib import blake2b, sha256
    else:
        blake2b, sha256 = _found

__all__ = ["blake2b", "sha256"]
