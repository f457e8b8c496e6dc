"""The learning loop's costs on the prompt's clock and at the command line (issue 34).

CPU time (user + sys of the child and whatever it waited for, ``os.wait4``) of:

* ``python -c pass``, the reference every ratio is taken against (same run);
* ``hook session-start`` with N kept asks (live and folded, five projects, the matcher's
  results kept as after a SessionEnd): it must print the rules, and never fold or match;
* ``hook session-start`` with 600 asks of 24 KB (issue 34: 18 s of CPU and nothing printed);
* ``distill --all`` of S sessions of three asks (each session folded once);
* ``promote`` (the listing) at N asks, the matcher's results current.

    python bench/hooks/bench_loop.py                     # 10,000 asks, 1,000 sessions
    python bench/hooks/bench_loop.py --asks 1000 --sessions 100 --runs 3

Goals (issue 34): session start <= 3x, distill of 1,000 sessions <= 30x, the promote
listing at 10,000 asks <= 10x. The work folder is ``bench/hooks/.work/loop`` (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from lean_memory import learn  # noqa: E402
from lean_memory._askrecord import make_ask  # noqa: E402
from lean_memory.layers import session_home  # noqa: E402
from lean_memory.store import Memory  # noqa: E402

TASKS = ["fix the flaky test in {f}", "why does {f} crash on startup", "add logging to {f}",
         "rename the helper in {f}", "explain what {f} does", "speed up the loop in {f}"]
RULES = ["Always use pnpm, not npm.", "Never push directly to main.",
         "Use uv, never pip.", "Answer in short bullet points."]
FILES = [f"src/mod{i}/file{j}.py" for i in range(20) for j in range(10)]


def write_asks(project: Path, sessions: int, per: int, *, big: bool = False,
               folded: bool = True, seed: int = 34) -> int:
    """Asks written straight to a project's session files (as the hook keeps them)."""
    rng = random.Random(seed)
    home = session_home(project)
    label = home.name
    n = 0
    for s in range(sessions):
        sid = f"{label[:6]}-{s:05d}"
        lines = []
        for k in range(per):
            text = rng.choice(TASKS).format(f=rng.choice(FILES))
            if rng.random() < 0.05:
                text += " " + rng.choice(RULES)
            if big:
                text += " " + "log line with details " * 1100  # ~24 KB
            at = f"2026-0{1 + s % 9}-{1 + s % 28:02d}T{k % 24:02d}:{s % 60:02d}:00Z"
            ask = make_ask(sid, text, at, project=label)
            assert ask is not None
            lines.append(learn._record(ask))
            n += 1
        folder = home / "asks" / ("archive" if folded else "")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{sid}.jsonl").write_text("".join(lines))
    return n


def cpu(cmd: list[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> tuple[float, bytes]:
    """CPU seconds of ``cmd`` (user + sys of it and the children it waited for)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    assert p.stdin is not None and p.stdout is not None
    p.stdin.write(stdin)
    p.stdin.close()
    out = p.stdout.read()
    _pid, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, out


def project(work: Path, name: str) -> Path:
    root = work / name
    root.mkdir(parents=True)
    mem = Memory(root)
    mem.init()
    mem.put_entry("conventions", "Run ruff before every commit.")
    mem.put_entry("quirks", "The exporter needs the VPN for the staging database.")
    return root


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asks", type=int, default=10_000)
    ap.add_argument("--sessions", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    work = HERE / ".work" / "loop"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(work / "home"),
           "XDG_DATA_HOME": str(work / "data")}
    env.pop("LEAN_MEMORY_GLOBAL", None)
    env.pop("LEAN_MEMORY_ROOT", None)
    (work / "home").mkdir()
    os.environ.update({k: env[k] for k in ("HOME", "XDG_DATA_HOME")})
    os.environ.pop("LEAN_MEMORY_GLOBAL", None)

    main_p = project(work, "main")
    others = [project(work, f"p{i}") for i in range(4)]
    per = 20
    kept = sum(write_asks(p, args.asks // per // 5, per, seed=i)
               for i, p in enumerate([main_p, *others]))
    py = [sys.executable]
    # the other cases keep their asks apart (their own data folder): the evidence the
    # listing's matcher reads is the five projects' only
    apart = {**env, "XDG_DATA_HOME": str(work / "data-apart")}
    os.environ["XDG_DATA_HOME"] = apart["XDG_DATA_HOME"]
    big = project(work, "big")
    dist = project(work, "dist")
    subprocess.run([*py, "-m", "lean_memory", "--root", str(main_p), "promote"], cwd=main_p,
                   env=env, check=True, capture_output=True)  # as after a SessionEnd
    start = json.dumps({"cwd": str(main_p), "hook_event_name": "SessionStart",
                        "session_id": "bench", "source": "startup"}).encode()
    start_big = json.dumps({"cwd": str(big), "hook_event_name": "SessionStart",
                            "session_id": "bench", "source": "startup"}).encode()
    write_asks(big, 30, 20, big=True, folded=False, seed=9)  # 600 asks of 24 KB, live
    os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
    rows: dict[str, list[float]] = {k: [] for k in (
        "python -c pass", f"hook session-start, {kept:,} asks",
        "hook session-start, 600 asks of 24 KB", f"distill --all, {args.sessions:,} sessions",
        f"promote (listing), {kept:,} asks")}
    names = list(rows)
    printed = {}
    for _ in range(args.runs):
        rows[names[0]].append(cpu([*py, "-c", "pass"], env, work)[0])
        t, out = cpu([*py, "-m", "lean_memory", "hook", "session-start"], env, main_p, start)
        rows[names[1]].append(t)
        printed["start"] = out
        t, out = cpu([*py, "-m", "lean_memory", "hook", "session-start"], apart, big,
                     start_big)
        rows[names[2]].append(t)
        printed["big"] = out
        os.environ["XDG_DATA_HOME"] = apart["XDG_DATA_HOME"]
        shutil.rmtree(session_home(dist), ignore_errors=True)
        write_asks(dist, args.sessions, 3, folded=False, seed=5)
        os.environ["XDG_DATA_HOME"] = env["XDG_DATA_HOME"]
        t, out = cpu([*py, "-m", "lean_memory", "--root", str(dist), "distill", "--all"], apart,
                     dist)
        rows[names[3]].append(t)
        printed["distill"] = out
        t, out = cpu([*py, "-m", "lean_memory", "--root", str(main_p), "promote"], env, main_p)
        rows[names[4]].append(t)
        printed["promote"] = out
    ref = statistics.median(rows[names[0]])
    print(f"| case | CPU (median of {args.runs}) | x `python -c pass` |\n|---|---:|---:|")
    for name, times in rows.items():
        med = statistics.median(times)
        print(f"| {name} | {med * 1000:.1f} ms | {med / ref:.2f} |")
    for key in ("start", "big"):
        ctx = json.loads(printed[key] or b"{}").get("hookSpecificOutput", {}).get(
            "additionalContext", "")
        print(f"session start ({key}): {len(ctx):,} characters, rules printed: "
              f"{'Run ruff before every commit' in ctx}")
    print(f"distill: {printed['distill'].decode().count(chr(10)):,} lines; promote: "
          f"{printed['promote'].decode().count('p-'):,} proposals listed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
