"""Place the hand-written asks (asks_a.py, asks_b.py) into sessions, times and projects.

Deterministic (fixed seeds). `python bench/promote/heldout/build.py` rewrites set_a.jsonl,
set_b.jsonl and labels.json next to it; `--check` exits 1 if they differ from a fresh run.
The texts are not generated: this script only names the sets; ../placement.py decides where
and when each one was said.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import asks_a  # noqa: E402
import asks_b  # noqa: E402
from placement import AskSet, main  # noqa: E402

# no shape check here: these sets were built before `validate` existed and break one of its
# rules (both sets repeat a few short texts); the committed files must stay as they are
SETS = (AskSet("set_a", asks_a, "a", 101), AskSet("set_b", asks_b, "b", 202))

if __name__ == "__main__":
    raise SystemExit(main(HERE, SETS, sys.argv[1:], max_asks=10, check_shape=False))
