"""Plain git hooks for people without the pre-commit framework (ADR 0006).

* ``pre-commit``: ``lean-memory scan --staged``, so a secret never reaches a commit.
* ``pre-merge-commit`` and ``post-rewrite``: regenerate ``INDEX.md`` after a merge or a
  rebase (the merge driver cannot: it sees one file at a time).

Each hook is POSIX ``sh``. It runs the interpreter that installed it while that still
exists, else ``lean-memory`` from PATH, else says one line and lets git carry on. A hook
file is only ever (re)written when it is missing or was written by us; somebody else's
hook is left alone and the message says what to add to it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

MARKER = "# lean-memory hook:"

_RUNNER = """\
PY={py}
lean_memory() {{
    if [ -x "$PY" ]; then
        "$PY" -m lean_memory "$@"
    elif command -v lean-memory >/dev/null 2>&1; then
        lean-memory "$@"
    else
        {missing}
    fi
}}
"""

_PRE_COMMIT = """\
#!/bin/sh
{marker} pre-commit (written by `lean-memory init --git-hook`; run it again to update)
# Refuses a commit whose staged changes contain a secret.
{runner}
cd "$(git rev-parse --show-toplevel)" || exit 0
MEM_ROOT={root}
if git rev-parse -q --verify MERGE_HEAD >/dev/null 2>&1 &&
        git ls-files --error-unmatch -- "$MEM_ROOT/.agents/memory/INDEX.md" >/dev/null 2>&1
then  # concluding a merge: INDEX.md is derived, regenerate it from the merged shards
    lean_memory --root "$MEM_ROOT" index >/dev/null 2>&1 &&
        git add -- "$MEM_ROOT/.agents/memory/INDEX.md"
fi
lean_memory --root "$MEM_ROOT" scan --staged
"""

_PRE_MERGE_COMMIT = """\
#!/bin/sh
{marker} pre-merge-commit (written by `lean-memory init`; run it again to update)
# INDEX.md is derived from the shards: regenerate it from the merged shards and stage it.
{runner}
cd "$(git rev-parse --show-toplevel)" || exit 0
MEM_ROOT={root}
INDEX="$MEM_ROOT/.agents/memory/INDEX.md"
if git ls-files --error-unmatch -- "$INDEX" >/dev/null 2>&1; then
    lean_memory --root "$MEM_ROOT" index >/dev/null 2>&1 && git add -- "$INDEX"
fi
exit 0
"""

_POST_REWRITE = """\
#!/bin/sh
{marker} post-rewrite (written by `lean-memory init`; run it again to update)
# After a rebase, INDEX.md is regenerated from the rebased shards.
cat >/dev/null
[ "$1" = rebase ] || exit 0
{runner}
cd "$(git rev-parse --show-toplevel)" || exit 0
MEM_ROOT={root}
INDEX="$MEM_ROOT/.agents/memory/INDEX.md"
if git ls-files --error-unmatch -- "$INDEX" >/dev/null 2>&1; then
    lean_memory --root "$MEM_ROOT" index >/dev/null 2>&1
    if ! git diff --quiet -- "$INDEX" 2>/dev/null; then
        echo "lean-memory: regenerated $INDEX after the rebase; commit it" >&2
    fi
fi
exit 0
"""


def _sh_quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          timeout=60, check=False)


def _locate(root: Path) -> tuple[Path, str] | str:
    """(hooks folder, memory root relative to the top level), or a message why not."""
    try:
        top = _git(root, "rev-parse", "--show-toplevel")
    except (OSError, subprocess.SubprocessError):
        return "git is not available: no git hook installed"
    if top.returncode != 0 or not top.stdout.strip():
        return f"{root} is not inside a git work tree: no git hook installed"
    custom = _git(root, "config", "core.hooksPath").stdout.strip()
    if custom:
        return (f"git uses core.hooksPath={custom} (a hook manager?): no git hook installed; "
                "add `lean-memory scan --staged` to its pre-commit hook and "
                "`lean-memory index` to its pre-merge-commit hook")
    hooks = _git(root, "rev-parse", "--git-path", "hooks").stdout.strip()
    folder = Path(hooks) if os.path.isabs(hooks) else root / hooks
    rel = os.path.relpath(root.resolve(), Path(top.stdout.strip()).resolve())
    return folder, Path(rel).as_posix()


def _script(template: str, rel_root: str, missing: str) -> str:
    runner = _RUNNER.format(py=_sh_quote(Path(sys.executable).as_posix()), missing=missing)
    return template.format(marker=MARKER, runner=runner.rstrip("\n"), root=_sh_quote(rel_root))


def _install(folder: Path, name: str, script: str, foreign_hint: str) -> str:
    path = folder / name
    try:
        current = path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        current = None
    if current is not None and MARKER not in "\n".join(current.splitlines()[:3]):
        return (f"{path} exists and is not ours: left it alone; {foreign_hint}")
    if current == script and os.access(path, os.X_OK):
        return f"git {name} hook already installed"
    folder.mkdir(parents=True, exist_ok=True)
    from .fsutil import atomic_write

    atomic_write(path, script)
    path.chmod(0o755)
    return f"{'updated' if current is not None else 'installed'} git {name} hook ({path})"


def install_git_hook(root: str | os.PathLike[str]) -> str:
    """Write ``.git/hooks/pre-commit`` running the secret scan; refuses a foreign hook."""
    where = _locate(Path(root))
    if isinstance(where, str):
        return where
    folder, rel = where
    missing = ('echo "lean-memory: secret scan skipped: lean_memory is not installed for $PY '
               'nor on PATH (reinstall it, then run: lean-memory init --git-hook)" >&2; '
               'return 0')
    script = _script(_PRE_COMMIT, rel, missing)
    return _install(folder, "pre-commit", script,
                    "add this line to it: lean-memory scan --staged")


def install_index_hooks(root: str | os.PathLike[str]) -> list[str]:
    """Install the ``pre-merge-commit`` and ``post-rewrite`` hooks that keep INDEX.md
    regenerated after merges and rebases."""
    where = _locate(Path(root))
    if isinstance(where, str):
        return [where.replace("no git hook installed", "INDEX.md is refreshed on the next "
                              "write or `lean-memory index`")]
    folder, rel = where
    hint = "add this line to it: lean-memory index (INDEX.md is derived from the shards)"
    return [_install(folder, "pre-merge-commit", _script(_PRE_MERGE_COMMIT, rel, "return 0"),
                     hint),
            _install(folder, "post-rewrite", _script(_POST_REWRITE, rel, "return 0"), hint)]
