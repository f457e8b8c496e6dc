"""Render time of each ``lean-memory serve`` page at 1k and 10k entries, with the real wiring.

    python bench/page/bench.py [--sizes 1k,10k] [--runs 7] [--asks 1000]

Builds a deterministic memory with ``store_bench.build_memory`` (the generator of
bench/speed: 12 standing rules, the rest over the five other shards), a global store (rules
and notes), ``--asks`` asks over many sessions (one request asked in 5 sessions: a proposal
waits), and serves it as ``lean-memory serve`` does (project and global layers, the learning
loop; :func:`lean_memory.commands.serve.project_app`) in a thread on an ephemeral port. Times
whole HTTP requests (http.client, keep-alive off, as a browser's page load): one cold request
per page first (reported apart: it builds the search index and the withholding verdicts),
then the median of ``--runs`` warm ones, and the process's CPU time (user+sys, server and
client) per warm request; the ratios are to the entry page's, in the same run. Nothing here
is imported by the package; the data folders are temporary (the real home is never read).
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path[:0] = [str(REPO), str(REPO / "bench")]

from store_bench import build_memory  # noqa: E402

from lean_memory import learn  # noqa: E402
from lean_memory.commands.serve import project_app  # noqa: E402
from lean_memory.layers import global_memory  # noqa: E402
from lean_memory.serve import App, make_server  # noqa: E402
from lean_memory.store import Memory  # noqa: E402

PROMPT = "why+does+parse_config+fail+with+ECONNREFUSED+after+the+upgrade+to+3.11"


def fetch(app: App, path: str) -> tuple[int, int, float]:
    began = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=60)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{app.port}",
                                       "Cookie": f"lean_memory_{app.port}={app.token}"})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, len(body), (time.perf_counter() - began) * 1000


def pages(app: App) -> list[tuple[str, str]]:
    mem = app.layers[0][1]
    big = max(mem.shards, key=lambda s: mem.status().shards[mem.shards.index(s)].entries)
    some = mem.entries(big)[len(mem.entries(big)) // 2].id
    return [("overview", "/"), (f"shard ({big}, page 1, 100 entries)", f"/shard/project/{big}"),
            ("shard, last page", f"/shard/project/{big}?page=999999"),
            ("archive", f"/shard/project/{big}?archive=1"),
            ("entry", f"/entry/project/{some}"), ("search", f"/search?q={PROMPT}"),
            ("context", "/context"), ("context + prompt", f"/context?q={PROMPT}"),
            ("history", "/history"), ("proposals", "/proposals")]


def add_layers(tmp: Path, mem: Memory, asks: int) -> None:
    """A global store and ``asks`` asks of this project over asks/5 sessions."""
    g = global_memory(create=True)
    g.put_entry("conventions", "Use uv to install dependencies, never pip.", date="2026-01-02")
    g.put_entry("quirks", "The corporate proxy blocks port 8443; use 443.", date="2026-01-03")
    for i in range(asks):
        session = f"s{i // 5:04d}"
        day = 1 + (i // 5) % 28
        text = ("always run the formatter before committing" if i % 5 == 0 and i < 25
                else f"why does parse_config fail on input {i} after the upgrade")
        learn.record(mem, session, text, f"2026-03-{day:02d}T{10 + i % 5:02d}:00:00Z")
    learn.proposals(mem)  # the matcher once, as the background learner runs it


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1k,10k")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--asks", type=int, default=1000)
    args = ap.parse_args()
    for size in args.sizes.split(","):
        n = int(float(size.lower().rstrip("k")) * 1000) if size.lower().endswith("k") else int(size)
        with tempfile.TemporaryDirectory() as tmp:
            os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
            os.environ["LEAN_MEMORY_GLOBAL"] = str(Path(tmp) / "global")
            mem = build_memory(Path(tmp) / "proj", n, rules=12)
            add_layers(Path(tmp), mem, args.asks)
            app = project_app(mem)  # as `serve` makes it: the global store looked up per load
            began = time.perf_counter()
            server = make_server(app, 0)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            first = fetch(app, "/style.css")[2]
            start_ms = (time.perf_counter() - began) * 1000
            print(f"\n## {n:,} entries: server up and first answer in {start_ms:.1f} ms "
                  f"(request {first:.1f} ms)\n")
            rows = []
            for name, path in pages(app):
                status, size_b, cold = fetch(app, path)
                assert status == 200, (name, status)
                cpu0 = time.process_time()
                warm = [fetch(app, path)[2] for _ in range(args.runs)]
                cpu = (time.process_time() - cpu0) * 1000 / args.runs
                rows.append((name, size_b, cold, statistics.median(warm), max(warm), cpu))
            entry = next(r for r in rows if r[0] == "entry")
            print(f"{learn.pending(mem)} proposal(s) waiting; {args.asks:,} asks\n")
            print("| page | bytes | cold ms | warm median ms | warm max ms | CPU ms | "
                  "x entry (wall) | x entry (CPU) |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|")
            for name, size_b, cold, med, top, cpu in rows:
                print(f"| {name} | {size_b:,} | {cold:.1f} | {med:.1f} | {top:.1f} | "
                      f"{cpu:.1f} | {med / entry[3]:.1f} | {cpu / entry[5]:.1f} |")
            server.shutdown()
            server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
