"""The semantic extra's rescue path at scale: a prompt BM25 finds fewer than k entries for,
so the embedder ranks the whole memory (issue 22: 311-344 ms at 8,740 entries against the
400 ms deadline).

    PYTHONPATH=. python bench/retrieval/rescue_speed.py [--sizes 10000,100000] [--dim 384]

Each memory holds N hand-written entries over five shards; every entry gets a vector
(deterministic, hashed) in the product's own cache file, and the query is embedded by the
deterministic fake ``/api/embed`` server in this process. Reported: CPU time (user + sys of
this process) of ``find`` with the extra (the rescue), and of BM25 alone on the same
memory, warm (second call onwards, median of ``--repeat``).
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import statistics
import sys
import tempfile
import threading
import time
from array import array
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import embed_server

from lean_memory.embedcmd import _offline, _searchable
from lean_memory.ollama import vectors_path
from lean_memory.search import find
from lean_memory.store import Memory

SHARDS = ("failures", "corrections", "insights", "quirks", "conventions")
WORDS = [f"w{i}" for i in range(5000)]


def build(root: Path, n: int, dim: int, host: str) -> Memory:
    shutil.rmtree(root, ignore_errors=True)
    mem = Memory(root)
    mem.init()
    parts: dict[str, list[str]] = {s: [] for s in SHARDS}
    for i in range(n):
        h = hashlib.blake2b(str(i).encode(), digest_size=8).digest()
        words = " ".join(WORDS[b * 19 % len(WORDS)] for b in h)
        parts[SHARDS[i % len(SHARDS)]].append(f"## entry {i}\n\nnote {i}: {words}\n\n")
    for s in SHARDS:
        path = mem.shard_path(s)
        path.write_text(path.read_text(encoding="utf-8") + "".join(parts[s]), encoding="utf-8")
    (mem.agents_dir / "config.toml").write_text(
        f'[memory]\nretrievers = ["bm25", "ollama"]\nretriever_timeout_ms = 600000\n'
        f'[ollama]\nhost = "{host}"\nmodel = "fake"\nmin_cosine = -1\nembed_on_put = false\n')
    mem = Memory(root)
    mem.index()
    r = _offline(mem, lambda t: [])
    for e in _searchable(mem):
        seed = hashlib.blake2b(e.id.encode(), digest_size=32).digest()
        v = array("f", ((seed[j % 32] - 127.5) * (1 + j % 3) for j in range(dim)))
        r.vectors.add(r.key(e), v)
    r.vectors.save(vectors_path(mem, "fake"), mem.agents_dir)
    return mem


def cpu() -> float:
    return time.process_time()  # user + sys of this process, all threads


def timed(fn: object, repeat: int) -> float:
    out = []
    for _ in range(repeat + 1):
        start = cpu()
        fn()  # type: ignore[operator]
        out.append(cpu() - start)
    return float(statistics.median(out[1:]) * 1000)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    embed_server.FAKE_DIM = args.dim
    server = embed_server.serve(embed_server.fake)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host = f"http://127.0.0.1:{server.server_address[1]}"
    print("| entries | dim | find, BM25 alone (ms CPU) | find with the rescue (ms CPU) | "
          "ratio | wall (ms) | rescued |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="lean-rescue-") as tmp:
        for n in (int(s) for s in args.sizes.split(",")):
            mem = build(Path(tmp) / "m", n, args.dim, host)
            query = "w7 zebra quokka"  # one rare word: BM25 has fewer than k hits
            on = Memory(mem.root)
            off = Memory(mem.root)
            off.__dict__["config"] = type(on.config)(retrievers=("bm25",))
            base = timed(partial(find, off, query, k=10), args.repeat)
            rescue = timed(partial(find, on, query, k=10), args.repeat)
            start = time.perf_counter()
            got = find(on, query, k=10)
            wall = (time.perf_counter() - start) * 1000
            lexical = len(find(off, query, k=10).hits)
            ratio = rescue / max(base, 0.01)
            print(f"| {n:,} | {args.dim} | {base:.0f} | {rescue:.0f} | {ratio:.0f} | "
                  f"{wall:.0f} | {len(got.hits) - lexical} (notes: {len(got.notes)}) |",
                  flush=True)
    server.shutdown()


if __name__ == "__main__":
    main()
