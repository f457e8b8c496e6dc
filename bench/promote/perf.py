"""CPU of `lean-memory promote` (the listing) with N kept asks, against `python -c pass`.

    python bench/promote/perf.py [--asks 10000] [--repeat 3]

Builds a throw-away project and data home (XDG_DATA_HOME) holding N asks written as the
prompt hook writes them (the promote bench's train and test asks, repeated over new sessions
to reach N; ``--unique`` makes every text distinct), then runs each child isolated (``-I``,
this tree on sys.path) and reads its CPU time (user+sys) from ``os.wait4``. Prints the
minimum over the repeats of each, the ratio, and the machine's load average (a shared 2-core
machine: the ratio is the figure).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))

from lean_memory import learn  # noqa: E402
from lean_memory.asks import make_ask  # noqa: E402

BOOT = ("import sys; sys.path.insert(0, {root!r}); sys.argv = ['lean-memory', *{argv!r}]; "
        "from lean_memory.cli import main; raise SystemExit(main())")


def child_cpu(argv: list[str], env: dict[str, str], cwd: str) -> float:
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv[-1][:60]}… exited {status}: {proc.stderr.read()!r}")
    return usage.ru_utime + usage.ru_stime


def populate(project: str, n: int, unique: bool) -> None:
    from lean_memory.sessionlog import _session_home

    home = _session_home(project)
    folder = os.path.join(home, learn.ASKS_DIR)
    os.makedirs(folder, exist_ok=True)
    rows = [json.loads(line) for split in ("train", "test")
            for line in (HERE / "data" / f"{split}.jsonl").read_text(encoding="utf-8")
            .splitlines()]
    by_session: dict[str, list[str]] = {}
    for i in range(n):
        row = rows[i % len(rows)]
        session = f"{row['session']}-r{i // len(rows)}"
        text = f"{row['text']} (ref{i:05d})" if unique else row["text"]
        ask = make_ask(session, text, row["at"], os.path.basename(home))
        if ask is not None:
            by_session.setdefault(session, []).append(learn._record(ask))
    for session, lines in by_session.items():
        with open(os.path.join(folder, learn._file_name(session)), "w",
                  encoding="utf-8") as fh:
            fh.write("".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--asks", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--unique", action="store_true",
                    help="every ask's text distinct (a reference appended): no repeats to share")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project, data = os.path.join(tmp, "proj"), os.path.join(tmp, "data")
        os.makedirs(os.path.join(project, ".git"))
        env = {**os.environ, "XDG_DATA_HOME": data, "HOME": tmp}
        env.pop("PYTHONPATH", None)
        os.environ["XDG_DATA_HOME"] = data
        subprocess.run([sys.executable, "-I", "-c", BOOT.format(root=str(ROOT),
                        argv=["init"])], env=env, cwd=project, check=True,
                       capture_output=True)
        populate(project, args.asks, args.unique)
        py = [sys.executable, "-I", "-c"]
        ref = min(child_cpu([*py, "pass"], env, project) for _ in range(args.repeat))
        cmd = [*py, BOOT.format(root=str(ROOT), argv=["promote"])]
        kept = os.path.join(learn.learn_home(), learn.MATCHED)

        def cold() -> float:
            # the matcher's kept results removed: this listing runs the matcher
            with contextlib.suppress(FileNotFoundError):
                os.remove(kept)
            return child_cpu(cmd, env, project)

        got = min(cold() for _ in range(args.repeat))
        warm = min(child_cpu(cmd, env, project) for _ in range(args.repeat))
    load = os.getloadavg()
    kind = " unique" if args.unique else ""
    print(f"asks={args.asks}{kind} promote listing CPU {got * 1000:.0f} ms (matcher runs), "
          f"{warm * 1000:.0f} ms (its kept results), python -c pass {ref * 1000:.0f} ms: "
          f"{got / ref:.1f}x / {warm / ref:.1f}x (load {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f}, {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
