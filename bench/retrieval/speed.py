"""Speed: whole-process one-shot timings and in-process BM25Index timings on synthetic memories.

    python bench/retrieval/speed.py [--sizes 1000,10000,100000] [--runs 7] [--only inproc|process]

Synthetic memories of N entries (deterministic: seeded) are written to a temporary directory
both as ``entries.jsonl`` (for the one-shot reference scripts) and as a lean_memory root whose
shards are plain hand-written Markdown (``## title`` + body), so a lean_memory command can run on
the very same entries.

To time another whole-process command, add it to ``COMMANDS``: a list of argv items where
``{root}``, ``{jsonl}`` and ``{query}`` are substituted, e.g.
``"lean_memory get": [PY, "-m", "lean_memory", "--root", "{root}", "get", "--query", "{query}"]``.
A command that exits non-zero is reported as failed rather than timed.
"""

from __future__ import annotations

import argparse
import marshal
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from lean_memory import bm25  # noqa: E402
from lean_memory.bm25 import BM25Index  # noqa: E402

PY = sys.executable
# The repository's lean_memory, whatever the working directory of a script; and bytecode
# written (to a private prefix) on the warm-up run, so that lean_memory is not compiled from
# source on every timed run while the installed references load their .pyc files.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
ENV["PYTHONPYCACHEPREFIX"] = os.path.join(tempfile.gettempdir(), "lean-memory-bench-pycache")
QUERY = "why does parse_config fail with ECONNREFUSED after the upgrade to 3.11"

RANK_BM25_SCRIPT = """
import json, re, sys
from rank_bm25 import BM25Okapi
STOP = set("a an and are as at be but by for if in into is it no not of on or such that the their "
           "then there these they this to was will with".split())
def tok(t):
    return [w for w in re.findall(r"[^\\W_]+", t.lower()) if w not in STOP]
docs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
bm = BM25Okapi([tok(d["title"] + "\\n" + d["text"]) for d in docs])
scores = bm.get_scores(tok(sys.argv[2]))
top = sorted(range(len(docs)), key=lambda i: -scores[i])[:5]
print([docs[i]["id"] for i in top])
"""

BM25S_SCRIPT = """
import json, sys
import bm25s
docs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
corpus = bm25s.tokenize([d["title"] + "\\n" + d["text"] for d in docs], stopwords="en",
                        show_progress=False)
model = bm25s.BM25(method="lucene")
model.index(corpus, show_progress=False)
q = bm25s.tokenize([sys.argv[2]], stopwords="en", show_progress=False)
ids, scores = model.retrieve(q, k=5, show_progress=False)
print([docs[i]["id"] for i in ids[0]])
"""

LEAN_SCRIPT = """
import json, sys
from lean_memory.bm25 import BM25Index
docs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8")]
index = BM25Index.build((d["title"], d["text"]) for d in docs)
print([docs[i]["id"] for i, _ in index.top(sys.argv[2], 5)])
"""

# fmt: off
COMMANDS: dict[str, list[str]] = {
    "python -c pass": [PY, "-c", "pass"],
    "rank_bm25 one-shot": [PY, "{dir}/rank_bm25_oneshot.py", "{jsonl}", "{query}"],
    "bm25s one-shot": [PY, "{dir}/bm25s_oneshot.py", "{jsonl}", "{query}"],
    "lean_memory BM25Index one-shot, no cache": [PY, "{dir}/lean_oneshot.py", "{jsonl}", "{query}"],
}
# fmt: on

# Opt-in (--with-cli): lean_memory's own CLI on the same memory. The untimed warm-up run builds
# the search cache under .agents/memory/.cache, so the plain command gives warm-cache numbers;
# PREPARE runs an untimed step before every run of a command (the warm-up included).
_GET = [PY, "-m", "lean_memory", "--root", "{root}", "get", "--query", "{query}"]
CLI_COMMANDS: dict[str, list[str]] = {
    "lean_memory get --query (cold: no .cache)": _GET,
    "lean_memory get --query (warm cache)": _GET,
    "lean_memory get --query (first after a put)": _GET,
}


def _no_cache(root: Path) -> None:
    import shutil

    shutil.rmtree(root / ".agents" / "memory" / ".cache", ignore_errors=True)


_puts = iter(range(1_000_000))


