"""The CLI's ``get --query`` answers exactly what the library API answers (issue 24).

The hot path reads caches and renders without building what the API builds; whatever it
does, ``python -m lean_memory get --query Q [-k K] [--json]`` must print the hits of
``Memory.search(Q, k=K)``: the same entries in the same order with the same scores, and
the text ``render_hits`` makes of them. Random memories (put through the API, a few dated
the same day so ties matter) and random queries, in fresh processes, the cache cold then
warm. Catches a CLI that ranks, breaks ties, rounds or renders differently from the API
(e.g. a pruned or re-tokenised query path that drifts from the library's).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lean_memory
from lean_memory.errors import QueryError
from lean_memory.search import render_hits

from .conftest import run_cli

_VOCAB = ["parse_config", "ECONNREFUSED", "upgrade", "3.11", "docker", "build", "cache",
          "lib/vault/digest.js", "HTTPServer", "parseConfig", "timeout", "pytest", "hangs",
          "import", "token", "method", "option", "the", "after", "fails", "retry", "E0502",
          "kebab-case", "os.path.join", "migration", "schema", "lock", "café", "naïve"]
_SHARDS = ["failures", "insights", "conventions", "quirks", "corrections"]
sentences = st.lists(st.sampled_from(_VOCAB), min_size=2, max_size=12).map(" ".join)
memories = st.lists(st.tuples(st.sampled_from(_SHARDS), sentences), min_size=1, max_size=14)
queries = st.lists(st.sampled_from([*_VOCAB, "nothingmatches"]), min_size=1,
                   max_size=5).map(" ".join)


def _cli(root: Path, query: str, k: int, *extra: str, code: int = 0) -> bytes:
    proc = run_cli("get", "--query", query, "-k", str(k), *extra, cwd=root)
    assert proc.returncode == code, proc.stderr.decode(errors="replace")[-300:]
    return proc.stdout if code == 0 else proc.stderr


@given(memories, st.lists(queries, min_size=1, max_size=3), st.integers(1, 6))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_get_query_prints_what_search_returns(entries: list[tuple[str, str]],
                                              qs: list[str], k: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        mem = lean_memory.Memory(root)
        mem.init()
        for shard, text in entries:
            mem.put_entry(shard, text, new=True)
        for query in qs:
            for _ in range(2):  # the first run may build the search cache, the second reads it
                try:
                    hits = lean_memory.Memory(root).search(query, k=k)
                except QueryError as exc:  # only stop words: both refuse, with one message
                    assert str(exc) in _cli(root, query, k, code=2).decode()
                    break
                assert _cli(root, query, k).decode() == render_hits(hits)
                shown = json.loads(_cli(root, query, k, "--json"))
                assert [(h["id"], h["shard"], h["score"]) for h in shown] == \
                    [(h.entry.id, h.shard, round(h.score, 6)) for h in hits]
