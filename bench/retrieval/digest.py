"""Evidence recall of the digest against ranked hits packed into the same token budget.

    python bench/retrieval/digest.py [--budgets 400,800,1200,2000] [--sets locomo,cranfield]
                                     [--limit N]

Each corpus (a LoCoMo conversation; Cranfield) is written as hand-written entries spread over
the five non-rule shards (title: the first eight words; body: the text), INDEX.md is
regenerated, and every query is asked as a prompt. A query counts as answered when the text of
at least one of its relevant documents (white space normalised) is in the block:

* ``digest``: ``mem.digest(q, budget_tokens=B)``, what the prompt hook injects;
* ``fts5``: SQLite FTS5 hits (bm25 ranking, the words of the query OR-ed), one line
  ``- title: text`` per hit in rank order until the next would pass B;
* ``ranked``: lean_memory's own ranking (``mem.search``) packed the same way;
* ``ranked-body``: the same ranking packed as the digest writes a line (``- text``, the title
  not repeated), with no heading and no note: what the digest's own overhead costs;
* ``digest+index``: ``mem.digest(q, budget_tokens=B, index=True)``, the shard overview
  repeated before each prompt (``digest_index = true``).

The last column counts the queries that ``ranked`` answers and the digest does not.

Tokens are counted with ``estimate_tokens``; the digest never passes B (counted and reported).

The gate (ADR 0021), with ``--gate`` (``--coverage 0,0.25``: the values of
``digest_min_coverage`` compared, 0 being the ungated digest): besides the answerable
prompts above, each memory is asked prompts it has nothing to say about ("unanswerable"):
LoCoMo conversation i's memory the questions of conversation i+1, Cranfield's memory every
LoCoMo question (every n-th with ``--stride n``), and with ``--sets ...,cisi`` Cranfield's
memory CISI's 112 library-science questions (another collection in the same register:
``cisi_queries.jsonl``), reported by half (odd query ids: where the gate was tuned; even:
reported only). Per budget: evidence recall, mean and
median tokens on answerable prompts; mean tokens and the share of empty digests on
unanswerable ones. LoCoMo is also reported by
half (even conversations: where the gate's constants were tuned; odd: held out).

The semantic extra, with ``--extra off,on`` (ADR 0019, 0021): "on" configures each memory as
a user does (``retrievers = ["bm25", "ollama"]``, ``[ollama] host``, ``model``,
``min_cosine``), fills its vectors with ``lean-memory embed``'s code, and runs the same
prompts through the product's own ``ollama`` client. The embedder is an Ollama-compatible
``/api/embed`` server: ``--embed-host URL``, or ``--embed-python PY`` to start
``embed_server.py`` with that interpreter (wordllama, 256-d, offline; ``--fake-embedder`` for
its deterministic fake). ``--floors`` lists the ``min_cosine`` values compared (-1: no floor).
``--calibrate`` prints, per set, the cosine of each unanswerable prompt's nearest entry and of
each answerable prompt's nearest evidence (the quantiles a floor is chosen from).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, load

sys.path.insert(0, str(REPO))
from lean_memory import estimate_tokens
from lean_memory.retrievers import listeners
from lean_memory.store import Memory

SHARDS = ("seed", "failures", "corrections", "insights", "quirks")
SYSTEMS = ("digest", "fts5", "ranked", "ranked-body", "digest+index")
WORD = re.compile(r"\w+")
DEPTH = 150  # hits packed at most: more than 2,000 tokens of one-line hits


def norm(text: str) -> str:
    return " ".join(text.split())


def title_of(text: str) -> str:
    words = text.split()
    return " ".join(words[:8]) + ("…" if len(words) > 8 else "")


def build(root: Path, docs: list[dict]) -> Memory:
    shutil.rmtree(root, ignore_errors=True)
    mem = Memory(root)
    mem.init()
    parts: dict[str, list[str]] = {s: [] for s in SHARDS}
    for i, doc in enumerate(docs):
        if doc["text"].strip():
            parts[SHARDS[i % len(SHARDS)]].append(
                f"## {title_of(doc['text'])}\n\n{doc['text']}\n\n")
    for s in SHARDS:
        path = mem.shard_path(s)
        path.write_text(path.read_text(encoding="utf-8") + "".join(parts[s]), encoding="utf-8")
    mem.index()
    return mem


def pack(lines: list[tuple[str, int]], budget: int) -> str:
    """Lines in order until the next would pass ``budget`` (each costs its estimate + 1)."""
    out: list[str] = []
    used = 0
    for line, cost in lines:
        if used + cost > budget:
            break
        out.append(line)
        used += cost
    return "\n".join(out)


def costed(lines: list[str], budget: int) -> list[tuple[str, int]]:
    """``lines`` with their costs, as many as could fit in ``budget``."""
    out = []
    used = 0
    for line in lines:
        cost = estimate_tokens(line) + 1
        if used + cost > budget:
            break
        out.append((line, cost))
        used += cost
    return out


def fts5_index(docs: list[dict]) -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(title, body)")
    db.executemany("INSERT INTO t(rowid, title, body) VALUES (?, ?, ?)",
                   [(i, title_of(d["text"]), d["text"]) for i, d in enumerate(docs)])
    return db


def fts5_rank(db: sqlite3.Connection, q: str) -> list[int]:
    words = sorted({w.lower() for w in WORD.findall(q)})
    if not words:
        return []
    match = " OR ".join(f'"{w}"' for w in words)
    rows = db.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?",
                      (match, DEPTH)).fetchall()
    return [r[0] for r in rows]


def run(name: str, budgets: list[int], limit: int | None, work: Path) -> None:
    answered = {(s, b): 0 for s in SYSTEMS for b in budgets}
    lost = {b: 0 for b in budgets}  # answered by the ranking packed, not by the digest
    used: dict[int, list[int]] = {b: [] for b in budgets}
    over = n = 0
    t0 = time.perf_counter()
    corpora = load(name)
    for corpus in corpora:
        docs = corpus.docs
        by_id = {d["id"]: norm(d["text"]) for d in docs}
        mem = build(work, docs)
        db = fts5_index(docs)
        lines = [f"- {title_of(d['text'])}: {norm(d['text'])}" for d in docs]
        for q in corpus.queries[:limit]:
            evidence = [by_id[r] for r in q["relevant"] if by_id.get(r)]
            if not evidence:
                continue
            n += 1
            top = max(budgets)
            fts = costed([lines[i] for i in fts5_rank(db, q["q"])], top)
            try:
                found = mem.search(q["q"], k=DEPTH)
            except Exception:  # only stop words: nothing to rank
                found = []
            ranked = costed([f"- {h.entry.title}: {norm(h.entry.text)}" for h in found], top)
            bodies = costed([f"- {norm(h.entry.text)}" for h in found], top)
            for b in budgets:
                block = mem.digest(q["q"], budget_tokens=b)
                tokens = estimate_tokens(block)
                over += tokens > b
                used[b].append(tokens)
                with_index = mem.digest(q["q"], budget_tokens=b, index=True)
                over += estimate_tokens(with_index) > b
                got = {}
                for system, text in (("digest", norm(block)), ("fts5", norm(pack(fts, b))),
                                     ("ranked", norm(pack(ranked, b))),
                                     ("ranked-body", norm(pack(bodies, b))),
                                     ("digest+index", norm(with_index))):
                    got[system] = any(e in text for e in evidence)
                    answered[(system, b)] += got[system]
                lost[b] += got["ranked"] and not got["digest"]
    print(f"\n{name}: {len(corpora)} corpora, {n} queries with evidence, "
          f"{time.perf_counter() - t0:.0f} s; digests over budget: {over}\n")
    print("| budget B | digest (tokens used, median) | FTS5 hits packed to B | "
          "lean_memory's ranking packed to B | same, lines as the digest's, no heading | "
          "digest with the overview repeated | "
          "queries the ranking packed answers and the digest does not |")
    print("|---|---|---|---|---|---|---|")
    for b in budgets:
        cells = [f"{answered[(s, b)] / max(n, 1):.3f}" for s in SYSTEMS]
        print(f"| {b:,} | {cells[0]} ({answered[('digest', b)]}/{n}; "
              f"{statistics.median(used[b]):.0f}) | " + " | ".join(cells[1:])
              + f" | {lost[b]} |")


class Extra:
    """The semantic extra as a user configures it; ``host`` None: off."""

    def __init__(self, host: str | None, floor: float = -1.0, timeout_ms: int = 2000) -> None:
        self.host = host
        self.floor = floor
        self.timeout_ms = timeout_ms

    @property
    def label(self) -> str:
        return "off" if self.host is None else f"on, min_cosine {self.floor:g}"


MODEL = "wordllama-l2-supercat"


def set_coverage(mem: Memory, coverage: float, extra: Extra | None = None) -> None:
    config = mem.agents_dir / "config.toml"
    text = f"[memory]\ndigest_min_coverage = {coverage}\n"
    if extra is not None and extra.host is not None:
        # a generous deadline: this measures what the extra adds, not the machine's load
        text += (f'retrievers = ["bm25", "ollama"]\nretriever_timeout_ms = {extra.timeout_ms}\n'
                 f'[ollama]\nhost = "{extra.host}"\nmodel = "{MODEL}"\n'
                 f"min_cosine = {extra.floor}\n")
    config.write_text(text, encoding="utf-8")
    mem.__dict__.pop("config", None)  # Memory.config is read once per object


def embed_all(mem: Memory, host: str) -> None:
    from lean_memory.embedcmd import embed_missing

    set_coverage(mem, 0.25, Extra(host))
    embed_missing(mem, timeout=600)


def start_server(python: str, fake: bool) -> tuple[str, subprocess.Popen[str]]:
    args = [python, str(Path(__file__).resolve().parent / "embed_server.py")]
    proc = subprocess.Popen(args + (["--fake"] if fake else []), stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    return proc.stdout.readline().strip(), proc


class Tally:
    """One (set, coverage, budget) cell of the gate table."""

    def __init__(self) -> None:
        self.answered = 0
        self.answerable: list[int] = []
        self.unanswerable: list[int] = []

    def row(self) -> str:
        a, u = self.answerable, self.unanswerable
        recall = self.answered / max(len(a), 1)
        empty = sum(t == 0 for t in u) / max(len(u), 1)
        return (f"{recall:.3f} | {statistics.mean(a or [0]):,.0f} | "
                f"{statistics.median(a or [0]):,.0f} | {statistics.mean(u or [0]):,.0f} | "
                f"{empty:.1%}")


def gate_run(budgets: list[int], coverages: list[float], work: Path, limit: int | None,
             sets: list[str], stride: int = 1, extras: list[Extra] | None = None) -> None:
    """The answerable / unanswerable table (see the module's docstring)."""
    locomo = load("locomo")
    extras = extras or [Extra(None)]
    cells: dict[tuple[str, str, float, int], Tally] = {}
    skipped = 0
    over = 0
    t0 = time.perf_counter()
    plans: list[tuple[str, list[dict], list[dict], list[dict]]] = []
    if "locomo" in sets:
        for i, corpus in enumerate(locomo):
            half = "locomo even (tuned)" if i % 2 == 0 else "locomo odd (held out)"
            plans.append((half, corpus.docs, corpus.queries[:limit],
                          locomo[(i + 1) % len(locomo)].queries[:limit]))
    if "cranfield" in sets:
        cran = load("cranfield")[0]
        asked = [q for c in locomo for q in c.queries[:limit]][::stride]
        plans.append(("cranfield", cran.docs, cran.queries[:limit], asked))
    if "cisi" in sets:  # Cranfield's memory asked CISI's questions: unanswerable only
        cran = load("cranfield")[0]
        for half in ("tune", "report"):
            plans.append((f"cisi on cranfield ({half} half)", cran.docs, [],
                          [q for q in cisi_queries() if q["half"] == half][:limit]))
    for group, docs, answerable, unanswerable in plans:
        by_id = {d["id"]: norm(d["text"]) for d in docs}
        mem = build(work, docs)
        hosts = {x.host for x in extras if x.host is not None}
        for host in hosts:
            embed_all(mem, host)
        for x, c in ((x, c) for x in extras for c in coverages):
            set_coverage(mem, c, x)
            mem = Memory(mem.root)
            notes: list[str] = []
            listeners.append(notes.append)
            for kind, queries in (("a", answerable), ("u", unanswerable)):
                for q in queries:
                    evidence = [by_id[r] for r in q["relevant"] if by_id.get(r)]
                    if kind == "a" and not evidence:
                        continue
                    for b in budgets:
                        block = mem.digest(q["q"], budget_tokens=b)
                        tokens = estimate_tokens(block)
                        over += tokens > b
                        names = (group, "locomo all") if group.startswith("locomo") else (group,)
                        for name in names:
                            cell = cells.setdefault((name, x.label, c, b), Tally())
                            if kind == "a":
                                cell.answerable.append(tokens)
                                text = norm(block)
                                cell.answered += any(e in text for e in evidence)
                            else:
                                cell.unanswerable.append(tokens)
            listeners.remove(notes.append)
            skipped += sum("timed out" in n or "failed" in n for n in notes)
    print(f"\ngate: {time.perf_counter() - t0:.0f} s; digests over budget: {over}; "
          f"searches the extra was skipped in (timeout, failure): {skipped}\n")
    print("| set | semantic extra | digest_min_coverage | budget | evidence recall (answerable) | "
          "mean tokens (answerable) | median tokens (answerable) | "
          "mean tokens (unanswerable) | empty digests (unanswerable) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (name, label, c, b), cell in sorted(cells.items()):
        print(f"| {name} | {label} | {c:g} | {b:,} | {cell.row()} |")


CISI = Path(__file__).resolve().parent / "cisi_queries.jsonl"


def cisi_queries() -> list[dict]:
    """CISI's 112 queries (bench/retrieval/README: where they come from), each with its
    half: odd ids ``tune``, even ids ``report``; ``relevant`` empty (none is answerable
    from Cranfield)."""
    import json

    with open(CISI, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return [{**r, "relevant": []} for r in rows if "qid" in r]


def calibrate(host: str, work: Path, limit: int | None, sets: list[str], stride: int) -> None:
    """Cosine quantiles: each unanswerable prompt's nearest entry, each answerable prompt's
    nearest evidence and nearest entry, through the product's retriever and vectors."""
    from lean_memory.ollama import retriever

    locomo = load("locomo")
    plans: list[tuple[str, list[dict], list[dict], list[dict]]] = []
    if "locomo" in sets:
        plans += [("locomo", c.docs, c.queries[:limit],
                   locomo[(i + 1) % len(locomo)].queries[:limit]) for i, c in enumerate(locomo)]
    if "cranfield" in sets:
        cran = load("cranfield")[0]
        plans.append(("cranfield", cran.docs, cran.queries[:limit],
                      [q for c in locomo for q in c.queries[:limit]][::stride]))
    tops: dict[tuple[str, str], list[float]] = {}
    for group, docs, answerable, unanswerable in plans:
        mem = build(work, docs)
        embed_all(mem, host)
        set_coverage(mem, 0.25, Extra(host, -1.0, 600_000))
        mem = Memory(mem.root)
        r = retriever(mem)
        entries = [e for s in mem.shards for e in mem.entries(s)]
        text = {e.id: norm(e.text) for e in entries}
        for kind, queries in (("answerable", answerable), ("unanswerable", unanswerable)):
            for q in queries:
                ranked = r.rank(q["q"], entries, len(entries))
                tops.setdefault((group, f"{kind}: nearest entry"), []).append(ranked[0][1])
                if kind == "answerable":
                    evidence = {norm(by) for d in docs if d["id"] in q["relevant"]
                                for by in [d["text"]]}
                    best = [s for i, s in ranked if text[i] in evidence][:1]
                    if best:
                        tops.setdefault((group, "answerable: nearest evidence"),
                                        []).append(best[0])
    qs = (0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95)
    print(f"\ncosine quantiles ({MODEL})\n")
    print("| set | cosine of | n | " + " | ".join(f"q{round(q * 100)}" for q in qs) + " |")
    print("|---|---|---|" + "---|" * len(qs))
    for (group, what), values in sorted(tops.items()):
        values.sort()
        cells = [f"{values[min(len(values) - 1, int(q * len(values)))]:.3f}" for q in qs]
        print(f"| {group} | {what} | {len(values)} | " + " | ".join(cells) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--budgets", default="400,800,1200,2000")
    ap.add_argument("--sets", default="locomo,cranfield")
    ap.add_argument("--limit", type=int, default=None, help="queries per corpus (default all)")
    ap.add_argument("--gate", action="store_true",
                    help="the answerable / unanswerable table instead (ADR 0021)")
    ap.add_argument("--coverage", default="0,0.25",
                    help="digest_min_coverage values the gate table compares")
    ap.add_argument("--stride", type=int, default=1,
                    help="ask Cranfield's memory every n-th LoCoMo question (default all)")
    ap.add_argument("--extra", default="off", help="off, on or off,on: the semantic extra")
    ap.add_argument("--floors", default="-1,0.3",
                    help="[ollama] min_cosine values compared with the extra on")
    ap.add_argument("--embed-host", default=None, help="an Ollama-compatible /api/embed server")
    ap.add_argument("--embed-python", default=None,
                    help="start embed_server.py with this interpreter (wordllama installed)")
    ap.add_argument("--fake-embedder", action="store_true")
    ap.add_argument("--calibrate", action="store_true", help="cosine quantiles only")
    args = ap.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    modes = args.extra.split(",")
    server = None
    host = args.embed_host
    if ("on" in modes or args.calibrate) and host is None:
        if args.embed_python is None:
            raise SystemExit("--extra on needs --embed-host or --embed-python")
        host, server = start_server(args.embed_python, args.fake_embedder)
    extras = [Extra(None)] if "off" in modes else []
    if "on" in modes:
        extras += [Extra(host, float(f)) for f in args.floors.split(",")]
    try:
        with tempfile.TemporaryDirectory(prefix="lean-digest-") as tmp:
            if args.calibrate:
                assert host is not None
                calibrate(host, Path(tmp) / "memory", args.limit, args.sets.split(","),
                          args.stride)
                return
            if args.gate:
                gate_run(budgets, [float(c) for c in args.coverage.split(",")],
                         Path(tmp) / "memory", args.limit, args.sets.split(","), args.stride,
                         extras)
                return
            for name in args.sets.split(","):
                run(name, budgets, args.limit, Path(tmp) / "memory")
    finally:
        if server is not None:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
