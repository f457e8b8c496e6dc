"""Every relative link in README.md and docs/**/*.md names a file or folder that exists.

Guards the README split (issue 37, item 6): a section moved into ``docs/`` keeps links written
for the top level (``docs/adr/...``, ``bench/...``) that no longer resolve from there."""

from __future__ import annotations

import re
from pathlib import Path

from .conftest import ROOT

# ](target) or ](target "title"); the target ends at white space or the closing parenthesis
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _links(text: str) -> list[str]:
    found: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            found += LINK.findall(line)
    return found


def _relative(target: str) -> str | None:
    if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith(("#", "/")):
        return None
    return target.split("#", 1)[0] or None


def test_links_finds_relative_links_only() -> None:
    """The scanner itself: a relative link is found, a URL, an anchor and a fenced line are not
    (else the real test could pass by finding nothing)."""
    text = "[a](docs/x.md) [b](https://e.org) [c](#top) [d](y.md#part)\n```\n[e](z.md)\n```\n"
    assert [t for t in map(_relative, _links(text)) if t] == ["docs/x.md", "y.md"]


def test_relative_links_resolve() -> None:
    """A moved section whose links were not rewritten, or a renamed file still linked, fails."""
    missing = []
    checked = 0
    for doc in _documents():
        for target in _links(doc.read_text(encoding="utf-8")):
            path = _relative(target)
            if path is None:
                continue
            checked += 1
            if not (doc.parent / path).exists():
                missing.append(f"{doc.relative_to(ROOT)}: {target}")
    assert checked > 20, "too few links found: the scanner is broken"
    assert missing == []
