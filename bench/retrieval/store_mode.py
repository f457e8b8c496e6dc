"""Quality measured through the public API: a real memory per corpus, ``Memory.search``.

Each corpus becomes a memory in a temporary directory (one entry per document, put with
``put_entry``; LoCoMo turns keep their session date), then every query goes through
``Memory.search(query, k=10)``. Titles are left to the store (``title=None``: the first line).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import datetime

from common import Corpus

import lean_memory
from lean_memory.errors import LeanMemoryError, QueryError


def _date(raw: str | None) -> str:
    if not raw:
        return "2024-01-01"
    return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%d")


STATS = {"docs": 0, "refused": 0, "put_s": 0.0}


def store_ranker(shard: str = "insights") -> Callable[[Corpus], Callable[[str], list[int]]]:
    def make(corpus: Corpus) -> Callable[[str], list[int]]:
        tmp = tempfile.TemporaryDirectory(prefix="lm-bench-")
        mem = lean_memory.Memory(tmp.name)
        mem.init()
        (mem.agents_dir / "config.toml").write_text(
            "[memory]\ntoken_budget = 10000000\nmax_entry_tokens = 1000000\n", encoding="utf-8"
        )
        mem = lean_memory.Memory(tmp.name)
        number: dict[str, int] = {}
        t0 = time.perf_counter()
        for i, d in enumerate(corpus.docs):
            STATS["docs"] += 1
            try:
                entry = mem.put_entry(shard, d["text"], date=_date(d.get("date")), new=True)
            except LeanMemoryError:
                STATS["refused"] += 1
                continue
            number[entry.id] = i
        STATS["put_s"] += time.perf_counter() - t0

        def search(q: str) -> list[int]:
            try:
                hits = mem.search(q, k=10)
            except QueryError:
                return []
            return [number[h.entry.id] for h in hits]

        search.tmp = tmp  # type: ignore[attr-defined]  # keep the directory alive
        return search

    return make
