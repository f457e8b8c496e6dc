"""Durability at scale: random SIGKILLs of put, compact and the merge driver; concurrent
writers with auto-compaction and readers. Prints one line per scenario; exits 1 when any
acknowledged entry was lost, any entry duplicated or any reader failed.

    python bench/durability/bench.py                  # 300 kills of each kind
    python bench/durability/bench.py --kills 30       # quicker

tests/test_durability.py runs the same scenarios, smaller.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from lean_memory import Memory  # noqa: E402

WRITER = """
import sys
from lean_memory import Memory
m = Memory(sys.argv[1])
tag, count = sys.argv[2], int(sys.argv[3])
shards = m.shards
for i in range(count):
    e = m.put_entry(shards[i % 3], f"writer {tag} fact {i}: keep this line", date="2026-01-01")
    print(f"ack {tag} {i} {e.id}", flush=True)
"""

READER = """
import sys, time
from lean_memory import Memory
root, stop = sys.argv[1], sys.argv[2]
import os
reads = fails = 0
while not os.path.exists(stop):
    reads += 1
    try:
        Memory(root).get_memory(query="writer fact keep line")
    except Exception as exc:
        fails += 1
        print("fail", type(exc).__name__, flush=True)
print("reads", reads, "fails", fails, flush=True)
"""


def fact(tag: str, i: int) -> str:
    return f"writer {tag} fact {i}: keep this line"


@dataclass
class Figures:
    scenario: str
    runs: int = 0
    lost: int = 0
    duplicated: int = 0
    unparseable: int = 0
    diverged: int = 0  # a re-run after the kill did not give the bytes of a clean run
    reader_failures: int = 0
    reads: int = 0
    temps: int = 0  # temp files a kill left (not lost data; cleaning them is fsutil's job)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.unparseable or self.diverged
                    or self.reader_failures)

    def line(self) -> str:
        extra = f", reads {self.reads}" if self.reads else ""
        extra += f", temp files left {self.temps}" if self.temps else ""
        return (f"{self.scenario}: runs {self.runs}, lost {self.lost}, duplicated "
                f"{self.duplicated}, unparseable {self.unparseable}, diverged {self.diverged}, "
                f"reader failures {self.reader_failures}{extra}")


def env() -> dict[str, str]:
    out = {**os.environ, "PYTHONPATH": str(ROOT)}
    out.pop("LEAN_MEMORY_ROOT", None)
    return out


def make(root: Path, *, budget: int, keep: int = 2, auto: bool = True) -> Memory:
    (root / ".agents").mkdir(parents=True, exist_ok=True)
    (root / ".agents" / "config.toml").write_text(
        f"[memory]\ntoken_budget = {budget}\nkeep_recent = {keep}\n"
        f"auto_compact = {'true' if auto else 'false'}\n", encoding="utf-8")
    mem = Memory(root)
    mem.init()
    return mem


def census(root: Path) -> tuple[Counter[str], list[str]] | None:
    """How often each text appears, live or archived, and every id; None if unparseable."""
    mem = Memory(root)
    try:
        entries = [*mem.entries(), *mem.entries(archive=True)]
    except Exception:
        return None
    return Counter(e.text for e in entries if e.get("compacted") is None), [
        e.id for e in entries]


def check(root: Path, acked: set[str], fig: Figures) -> None:
    seen = census(root)
    if seen is None:
        fig.unparseable += 1
        return
    texts, ids = seen
    fig.lost += sum(1 for t in acked if t not in texts)
    fig.duplicated += sum(n - 1 for n in texts.values() if n > 1)
    fig.duplicated += len(ids) - len(set(ids))


def kill_puts(root: Path, kills: int, rng: random.Random) -> Figures:
    """A writer putting facts (auto-compaction on, so compactions run too), SIGKILLed at
    a random moment; then the first unacknowledged fact is put again, as an agent whose
    acknowledgement was lost would."""
    fig = Figures("put (auto-compaction on), SIGKILL at random")
    make(root, budget=2500)
    acked: set[str] = set()
    for round_ in range(kills):
        tag = f"r{round_}"
        p = subprocess.Popen([sys.executable, "-c", WRITER, str(root), tag, "1000"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env())
        time.sleep(rng.uniform(0.1, 1.0))  # the interpreter's start takes ~0.1 s of it
        p.send_signal(signal.SIGKILL)
        out, _ = p.communicate()
        done = [int(line.split()[2]) for line in out.decode().splitlines()]
        acked.update(fact(tag, i) for i in done)
        nxt = max(done, default=-1) + 1
        retry = fact(tag, nxt)
        Memory(root).put_entry(Memory(root).shards[nxt % 3], retry, date="2026-01-01")
        acked.add(retry)
        fig.runs += 1
        check(root, acked, fig)
    fig.temps = temps(root)
    return fig


def _over_budget(root: Path) -> Memory:
    mem = make(root, budget=2500, auto=False)
    for i in range(60):
        mem.put_entry(mem.shards[i % 3], f"{fact('base', i)}. " + " ".join(
            f"detail {i} {k} about caches builds and flaky network retries" for k in range(4)),
            date=f"2026-01-{1 + i % 28:02d}", new=True)
    mem.compact()
    for i in range(60, 100):
        mem.put_entry(mem.shards[i % 3], f"{fact('base', i)}. later note {i}",
                      date="2026-02-01", new=True)
    return mem


def _temp(path: Path) -> bool:
    """A temp file of an atomic write that a kill left behind (cleaned up elsewhere)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def snapshot(root: Path) -> dict[str, bytes]:
    folder = root / ".agents" / "memory"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".cache" not in p.parts and not _temp(p)}


