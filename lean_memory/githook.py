"""Plain git hooks for people without the pre-commit framework (ADR 0006).

* ``pre-commit``: ``lean-memory scan --staged``, so a secret never reaches a commit.
* ``post-merge`` and ``post-rewrite``, only on request (``init --index-hooks``): regenerate
  ``INDEX.md`` after a merge or a rebase (the merge driver cannot: it sees one file at a
  time) and leave it as a work-tree change to commit. A memory tool never rewrites a commit.

Each hook is POSIX ``sh``. It runs the interpreter that installed it while that still
exists, else ``lean-memory`` from PATH. When neither can run, the pre-commit hook fails
closed (ADR 0010): the commit is blocked with the way to repair it or to bypass it knowingly;
the post-* hooks only tidy a derived file, so they let git carry on.

A hook file is only ever (re)written when it is missing or was written by us. Somebody
else's pre-commit hook is kept and chained: it moves to ``pre-commit.before-lean-memory``
and ours runs it first, so both must pass. When that cannot be done, ``install_git_hook``
raises with the exact line to add, rather than report success with commits unprotected.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from .errors import HookNotInstalled
from .fsutil import MAX_CONFIG_BYTES, atomic_write, read_bounded
from .spawn import CLI_FILE, PLAIN_ENV, Git, git, sh_command, sh_quote

MARKER = "# lean-memory hook:"
CHAINED = "pre-commit.before-lean-memory"  # the pre-commit hook that was there before ours
SCAN_LINE = "lean-memory scan --staged || exit 1"  # what to add to a hook we cannot chain

# A hook runs at the top of the work tree, with the user's environment: Python isolated
# (-I; -P lets an empty PYTHONPATH entry put the work tree first: ADR 0033), lean_memory from
# the install named here. The fallback, pip's console script, gets no PYTHON* variable.
_RUNNER = """\
PY={py}
LM_CLI={cli}
lean_memory() {{
    if [ -x "$PY" ] && [ -f "$LM_CLI" ]; then
        {isolated} "$@"
    elif command -v lean-memory >/dev/null 2>&1; then
        {plain} lean-memory "$@"
    else
        {missing}
    fi
}}
"""

_PRE_COMMIT = """\
#!/bin/sh
{marker} pre-commit (written by `lean-memory init --git-hook`; run it again to update)
# Refuses a commit whose staged changes contain a secret, or that cannot be checked.
{runner}
CHAINED="$(dirname "$0")/{chained}"
if [ -x "$CHAINED" ]; then  # the hook that was here before ours: it must pass too
    "$CHAINED" "$@" || exit $?
fi
cd "$(git rev-parse --show-toplevel)" || exit 1
MEM_ROOT={root}
if git rev-parse -q --verify MERGE_HEAD >/dev/null 2>&1 &&
        git ls-files --error-unmatch -- "$MEM_ROOT/.agents/memory/INDEX.md" >/dev/null 2>&1
then  # concluding a merge: INDEX.md is derived, regenerate it from the merged shards
    lean_memory --root "$MEM_ROOT" index >/dev/null 2>&1 &&
        git add -- "$MEM_ROOT/.agents/memory/INDEX.md"
fi
lean_memory --root "$MEM_ROOT" scan --staged
"""

# Both hooks: regenerate a tracked INDEX.md the user has not edited; stop if unchanged.
_REGENERATE = """\
cd "$(git rev-parse --show-toplevel)" || exit 0
MEM_ROOT={root}
INDEX={index}
git ls-files --error-unmatch -- "$INDEX" >/dev/null 2>&1 || exit 0
git diff --quiet HEAD -- "$INDEX" 2>/dev/null || exit 0  # a change of the user's own: keep
lean_memory --root "$MEM_ROOT" index >/dev/null 2>&1 || exit 0
git diff --quiet -- "$INDEX" 2>/dev/null && exit 0
"""

_POST_MERGE = """\
#!/bin/sh
{marker} post-merge (written by `lean-memory init --index-hooks`; run it again to update)
# INDEX.md is derived from the shards: regenerate it from the merged shards and leave it as a
# change in the work tree for you to commit (a hook never rewrites a commit).
[ "$1" = 1 ] && exit 0  # a squash merge commits nothing yet; pre-commit handles it
{runner}
""" + _REGENERATE + """\
echo "lean-memory: regenerated $INDEX from the merged shards; commit it" >&2
exit 0
"""

_POST_REWRITE = """\
#!/bin/sh
{marker} post-rewrite (written by `lean-memory init --index-hooks`; run it again to update)
# After a rebase, INDEX.md is regenerated from the rebased shards and left as a change in the
# work tree for you to commit (a hook never rewrites a commit).
cat >/dev/null
[ "$1" = rebase ] || exit 0
{runner}
""" + _REGENERATE + """\
echo "lean-memory: regenerated $INDEX after the rebase; commit it" >&2
exit 0
"""

def _git(root: Path, *args: str) -> Git:
    # the person's git config: their core.hooksPath (a hook manager) decides where hooks go
    return git(str(root), *args, timeout=60, person=True)


def _locate(root: Path) -> tuple[Path, str] | str:
    """(hooks folder, memory root relative to the top level), or a message why not."""
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.code is None:
        return f"git is not available ({top.error}): no git hook installed"
    if not top.ok or not top.text.strip():
        return f"{root} is not inside a git work tree: no git hook installed"
    custom = _git(root, "config", "core.hooksPath").text.strip()
    if custom:
        return (f"git uses core.hooksPath={custom} (a hook manager?): no git hook installed; "
                f"add this line to its pre-commit hook: {SCAN_LINE}; and "
                "`lean-memory index` to its post-merge hook")
    hooks = _git(root, "rev-parse", "--git-path", "hooks").text.strip()
    folder = Path(hooks) if os.path.isabs(hooks) else root / hooks
    rel = os.path.relpath(root.resolve(), Path(top.text.strip()).resolve())
    return folder, Path(rel).as_posix()


def _script(template: str, rel_root: str, missing: str) -> str:
    cli = Path(CLI_FILE).as_posix()
    isolated = sh_command().replace(sh_quote(Path(sys.executable).as_posix()), '"$PY"', 1)
    runner = _RUNNER.format(py=sh_quote(Path(sys.executable).as_posix()), cli=sh_quote(cli),
                            isolated=isolated, plain=PLAIN_ENV, missing=missing)
    index = (Path(rel_root) / ".agents" / "memory" / "INDEX.md").as_posix()
    return template.format(marker=MARKER, runner=runner.rstrip("\n"), root=sh_quote(rel_root),
                           index=sh_quote(index), chained=CHAINED)


def _current(path: Path) -> str | None:
    """The hook's text, None when there is none. A link (a hook manager's, say) or a file
    too large to be ours is foreign and never read ('' ); a special file is refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_size > MAX_CONFIG_BYTES):
        return ""
    return read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8", "replace")


