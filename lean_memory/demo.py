"""``lean-memory demo``: the main job end to end, in a throwaway directory."""

from __future__ import annotations

import contextlib
import io
import shlex
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

ENTRIES = [
    ("seed", "The API server lives in srv/api; run it with `make dev` and test with "
             "`pytest -q`.", "2026-01-05", ["setup"]),
    ("failures", "test_upload is flaky on Windows: the temp file is still open when "
                 "shutil.rmtree runs. Close the handle first (fixed in tests/test_upload.py).",
     "2026-02-11", ["ci", "windows"]),
    ("quirks", "ECONNREFUSED on port 5432 in CI means the postgres service is not ready; "
               "wait with pg_isready before the tests.", "2026-03-02", ["ci", "postgres"]),
    ("conventions", "Dates in memory are absolute (YYYY-MM-DD), never 'yesterday'.",
     "2026-03-20", []),
    ("insights", "parse_config() in lib/config.py caches per process; call "
                 "parse_config.cache_clear() in tests that change the environment.",
     "2026-04-01", ["testing"]),
]
FILLER = [
    ("failures", f"Nightly build {n} failed: the runner ran out of disk while unpacking the "
                 f"Docker layer cache; prune images before the build step.",
     f"2026-0{1 + n % 5}-1{n}")
    for n in range(8)
]


def _fake_token() -> str:
    # Built at run time so this file itself never looks like it holds a credential.
    return "gh" + "p_" + "".join("aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5"[::-1])


def run_demo(main: Callable[..., int], out: TextIO) -> int:
    """Run the demo through ``main`` (the CLI's, passed in: this module sits below it)."""

    def step(title: str, *argv: str) -> int:
        shown = shlex.join(argv).replace(_fake_token(), _fake_token()[:4] + "…")
        out.write(f"\n== {title}\n$ lean-memory {shown}\n")
        with contextlib.redirect_stderr(out):
            code = main(["--root", str(root), *argv], out=out)
        if code:
            out.write(f"(exit code {code})\n")
        return code

    with tempfile.TemporaryDirectory(prefix="lean-memory-demo-") as tmp:
        root = Path(tmp)
        out.write(f"lean_memory demo in a temporary project: {root}\n")
        step("1. Create the memory (idempotent)", "init")
        for shard, text, date, tags in ENTRIES[:2]:
            step("2. Remember something", "put", shard, text, "--date", date,
                 *[a for t in tags for a in ("--tag", t)])
        for shard, text, date, tags in ENTRIES[2:]:
            main(["--root", str(root), "put", shard, text, "--date", date,
                  *[a for t in tags for a in ("--tag", t)]], out=io.StringIO())
        out.write(f"(and {len(ENTRIES) - 2} more entries)\n")
        step("3. INDEX.md: the only file an agent loads every turn", "get")
        step("4. Pull one shard on demand", "get", "quirks")
        step("5. Or just the entries that match the prompt", "get", "--query",
             "why is test_upload flaky on windows?", "-k", "2")
        code = step("6. A credential is refused, with a redacted preview; nothing is written",
                    "put", "seed", f"deploy with token {_fake_token()}")
        if code != 1:
            out.write("unexpected: the secret was not refused\n")
            return 1
        (root / ".agents" / "config.toml").write_text(
            "[memory]\ntoken_budget = 1000\ncompact_at_percent = 70\nkeep_recent = 2\n")
        for shard, text, date in FILLER:
            main(["--root", str(root), "put", shard, text, "--date", date], out=io.StringIO())
        out.write(f"\n(a budget of 1,000 tokens, and {len(FILLER)} more failures)\n")
        step("7. Over budget?", "status")
        step("8. Compaction folds the oldest entries, archives the originals", "compact")
        step("9. Back under budget", "status")
        step("10. The shard now opens with one compacted entry", "get", "failures")
        step("11. The originals stay searchable in the archive", "get", "--query",
             "nightly build 2 disk", "-k", "1", "--archive")
    out.write("\nDone: the temporary project is gone. Try it in yours: "
              "lean-memory init\n")
    return 0