def _put_one(root: Path) -> None:
    # A real put through the API (secret scan, dedup check, INDEX.md): it changes one shard,
    # so the next query finds that shard's part of the search cache stale.
    from lean_memory import Memory

    i = next(_puts)
    Memory(root).put_entry("failures", f"Bench note {i}: the zeppelin{i} retry loop hangs",
                           date="2026-11-30")


PREPARE: dict[str, Callable[[Path], None]] = {
    "lean_memory get --query (cold: no .cache)": _no_cache,
    "lean_memory get --query (first after a put)": _put_one,
}

# -- synthetic memories ------------------------------------------------------------------------

_WORDS = str.split("""
fix test build deploy config cache error retry timeout request response server client database
query index schema migration branch merge commit release version upgrade install package module
import export function class method field value token user session login auth permission file
path directory folder script command option flag default setting environment variable secret key
service worker queue job task thread process memory disk network socket port host proxy header
body payload json yaml toml markdown parser lexer tokenizer compiler linter formatter runner
fails failing broken flaky slow fast missing wrong stale invalid unexpected duplicate empty null
always never only must should avoid prefer use keep remove rename move add check run start stop
after before when because instead unless until during since while first last next previous
""")
_PROSE = str.split("the a of to in and is it for on with that this was be as at by not or but from")
_EXT = ["py", "js", "ts", "rs", "go", "md", "toml", "json", "yaml", "sh"]
_ERRORS = ["ECONNREFUSED", "ETIMEDOUT", "ENOENT", "EACCES", "E0502", "E0382", "HTTP 429",
           "HTTP 503", "ModuleNotFoundError", "KeyError", "TypeError", "SIGSEGV"]  # fmt: skip


def _zipf_pick(rng: random.Random, items: list[str]) -> str:
    # Harmonic-ish skew: a few words are everywhere, most are rare, as in real notes.
    return items[min(int(rng.paretovariate(1.2)) - 1, len(items) - 1)]


