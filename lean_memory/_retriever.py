"""The ``Retriever`` protocol, apart from :mod:`lean_memory.retrievers`: defining a
``Protocol`` imports ``typing`` (with ``re``: ~9 ms), which a query with the semantic
extra does not otherwise need (ADR 0036). ``lean_memory.Retriever`` and
``lean_memory.retrievers.Retriever`` load it on first use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from . import format as fmt


@runtime_checkable
class Retriever(Protocol):
    """Anything with a ``name`` that ranks entries for a query."""

    name: str

    def rank(self, query: str, entries: Sequence[fmt.Entry], k: int) -> list[tuple[str, float]]:
        """The best ``(entry id, score)`` pairs, best first, at most ``k``."""
        ...
