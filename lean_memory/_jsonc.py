"""JSON without ``json``: its C accelerator (``_json``) read and written directly.

``import json`` costs ``re`` (its decoder's patterns) and both of its encoder and decoder
modules: about as much as a prompt hook's whole answer. The hook reads one JSON object and
writes one; its asks file is JSON lines. These are ``json.loads`` and the string encoders of
``json.dumps``, the same C code ``json`` runs (``_json``), with ``json`` itself imported only
to raise the very error it would raise (on input it rejects) or where ``_json`` is missing.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own costs an import
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WHITESPACE = " \t\n\r"  # json's own: [ \t\n\r]*


def _constant(name: str) -> float:
    return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


class _Decoder:
    """What ``_json.make_scanner`` reads of a ``json.JSONDecoder()``: its defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = staticmethod(_constant)


_scan: list[Callable[[str, int], tuple[Any, int]]] = []


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value, or the same error (raised by ``json``)."""
    if not _scan:
        try:
            from _json import make_scanner
        except ImportError:  # another Python: json's own pure-Python scanner
            import json

            return json.loads(text)
        _scan.append(make_scanner(_Decoder()))  # type: ignore[arg-type]  # duck-typed
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        if text.startswith("\ufeff"):
            raise ValueError("a BOM")
        value, end = _scan[0](text, start)
    except (StopIteration, ValueError):
        value, end = None, -1
    if end < 0 or text[end:].strip(_WHITESPACE):
        import json

        return json.loads(text)  # raises what json raises
    return value


def string(text: str, ascii_only: bool = True) -> str:
    """``json.dumps(text, ensure_ascii=ascii_only)`` of a string."""
    # Printable text without a quote or a backslash needs no escape: most titles and ids,
    # written without loading the C module (a shared library: ~0.5 ms on every put).
    if '"' not in text and "\\" not in text and text.isprintable() \
            and (text.isascii() or not ascii_only):
        return f'"{text}"'
    try:
        from _json import encode_basestring, encode_basestring_ascii
    except ImportError:  # another Python
        import json

        return json.dumps(text, ensure_ascii=ascii_only)
    return encode_basestring_ascii(text) if ascii_only else encode_basestring(text)
