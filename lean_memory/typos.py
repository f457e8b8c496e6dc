"""One typo in a longer word, mended against the memory's own vocabulary (ADR 0030): the
names of :mod:`lean_memory.digest`, where the mending lives since ADR 0056 (the digest is its
only caller, before every prompt, and a module of its own cost each prompt ~0.5 M
instructions to load). Nothing on a hot path imports this module.
"""

from __future__ import annotations

from .digest import (
    _LETTERS,
    _NEAR,
    _ROWS,
    _STRIP,
    MAX_WORDS,
    MIN_LETTERS,
    MIN_SUPPORT,
    SHORT_LETTERS,
    _edits,
    _neighbours,
    mend,
    nearest,
)

__all__ = ["MAX_WORDS", "MIN_LETTERS", "MIN_SUPPORT", "SHORT_LETTERS", "_LETTERS", "_NEAR",
           "_ROWS", "_STRIP", "_edits", "_neighbours", "mend", "nearest"]
