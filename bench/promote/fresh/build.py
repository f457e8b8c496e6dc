"""Place the hand-written asks (asks_c.py, asks_d.py) into sessions, times and projects.

Deterministic (fixed seeds). `python bench/promote/fresh/build.py` rewrites set_c.jsonl,
set_d.jsonl and labels.json next to it; `--check` exits 1 if they differ from a fresh run
or if the data breaks a shape rule (see `validate` in ../placement.py). The texts are not
generated: this script only names the sets; ../placement.py decides where and when each
one was said.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import asks_c  # noqa: E402
import asks_d  # noqa: E402
from placement import AskSet, main  # noqa: E402

SETS = (AskSet("set_c", asks_c, "c", 303), AskSet("set_d", asks_d, "d", 404))

if __name__ == "__main__":
    raise SystemExit(main(HERE, SETS, sys.argv[1:], max_asks=9, check_shape=True))
