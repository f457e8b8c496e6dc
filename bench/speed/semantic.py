"""The semantic extra's own cost per query (issue 36.4, ADR 0036), in CPU time of the child.

    python bench/speed/semantic.py [--sizes 1k,10k,100k] [--runs 7] [--dim 384] [--work DIR]

For each size, ``run.py``'s deterministic memory is built once (kept under ``--work`` when
given) in two copies: one searched by BM25 alone, one with ``retrievers = ["bm25",
"ollama"]`` and a vector for every entry (a fake ``--dim`` embedder: a deterministic
vector from the text's hash, written straight to the vector file as ``embed`` would).
Then, round by round, each as a fresh process of a clean venv, timed by ``run.Launcher``
(user + system of the child, from ``wait4``):

* ``pass``: ``python -c pass``;
* ``bm25``: ``get --query Q`` on the BM25-only copy;
* ``socket``: ``get --query Q`` with the extra, the query embedded by a fake Ollama server on
  loopback (in this process, so its work is not the child's): the client and the vectors;
* ``injected``: the same with ``Ollama.embed`` replaced in the child by a function (no
  socket): the vector reads and fusion alone.

Medians, and the extra's cost over BM25 (goal: at most +15 ms at 100k). The first untimed
run of each case checks that the extra was used (no note on stderr).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from hashlib import blake2b
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import run  # noqa: E402

from lean_memory import Memory  # noqa: E402
from lean_memory.embedcmd import _searchable  # noqa: E402
from lean_memory.embedding import content_key, document_text  # noqa: E402
from lean_memory.ollama import canonical, prefixes, vectors_path  # noqa: E402
from lean_memory.vectors import Vectors  # noqa: E402

MODEL = "nomic-embed-text"
GOAL_MS = 15.0


def fake_vector(text: str, dim: int) -> list[float]:
    """A deterministic vector of ``text`` (its hash, stretched)."""
    seed = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=64).digest()
    raw = (seed * (dim // 64 + 1))[:dim]
    return [b - 127.5 for b in raw]


def serve(dim: int) -> tuple[ThreadingHTTPServer, list[int]]:
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            data = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            count[0] += 1
            body = json.dumps({"model": data["model"],
                               "embeddings": [fake_vector(t, dim) for t in data["input"]]})
            raw = body.encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, count


def config(root: Path, semantic: bool, port: int) -> None:
    extra = (f'retrievers = ["bm25", "ollama"]\n[ollama]\nhost = "http://127.0.0.1:{port}"\n'
             f'model = "{MODEL}"\nembed_on_put = false\n') if semantic else ""
    (root / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = 10000000\n{extra}", encoding="utf-8")


def build(where: Path, n: int, dim: int) -> tuple[Path, Path]:
    """(BM25 copy, semantic copy) of ``run.py``'s memory of ``n`` entries; reused if there."""
    plain, sem = where / "bm25", where / "semantic"
    if (where / "done").exists():
        return plain, sem
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    root, _ = run.build_data(where / "data", n)
    shutil.copytree(root, plain, symlinks=True)
    shutil.copytree(root, sem, symlinks=True)
    shutil.rmtree(where / "data")
    config(sem, True, 9)
    mem = Memory(sem)
    doc = prefixes(MODEL)[0]
    v = Vectors()
    for e in _searchable(mem):
        text = doc + document_text(e)
        v.add(content_key(canonical(MODEL), text), fake_vector(text, dim))
    assert v.save(vectors_path(mem, MODEL), mem.agents_dir)
    (where / "done").write_text("")
    return plain, sem


INJECTED = """
import sys
from hashlib import blake2b
import lean_memory.ollama as o
def embed(self, texts):
    out = []
    for t in texts:
        seed = blake2b(t.encode(), digest_size=64).digest()
        out.append([b - 127.5 for b in (seed * ({dim} // 64 + 1))[:{dim}]])
    return out
o.Ollama.embed = embed
sys.argv = ["lean_memory", *sys.argv[1:]]
from lean_memory.cli import run
sys.exit(run())
"""


def measure(n: int, runs: int, dim: int, work: Path, vpy: str,
            server: ThreadingHTTPServer, count: list[int]) -> dict[str, list[float]]:
    plain, sem = build(work / f"semantic-{n}", n, dim)
    port = server.server_address[1]
    config(sem, True, port)
    env = run.clean_env()
    env.pop("OLLAMA_HOST", None)
    q = ["get", "--query", run.QUERY]
    cases = {
        "pass": ([vpy, "-c", "pass"], plain),
        "bm25": ([vpy, "-P", "-m", "lean_memory", *q], plain),
        "socket": ([vpy, "-P", "-m", "lean_memory", *q], sem),
        "injected": ([vpy, "-P", "-c", INJECTED.format(dim=dim), *q], sem),
    }
    for key, (argv, cwd) in cases.items():  # untimed: warm caches, check the extra ran
        before = count[0]
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600, check=False)
        if done.returncode != 0 or (key != "pass" and not done.stdout.strip()):
            raise SystemExit(f"{key} at {n}: exit {done.returncode}: {done.stderr[-300:]}")
        if key in ("socket", "injected") and "searched without" in done.stderr:
            raise SystemExit(f"{key} at {n} went without the extra: {done.stderr[-300:]}")
        if key == "socket" and count[0] == before:
            raise SystemExit("the socket case never asked the server")
    ms: dict[str, list[float]] = {k: [] for k in cases}
    with tempfile.TemporaryDirectory() as tmp:
        launcher = run.Launcher(vpy, env, Path(tmp) / "err")
        try:
            for _ in range(runs):
                for key, (argv, cwd) in cases.items():
                    cpu, _, code, tail = launcher.run(argv, cwd, None, 600)
                    if code != 0:
                        raise SystemExit(f"{key} at {n}: exit {code}: {tail}")
                    ms[key].append(cpu * 1e3)
        finally:
            launcher.close()
    return ms


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="1k,10k,100k")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--dim", type=int, default=384)
    p.add_argument("--work", type=Path)
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    server, count = serve(args.dim)
    temp = None
    if args.work is None:
        temp = tempfile.TemporaryDirectory()
        args.work = Path(temp.name)
    with tempfile.TemporaryDirectory() as venv:
        vpy = run.make_venv(Path(venv) / "venv")
        results = {}
        print(f"CPU ms of the child, medians of {args.runs} rounds; {args.dim}-d fake embedder")
        print(f"{'entries':>8} {'pass':>7} {'bm25':>7} {'socket':>7} {'injected':>9} "
              f"{'bm25/pass':>9} {'+socket':>8} {'+injected':>9}  goal +{GOAL_MS:g} ms")
        for size in args.sizes.split(","):
            n = run.parse_size(size)
            ms = measure(n, args.runs, args.dim, args.work, vpy, server, count)
            med = {k: statistics.median(v) for k, v in ms.items()}
            results[n] = {"median_ms": med, "runs_ms": ms}
            extra = med["socket"] - med["bm25"]
            print(f"{n:>8} {med['pass']:>7.1f} {med['bm25']:>7.1f} {med['socket']:>7.1f} "
                  f"{med['injected']:>9.1f} {med['bm25'] / med['pass']:>8.2f}x "
                  f"{extra:>+8.1f} {med['injected'] - med['bm25']:>+9.1f}  "
                  f"{'met' if extra <= GOAL_MS else 'NOT met'}", flush=True)
    server.shutdown()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if temp is not None:
        temp.cleanup()


if __name__ == "__main__":
    main()
