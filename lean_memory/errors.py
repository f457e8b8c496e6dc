"""The error hierarchy. Every message is one line and never contains a secret."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .secrets import Finding


class LeanMemoryError(Exception):
    """Base class of every error lean_memory raises on purpose.

    A message may quote what the user gave (a date, a tag, a shard name, a path), and that
    may be a credential: every message passes through the redactor here, once, so a new
    message is safe by construction.
    """

    exit_code = 2

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_message(a) if isinstance(a, str) else a for a in args))


def redact_message(message: str) -> str:
    """``message`` with every credential in it replaced by its redacted preview, a token
    glued to a name (``deploy-ghp_…``, ``notes/glpat-…``) included: messages quote paths."""
    from .secrets import redact_path  # lazily: the scanner imports this module

    try:
        return redact_path(message)
    except Exception:  # a redactor bug must not let the raw message through
        return "(message withheld: it could not be checked for credentials)"


# a plain name: at most 8 of these (a set, not a pattern: `status` quotes "bm25" and
# would import `re` for it, ~5 ms of a 100k `status`)
_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")


def quoted(value: str, limit: int = 200) -> str:
    """At most ``limit`` characters of ``value``, to quote in a message or a reply.

    Redacted before it is cut (a token cut short is no longer recognised as one, and its
    first characters would pass), and only the start of a long value is scanned: a token
    cut at the end of that window lies in what is dropped.
    """
    # a shard or retriever name, an id: no credential is this short
    if len(value) <= 8 and all(c in _PLAIN for c in value):
        return value
    from .secrets import _OVERLAP

    window = value[:limit + _OVERLAP]
    shown = redact_message(window)
    if len(window) < len(value):
        # Redaction only shortens, so the last _OVERLAP characters shown came from the
        # window's last _OVERLAP or more: drop them with the token that may be cut there.
        shown = shown[:max(0, len(shown) - _OVERLAP)]
    return shown[:limit] + ("\u2026" if len(shown) > limit or len(window) < len(value) else "")


class UnknownShard(LeanMemoryError):
    """The shard name is not one of the configured shards."""


class InvalidEntry(LeanMemoryError):
    """The entry (text, title, date, tags, supersedes, size) cannot be stored."""


class ConfigError(LeanMemoryError):
    """`.agents/config.toml` is unreadable or has an invalid key."""


class ShardError(LeanMemoryError):
    """A shard file cannot be read (not UTF-8, unreadable, unsafe to rewrite)."""


class NotInitialized(LeanMemoryError):
    """No `.agents/memory/` where one was needed."""


class HookNotInstalled(LeanMemoryError):
    """The git pre-commit hook could not be installed: commits are not protected."""


class QueryError(LeanMemoryError):
    """The query has nothing to search for."""


class SecretFound(LeanMemoryError):
    """The text contains a credential; nothing was written."""

    exit_code = 1

    def __init__(self, findings: Sequence[Finding], where: str = "entry") -> None:
        self.findings = tuple(findings)
        rules = ", ".join(sorted({f.rule for f in self.findings}))
        super().__init__(
            f"refused: {where} contains {len(self.findings)} secret(s) ({rules}); "
            "nothing was written"
        )

    def finding_lines(self) -> list[str]:
        """One redacted ``path:line: rule: preview`` line per finding."""
        from .secrets import format_finding

        return [redact_message(format_finding(f)) for f in self.findings]