def _ours(text: str) -> bool:
    return MARKER in "\n".join(text.splitlines()[:3])


def _install(folder: Path, name: str, script: str, foreign_hint: str) -> str:
    path = folder / name
    current = _current(path)
    if current is not None and not _ours(current):
        return (f"{path} exists and is not ours: left it alone; {foreign_hint}")
    if current == script and os.access(path, os.X_OK):
        return f"git {name} hook already installed"
    folder.mkdir(parents=True, exist_ok=True)

    atomic_write(path, script)
    path.chmod(0o755)
    return f"{'updated' if current is not None else 'installed'} git {name} hook ({path})"


# Said when the pre-commit hook cannot run the scanner: the commit is blocked, not let through.
_MISSING = """\
echo "lean-memory: commit blocked: the secret scan cannot run (lean_memory is not installed \
for $PY, and lean-memory is not on PATH)." >&2
        echo "lean-memory: repair: reinstall lean-memory, then run: lean-memory init --git-hook" >&2
        echo "lean-memory: or commit without the scan, knowingly: git commit --no-verify" >&2
        return 1"""


def install_git_hook(root: str | os.PathLike[str]) -> str:
    """Write the git pre-commit hook running the secret scan, chaining to a hook already
    there; raises :class:`HookNotInstalled` (with the line to add) when commits would be
    left unprotected."""
    where = _locate(Path(root))
    if isinstance(where, str):
        raise HookNotInstalled(where)
    folder, rel = where
    path = folder / "pre-commit"
    current = _current(path)
    moved = ""
    if current is not None and not _ours(current):
        chained = folder / CHAINED
        if chained.exists() or chained.is_symlink():
            raise HookNotInstalled(
                f"{path} is not ours and {chained.name} is taken: no git hook installed; "
                f"add this line to {path}: {SCAN_LINE}")
        os.replace(path, chained)  # keeps its mode: git ran it only if executable, as we do
        moved = f"; the hook that was there runs first, from {chained} (both must pass)"
    script = _script(_PRE_COMMIT, rel, _MISSING)
    return _install(folder, "pre-commit", script, "") + moved


def refresh_git_hook(root: str | os.PathLike[str]) -> str | None:
    """Rewrite our pre-commit hook when an older version wrote it; a line to print, or
    None when there is nothing of ours to refresh."""
    where = _locate(Path(root))
    if isinstance(where, str):
        return None
    folder, rel = where
    current = _current(folder / "pre-commit")
    script = _script(_PRE_COMMIT, rel, _MISSING)
    if current is None or not _ours(current) or current == script:
        return None
    return _install(folder, "pre-commit", script, "")


def ours_installed(root: str | os.PathLike[str]) -> bool:
    """Whether a post-merge or post-rewrite hook of ours is installed (to refresh it)."""
    where = _locate(Path(root))
    if isinstance(where, str):
        return False
    return any(MARKER in (_current(where[0] / name) or "")
               for name in ("post-merge", "post-rewrite"))


def install_index_hooks(root: str | os.PathLike[str]) -> list[str]:
    """Install the ``post-merge`` and ``post-rewrite`` hooks that keep INDEX.md
    regenerated after merges and rebases."""
    where = _locate(Path(root))
    if isinstance(where, str):
        return [where.replace("no git hook installed", "INDEX.md is refreshed on the next "
                              "write or `lean-memory index`")]
    folder, rel = where
    hint = "add this line to it: lean-memory index (INDEX.md is derived from the shards)"
    lines = []
    stale = folder / "pre-merge-commit"  # written by an early version; git ignores its work
    try:
        if MARKER in (_current(stale) or ""):
            stale.unlink()
            lines.append(f"removed the obsolete git pre-merge-commit hook ({stale})")
    except OSError:
        pass
    lines.append(_install(folder, "post-merge", _script(_POST_MERGE, rel, "return 1"), hint))
    lines.append(_install(folder, "post-rewrite", _script(_POST_REWRITE, rel, "return 1"), hint))
    return lines
