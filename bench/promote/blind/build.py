"""Place the hand-written asks (asks_e.py) into sessions, times and projects.

Deterministic (fixed seed). `python bench/promote/blind/build.py` rewrites set_e.jsonl
and labels.json next to it; `--check` exits 1 if they differ from a fresh run or if the
data breaks a shape rule (see `validate` in ../placement.py). The texts are not generated:
this script only names the set; ../placement.py decides where and when each one was said.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import asks_e  # noqa: E402
from placement import AskSet, main  # noqa: E402

SETS = (AskSet("set_e", asks_e, "e", 505),)

if __name__ == "__main__":
    raise SystemExit(main(HERE, SETS, sys.argv[1:], max_asks=9, check_shape=True))
