"""The two hashes lean_memory uses, from the interpreter's built-in modules.

``hashlib`` loads OpenSSL first (~5 ms of every process start, measured); the built-in
BLAKE2 and SHA-256 give the same digests.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import blake2b, sha256
else:
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import blake2b
    try:
        from _sha2 import sha256  # 3.12+
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:  # pragma: no cover
            from hashlib import sha256

__all__ = ["blake2b", "sha256"]