def temps(root: Path) -> int:
    return sum(1 for p in (root / ".agents").rglob("*.tmp") if _temp(p))


def _cli(root: Path, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "lean_memory", *args], cwd=root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env())


def kill_compactions(work: Path, kills: int, rng: random.Random) -> Figures:
    """``compact`` SIGKILLed at a random moment, then run again: the result must be the
    bytes a run without the kill writes."""
    fig = Figures("compact, SIGKILL at random, then compact again")
    base = _over_budget(work / "base").root
    seen = census(base)
    texts = set(seen[0]) if seen is not None else set()
    clean = work / "clean"
    shutil.copytree(base, clean)
    started = time.perf_counter()
    p = _cli(clean, "compact")
    p.communicate()
    took = time.perf_counter() - started
    want = snapshot(clean)
    for round_ in range(kills):
        trial = work / f"t{round_}"
        shutil.copytree(base, trial)
        p = _cli(trial, "compact")
        time.sleep(rng.uniform(0.0, took))
        p.send_signal(signal.SIGKILL)
        p.communicate()
        again = _cli(trial, "compact")
        _, err = again.communicate()
        fig.runs += 1
        if again.returncode != 0:
            fig.notes.append(err.decode().strip())
            fig.diverged += 1
        elif snapshot(trial) != want:
            fig.diverged += 1
        check(trial, texts, fig)
        fig.temps += temps(trial)
        shutil.rmtree(trial)
    return fig


def kill_merges(work: Path, kills: int, rng: random.Random) -> Figures:
    """The merge driver SIGKILLed at a random moment: the file it writes is either the
    one it started from or the whole merge, never a part."""
    from lean_memory import format as fmt

    fig = Figures("merge driver, SIGKILL at random")
    body = " ".join(f"detail {k} about caches builds and flaky network retries"
                    for k in range(40))
    base = "# Quirks\n\nAbout.\n\n" + "".join(
        fmt.render_entry(fmt.Entry(f"b{i:07d}", "quirks", f"Base {i}", f"{body} {i}",
                                   date="2026-01-01")) for i in range(400))

    def side(tag: str) -> str:
        return base + "".join(fmt.render_entry(fmt.Entry(
            f"{tag}{i:07d}", "quirks", f"{tag} {i}", f"{body} {tag} {i}",
            date="2026-01-02")) for i in range(400))

    ours, theirs = side("o"), side("t")
    files = work / "merge"
    files.mkdir()
    for name, text in (("O", base), ("B", theirs)):
        (files / name).write_text(text, encoding="utf-8")
    (files / "A").write_text(ours, encoding="utf-8")
    started = time.perf_counter()
    p = _cli(files, "merge-driver", "O", "A", "B", ".agents/memory/quirks.md")
    p.communicate()
    took = time.perf_counter() - started
    merged = (files / "A").read_bytes()
    for _ in range(kills):
        (files / "A").write_text(ours, encoding="utf-8")
        p = _cli(files, "merge-driver", "O", "A", "B", ".agents/memory/quirks.md")
        time.sleep(rng.uniform(0.0, took))
        p.send_signal(signal.SIGKILL)
        p.communicate()
        fig.runs += 1
        now = (files / "A").read_bytes()
        if now not in (ours.encode(), merged):
            fig.unparseable += 1  # a partly written file
    return fig


def concurrent(root: Path, writers: int, puts: int, readers: int) -> Figures:
    """``writers`` processes putting ``puts`` facts each (auto-compaction on) while
    ``readers`` processes query without pause."""
    fig = Figures(f"{writers} writers x {puts} puts with auto-compaction, {readers} readers")
    make(root, budget=2500)
    stop = root / "stop"
    rs = [subprocess.Popen([sys.executable, "-c", READER, str(root), str(stop)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
          for _ in range(readers)]
    ws = [subprocess.Popen([sys.executable, "-c", WRITER, str(root), f"w{w}", str(puts)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env())
          for w in range(writers)]
    acked: set[str] = set()
    for p in ws:
        out, err = p.communicate(timeout=600)
        if p.returncode != 0:
            fig.notes.append(err.decode().strip().splitlines()[-1])
        for line in out.decode().splitlines():
            _, tag, i, _ = line.split()
            acked.add(fact(tag, int(i)))
    stop.touch()
    for p in rs:
        out, _ = p.communicate(timeout=600)
        for line in out.decode().splitlines():
            if line.startswith("reads"):
                _, reads, _, fails = line.split()
                fig.reads += int(reads)
                fig.reader_failures += int(fails)
    fig.runs = writers * puts
    fig.lost += writers * puts - len(acked)  # a writer that failed lost what it did not ack
    check(root, acked, fig)
    return fig


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kills", type=int, default=300)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--puts", type=int, default=100)
    ap.add_argument("--readers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=20261130)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        scenarios: list[Callable[[], Figures]] = [
            lambda: kill_puts(work / "puts", args.kills, rng),
            lambda: kill_compactions(work / "compact", args.kills, rng),
            lambda: kill_merges(work, args.kills, rng),
            lambda: concurrent(work / "concurrent", args.writers, args.puts, args.readers)]
        for scenario in scenarios:
            started = time.perf_counter()
            fig = scenario()
            print(f"{fig.line()} ({time.perf_counter() - started:.0f} s)", flush=True)
            for note in fig.notes[:3]:
                print(f"  note: {note}", flush=True)
            ok &= fig.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
