"""Render time of each ``lean-memory serve`` page at 1k and 10k entries.

    python bench/page/bench.py [--sizes 1k,10k] [--runs 7]

Builds a deterministic memory with ``store_bench.build_memory`` (the generator of
bench/speed: 12 standing rules, the rest over the five other shards), starts the server in a
thread on an ephemeral port, and times whole HTTP requests (http.client, keep-alive off, as a
browser's page load): one cold request per page first (reported apart: it builds the search
index and the withholding verdicts), then the median of ``--runs`` warm ones. Also the time
from ``make_server`` to the first answered request. Nothing here is imported by the package.
"""

from __future__ import annotations

import argparse
import http.client
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

from lean_memory.serve import App, make_server  # noqa: E402

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
            ("proposals", "/proposals")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1k,10k")
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    for size in args.sizes.split(","):
        n = int(float(size.lower().rstrip("k")) * 1000) if size.lower().endswith("k") else int(size)
        with tempfile.TemporaryDirectory() as tmp:
            mem = build_memory(Path(tmp), n, rules=12)
            app = App([("project", mem)])
            began = time.perf_counter()
            server = make_server(app, 0)
            threading.Thread(target=server.serve_forever, daemon=True).start()
            first = fetch(app, "/style.css")[2]
            start_ms = (time.perf_counter() - began) * 1000
            print(f"\n## {n:,} entries: server up and first answer in {start_ms:.1f} ms "
                  f"(request {first:.1f} ms)\n")
            print("| page | bytes | cold ms | warm median ms | warm max ms |")
            print("|---|---:|---:|---:|---:|")
            for name, path in pages(app):
                status, size_b, cold = fetch(app, path)
                assert status == 200, (name, status)
                warm = [fetch(app, path)[2] for _ in range(args.runs)]
                print(f"| {name} | {size_b:,} | {cold:.1f} | {statistics.median(warm):.1f} | "
                      f"{max(warm):.1f} |")
            server.shutdown()
            server.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
