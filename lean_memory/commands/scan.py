"""``lean-memory scan``: check files, or what git has staged, for secrets (exit 1 on a
finding, 2 when a file could not be scanned: the check fails closed)."""

from __future__ import annotations

from ..errors import LeanMemoryError
from ..folder import find_root
from ..scanfiles import scan_paths, scan_staged
from ..secrets import format_finding
from ..store import Memory
from ._common import UsageError, dump, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import TextIO


def run(args: argparse.Namespace, out: TextIO) -> int:
    allow = None
    try:
        allow = Memory(args.root or find_root()).allowlist
    except LeanMemoryError:
        allow = None  # a broken config must not stop a commit check from running
    if args.staged:
        if args.paths:
            raise UsageError("scan: give paths or --staged, not both")
        result = scan_staged(".", allow=allow)
    else:
        result = scan_paths(args.paths or ["."], allow=allow, all_files=args.all_files)
    if args.json:
        dump({"findings": [{"path": f.path, "line": f.line, "rule": f.rule,
                            "preview": f.preview, "fingerprint": f.fingerprint}
                           for f in result.findings],
              "skipped": [{"path": p, "reason": r} for p, r in result.skipped],
              "errors": [{"path": p, "reason": r} for p, r in result.errors],
              "binary": result.binary, "scanned": result.scanned}, out)
    else:
        for f in result.findings:
            out.write(format_finding(f) + "\n")
        if len(result.skipped) <= 3:
            for path, reason in result.skipped:
                say(f"note: skipped {path}: {reason}")
        else:
            say(f"note: skipped {len(result.skipped)} symlinks (not followed; see --json)")
        if result.binary:
            say(f"note: {result.binary} binary file(s) not scanned (a NUL in the first "
                "8,000 bytes, as git decides)")
    for path, reason in result.errors:
        say(f"error: could not scan {path}: {reason}")
    if result.findings:
        say(f"{len(result.findings)} possible secret(s) found; remove them, "
            "or allowlist a false positive with `lean-memory: allow`")
        return 1
    if result.errors:
        say(f"{len(result.errors)} file(s) could not be scanned: the check fails closed; "
            "fix or remove them, or allowlist their paths (allow_paths in "
            ".agents/config.toml)")
        return 2
    return 0