def synthetic_entries(n: int, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    vocab = _WORDS[:]
    rng.shuffle(vocab)
    # A long tail of project-specific names makes the vocabulary grow with the memory.
    tail = ["".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))
            for _ in range(max(200, n // 5))]  # fmt: skip
    out = []
    for i in range(n):

        def word() -> str:
            return _zipf_pick(rng, vocab) if rng.random() < 0.8 else rng.choice(tail)

        title = " ".join(word() for _ in range(rng.randint(3, 8))).capitalize()
        parts = []
        for _ in range(rng.randint(25, 70)):
            r = rng.random()
            if r < 0.35:
                parts.append(rng.choice(_PROSE))
            elif r < 0.85:
                parts.append(word())
            elif r < 0.90:
                parts.append(f"{word()}_{word()}" if rng.random() < 0.5
                             else f"{word()}{word().capitalize()}")  # fmt: skip
            elif r < 0.94:
                parts.append(f"src/{word()}/{word()}.{rng.choice(_EXT)}")
            elif r < 0.97:
                parts.append(rng.choice(_ERRORS))
            else:
                parts.append(f"{rng.randint(1, 4)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}")
        out.append({"id": f"e{i}", "title": title, "text": " ".join(parts) + "."})
    return out


def write_memory(entries: list[dict[str, str]], where: Path) -> tuple[Path, Path]:
    import json

    jsonl = where / "entries.jsonl"
    with open(jsonl, "w", encoding="utf-8") as fh:
        for e in entries:
            fh.write(json.dumps(e) + "\n")
    root = where / "root"
    mem = root / ".agents" / "memory"
    mem.mkdir(parents=True)
    shards = ["seed", "failures", "corrections", "insights", "conventions", "quirks"]
    for s, name in enumerate(shards):
        body = "".join(f"## {e['title']}\n\n{e['text']}\n\n" for e in entries[s :: len(shards)])
        (mem / f"{name}.md").write_text(f"# {name}\n\n{body}", encoding="utf-8")
    return root, jsonl


# -- measurements ------------------------------------------------------------------------------


def time_process(argv: list[str], runs: int,
                 prepare: Callable[[], None] | None = None) -> tuple[float, float] | None:
    """(median, min) wall seconds of a whole process, after one warm-up run; None if it fails."""
    times = []
    for i in range(runs + 1):
        if prepare is not None:
            prepare()
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=ENV)
        dt = time.perf_counter() - t0
        if proc.returncode != 0:
            print(f"  failed: {' '.join(argv)}\n  {proc.stderr.strip()[-300:]}", file=sys.stderr)
            return None
        if i:
            times.append(dt)
    return statistics.median(times), min(times)


def median_time(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def inproc(entries: list[dict[str, str]], runs: int) -> dict[str, float]:
    docs = [(e["title"], e["text"]) for e in entries]
    build_runs = max(1, min(runs, 3 if len(docs) >= 100_000 else runs))

    def cold_build() -> None:
        # As in a fresh process: the tokenizer's memo tables start empty.
        bm25.clear_memos()
        BM25Index.build(docs)

    build = median_time(cold_build, build_runs)
    index = BM25Index.build(docs)
    queries = [
        QUERY,
        "flaky test timeout",
        "HTTP 429 retry",
        "src/cache/index.py",
        "ModuleNotFoundError after upgrade",
        "deploy secret environment variable",
    ]
    query = statistics.median(median_time(lambda q=q: index.top(q, 5), runs) for q in queries)
    state = index.to_state()
    dumped = marshal.dumps(state)
    dump = median_time(lambda: marshal.dumps(index.to_state()), runs)
    load = median_time(lambda: BM25Index.from_state(marshal.loads(dumped)), runs)
    assert BM25Index.from_state(marshal.loads(dumped)).top(QUERY, 5) == index.top(QUERY, 5)
    return {"build_ms": build * 1e3, "query_ms": query * 1e3, "save_ms": dump * 1e3,
            "load_ms": load * 1e3, "state_mb": len(dumped) / 1e6,
            "postings": len(state["docs"]) // 4, "terms": len(state["terms"])}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--only", choices=["inproc", "process"])
    ap.add_argument("--with-cli", action="store_true", help="also time CLI_COMMANDS")
    args = ap.parse_args()
    if args.with_cli:
        COMMANDS.update(CLI_COMMANDS)
    sizes = [int(s) for s in args.sizes.split(",")]
    env_note = f"Python {sys.version.split()[0]}, {os.cpu_count()} cpus"
    results: dict[int, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="lm-speed-") as tmp:
        d = Path(tmp)
        (d / "rank_bm25_oneshot.py").write_text(RANK_BM25_SCRIPT)
        (d / "bm25s_oneshot.py").write_text(BM25S_SCRIPT)
        (d / "lean_oneshot.py").write_text(LEAN_SCRIPT)
        for n in sizes:
            where = d / f"n{n}"
            where.mkdir()
            entries = synthetic_entries(n)
            root, jsonl = write_memory(entries, where)
            res: dict[str, object] = {}
            if args.only != "process":
                res.update(inproc(entries, args.runs))
                print(f"N={n} in-process: {res}", file=sys.stderr, flush=True)
            if args.only != "inproc":
                runs = args.runs if n < 100_000 else max(3, args.runs // 2)
                for label, argv in COMMANDS.items():
                    real = [a.format(root=root, jsonl=jsonl, query=QUERY, dir=d) for a in argv]
                    prep = PREPARE.get(label)
                    res[label] = time_process(real, runs, None if prep is None
                                              else partial(prep, root))
                    print(f"N={n} {label}: {res[label]}", file=sys.stderr, flush=True)
            results[n] = res

    print(f"\n{env_note}; medians (whole process: median of runs after one warm-up)\n")
    if args.only != "process":
        print(
            "| entries | build (cold) | query (top-5) | to_state+marshal.dumps | marshal.loads+"
            "from_state | state size | terms | postings |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for n, r in results.items():
            print(f"| {n:,} | {r['build_ms']:.0f} ms | {r['query_ms']:.2f} ms | "
                  f"{r['save_ms']:.1f} ms | {r['load_ms']:.1f} ms | {r['state_mb']:.1f} MB | "
                  f"{r['terms']:,} | {r['postings']:,} |")  # fmt: skip
    if args.only != "inproc":
        print("\n| command | " + " | ".join(f"{n:,} entries" for n in results) + " |")
        print("|---|" + "---|" * len(results))
        for label in COMMANDS:
            cells = []
            for r in results.values():
                t = r.get(label)
                cells.append("failed" if t is None else f"{t[0] * 1e3:.0f} ms")  # type: ignore[index]
            print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
