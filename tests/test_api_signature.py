"""docs/api.md and the docstring of ``Memory.search`` say its real signature (SPEC section 3's
predates the layer-labelled hits: a reader of the docs must not be led by it)."""

from __future__ import annotations

import inspect

from lean_memory import Memory

from .conftest import ROOT


def _signature_text() -> str:
    """``search(query, *, k=5, ...)`` as ``inspect`` gives it, annotations left out: an
    oracle built from the function object, not from the docs."""
    sig = inspect.signature(Memory.search)
    words, star = [], False
    for p in list(sig.parameters.values())[1:]:  # without self
        if p.kind is p.KEYWORD_ONLY and not star:
            words.append("*")
            star = True
        words.append(p.name if p.default is p.empty else f"{p.name}={p.default!r}")
    return f"search({', '.join(words)})"


def test_docs_api_gives_search_s_whole_signature() -> None:
    """Guards docs/api.md showing only some of search's keywords (shards, include_archive's
    default of None, layers were missing) and a stale return type."""
    doc = " ".join((ROOT / "docs" / "api.md").read_text(encoding="utf-8").split())
    wanted = _signature_text()
    assert "layers=" in wanted and "include_archive=None" in wanted  # the case it guards
    assert f"mem.{wanted}" in doc.replace("( ", "(").replace(" )", ")")
    assert "-> list[LayerHit]" in doc and "lean_memory.layers.LayerHit" in doc


def test_search_s_docstring_names_every_keyword() -> None:
    """Guards a keyword of Memory.search that its docstring never explains (``shards``)."""
    doc = inspect.getdoc(Memory.search) or ""
    params = [n for n in inspect.signature(Memory.search).parameters if n not in ("self",)]
    assert params == ["query", "k", "shards", "include_archive", "session", "layers"]
    missing = [n for n in params if f"``{n}``" not in doc and f"``{n}=" not in doc]
    assert missing == []
