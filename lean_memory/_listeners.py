"""Who hears a retriever's note (a retriever searched without, and why): the agent hook
logs them. Apart from :mod:`lean_memory.retrievers` so that the hook can listen without
importing it (typing, the plugin machinery) on the built-in BM25's path."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable

listeners: list[Callable[[str], None]] = []
