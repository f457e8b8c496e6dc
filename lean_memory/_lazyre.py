"""Regular expressions compiled on first use.

``re`` compiles in Python (0.1-1 ms a pattern, measured): a module that compiles a dozen
at import makes every process pay, even one that never matches them (a query, a hook).
``re`` itself is imported on the first compile: importing it costs a few ms more.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    import re

_METHODS = ("findall", "finditer", "fullmatch", "match", "search", "split", "sub", "subn")


class _Lazy:
    # Once compiled, the pattern's methods are slots of this object: plain attribute reads.
    __slots__ = ("_args", *_METHODS)

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> object:
        import re

        compiled = re.compile(*self._args)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, done when the pattern is first used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]
