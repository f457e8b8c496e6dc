"""Instruction counts of the hot lines beside their references (ADR 0050).

    python bench/speed/instructions.py [--sizes 1k,10k] [--work DIR] [--keep]

CPU time on the shared machine moves with load; the number of instructions a process runs
(``valgrind --tool=callgrind``) does not. This builds bench/speed/run.py's memories (same
generator, same seed, same FTS5 index) in a clean venv, writes Claude's hook line as
``init`` writes it, warms the caches, then counts, one process each: ``python -c pass``,
the SQLite FTS5 one-shot, the prompt hook (a new session, a prompt an entry answers) and the
warm ``get --query``. The hook's shell is left out: ``sh -c`` runs the same interpreter line.
With ``--work DIR`` the memories are kept there and reused by the next run. Each hook run
keeps its prompt as an ask, so a reused memory's hook count drifts by ~1-2 M between runs:
compare figures of one run, or of fresh memories.
"""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run  # noqa: E402  (bench/speed/run.py: the same data, lines and references)


def count(argv: list[str], cwd: Path, env: dict[str, str], stdin: bytes, out: Path) -> int:
    """Instructions one process runs (callgrind's total ``Ir``)."""
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           *argv], cwd=cwd, env=env, input=stdin, capture_output=True,
                          check=True, timeout=900)
    found = re.search(rb"Collected : (\d+)", done.stderr)
    assert found, done.stderr[-500:]
    return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1k,10k")
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lm-instr-"))
    work.mkdir(parents=True, exist_ok=True)
    env = run.clean_env()
    vpy = str(work / "venv" / "bin" / "python")
    if not Path(vpy).exists():
        run.make_venv(work / "venv")
    line = run.hook_lines(vpy, work / "project", env)["claude"]
    hook = shlex.split(line)
    print(f"{'entries':>8}  {'pass':>8}  {'FTS5':>8}  {'hook':>8}  {'query':>8}  "
          f"hook/FTS5  query/FTS5")
    for n in map(run.parse_size, args.sizes.split(",")):
        where = work / f"n{n}"
        if not (where / "fts5.sqlite").exists():
            where.mkdir(exist_ok=True)
            run.build_data(where, n)
        root = where / "memory"
        script = where / "fts5_oneshot.py"
        script.write_text(run.FTS5_SCRIPT, encoding="utf-8")
        prompt = run.hook_prompt(root)
        query = run.isolated(vpy, "get", "--query", run.QUERY)

        def stdin(where: Path = where, root: Path = root, prompt: str = prompt) -> bytes:
            return run.hook_input(where, root, prompt).read_bytes()

        marker = root / ".agents" / "memory" / ".cache" / "search.warming"
        for argv, data in ((hook, stdin()), (hook, stdin()), (query, b""), (hook, stdin()),
                           (query, b"")):  # warm: .pyc, caches, the gate's calibration
            done = subprocess.run(argv, cwd=root, env=env, input=data, capture_output=True,
                                  check=True)
            while marker.exists():  # the background warm-up a cold hook starts
                time.sleep(0.1)
        assert done.stdout.strip() and subprocess.run(
            hook, cwd=root, env=env, input=stdin(), capture_output=True).stdout.strip()
        out = where / "callgrind.out"
        figures = {
            "pass": count([vpy, "-c", "pass"], root, env, b"", out),
            "fts5": count([vpy, str(script), str(where / "fts5.sqlite"), run.QUERY], root,
                          env, b"", out),
            "hook": count(hook, root, env, stdin(), out),
            "query": count(query, root, env, b"", out),
        }
        m = {k: v / 1e6 for k, v in figures.items()}
        print(f"{n:>8,}  {m['pass']:7.1f}M  {m['fts5']:7.1f}M  {m['hook']:7.1f}M  "
              f"{m['query']:7.1f}M  {m['hook'] / m['fts5']:9.3f}  {m['query'] / m['fts5']:10.3f}",
              flush=True)


if __name__ == "__main__":
    main()
