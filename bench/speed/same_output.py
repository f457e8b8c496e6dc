"""Do two checkouts print the same bytes? The hot commands on copies of one memory.

    python bench/speed/same_output.py --before /path/to/main [--size 1k]

``run.py``'s deterministic memory is built once and copied for each checkout (each with its
own data folder: the session layer's state differs by checkout otherwise). The same sequence
runs on both, each command as every process of ours runs (``python -I -c ENTRY CHECKOUT
ARGS``): a session start, a prompt that matches, one that matches nothing, a second session
start, then ``get --query``, ``get failures``, ``status``; the hook's JSON on stdin with fixed
session ids. Prints each step's verdict (same / differs, with the first differing line);
exit 1 when any differs. For a change meant to leave the output alone (issue 36 item 3).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import run  # noqa: E402

SESSIONS = ("0b6f3c1e-1111-4a2b-9c3d-0123456789ab", "0b6f3c1e-2222-4a2b-9c3d-0123456789ab")


def steps(root: Path, prompt: str) -> list[tuple[str, list[str], str]]:
    def hook(event: str, session: str, **extra: str) -> str:
        return json.dumps({"session_id": session, "cwd": str(root), "hook_event_name": event,
                           "transcript_path": str(root / "t.jsonl"), **extra})
    a, b = SESSIONS
    return [
        ("session start", ["hook", "session-start"], hook("SessionStart", a, source="startup")),
        ("prompt, matching", ["hook", "user-prompt-submit"],
         hook("UserPromptSubmit", a, prompt=prompt)),
        ("prompt, matching nothing", ["hook", "user-prompt-submit"],
         hook("UserPromptSubmit", a, prompt="zebra quantum marmalade")),
        ("session start 2", ["hook", "session-start"], hook("SessionStart", b, source="startup")),
        ("prompt 2, matching", ["hook", "user-prompt-submit"],
         hook("UserPromptSubmit", b, prompt=prompt)),
        ("get --query", ["get", "--query", run.QUERY], ""),
        ("get failures", ["get", "failures"], ""),
        ("status", ["status"], ""),
    ]


def outputs(checkout: Path, vpy: str, root: Path, data: Path, prompt: str) -> list[bytes]:
    env = {k: v for k, v in os.environ.items()
           if not k.upper().startswith(("PYTHON", "LEAN_MEMORY"))}
    env.update(XDG_DATA_HOME=str(data), LEAN_MEMORY_GLOBAL=str(data / "global"))
    out = []
    for _, args, stdin in steps(root, prompt):
        line = [vpy, "-I", "-c", run.ENTRY, str(checkout), *args]
        out.append(subprocess.run(line, cwd=root, env=env, input=stdin.encode(),
                                  capture_output=True, check=False, timeout=600).stdout)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--before", type=Path, required=True, help="the other checkout")
    ap.add_argument("--size", default="1k")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="lm-same-"))
    try:
        vpy = run.make_venv(work / "venv")
        root, _ = run.build_data(work, run.parse_size(args.size))
        prompt = run.hook_prompt(root)  # one an entry answers: the gate opens
        got = {}
        for name, checkout in (("before", args.before.resolve()), ("after", run.REPO)):
            copy = work / name
            shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".cache"))
            outputs(checkout, vpy, copy, work / f"data-{name}", prompt)  # caches built
            shutil.rmtree(work / f"data-{name}")
            got[name] = outputs(checkout, vpy, copy, work / f"data-{name}", prompt)
        differs = 0
        for (label, _, _), x, y in zip(steps(root, prompt), got["before"], got["after"],
                                       strict=True):
            if x == y:
                print(f"same     {label} ({len(x)} bytes)")
                continue
            differs += 1
            first = next((i for i, (p, q) in enumerate(zip(x.splitlines(), y.splitlines(),
                                                           strict=False)) if p != q), None)
            print(f"DIFFERS  {label}: {len(x)} vs {len(y)} bytes, first at line {first}")
        return 1 if differs else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
