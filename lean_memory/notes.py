"""Notes as a model writes them, made into entries.

A model writing through the memory tool rarely writes ``## `` entries: it writes a ``#``
title, bullets, ``###`` sections, several facts in one file. Only entries are searched and
recalled, so such a file held nothing memory could find (issue 35). :func:`as_entries`
turns the part of a file that is not yet in entries (its preamble) into entries, before the
memory tool writes it:

* a leading ``#`` title (and blank lines) stays the preamble, and so does the preamble the
  shard already had (a default shard's title and description are never turned into entries)
  and a lone paragraph between the title and the file's entries (its description);
* each heading after it (``#`` to ``######``, other than ``## ``) starts an entry titled
  with the heading's text, holding the section as written (its bullets, paragraphs, code);
* outside a section, each top-level list item (with its indented lines) and each paragraph
  is an entry of its own: a one-line fact is the entry's heading (said once, so an edit of
  it finds one place), a longer one is titled by :func:`format.default_title`;
* fenced code is never split or read for headings (the parser's fence rule);
* text already in entries is left as it is, byte for byte.

The result is an ordinary shard: entries without metadata get their ids from the parser,
as hand-written ones do (ADR 0002). Pure text in, text out; deterministic.
"""

from __future__ import annotations

from . import format as fmt

_BULLETS = ("- ", "* ", "+ ")


def _is_item(line: str) -> bool:
    """A top-level list item: a bullet, or ``1.``/``1)`` and a space."""
    if line.startswith(_BULLETS):
        return True
    digits = len(line) - len(line.lstrip("0123456789"))
    return 0 < digits <= 9 and line[digits:digits + 2] in (". ", ") ")


def _unmarked(text: str) -> str:
    """``text`` without the list marker of its first line (``1.`` is no part of a title)."""
    if text.startswith(_BULLETS):
        return text[2:]
    digits = len(text) - len(text.lstrip("0123456789"))
    return text[digits + 2:] if _is_item(text) else text


def _heading(line: str) -> str | None:
    """The text of a Markdown heading line (any level but the entry's ``## ``), else None."""
    marks = len(line) - len(line.lstrip("#"))
    if not 1 <= marks <= 6 or line[marks:marks + 1] not in (" ", "\t") or marks == 2:
        return None
    text = line[marks:].strip().rstrip("#").strip()
    return text or None


def _blocks(lines: list[str]) -> tuple[list[str], list[tuple[str | None, list[str]]]]:
    """(the title lines kept as preamble, [(heading or None, the block's lines)])."""
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("# ")):
        i += 1
    head = lines[:i]
    blocks: list[tuple[str | None, list[str]]] = []
    fence: str | None = None
    section = gap = False
    for line in lines[i:]:
        bare = line.rstrip("\r\n")
        if fence is not None:  # inside fenced code: nothing starts a block
            fence = fmt.fence_after(fence, bare)
            blocks[-1][1].append(line)
            continue
        title = _heading(bare)
        if title is not None:
            blocks.append((title, []))
            section, gap = True, False
            continue
        if not bare.strip():
            if blocks:
                blocks[-1][1].append(line)
            gap = True
            continue
        indented = bare[:1] in (" ", "\t")
        if not section and (not blocks or _is_item(bare) or (gap and not indented)):
            blocks.append((None, []))
        blocks[-1][1].append(line)
        fence = fmt.fence_after(None, bare)
        gap = False
    return head, blocks


def as_entries(text: str, keep: str = "") -> str:
    """``text`` with the facts of its preamble made into entries. ``keep``: the shard's
    preamble before this write, left as it is when ``text`` still starts with it."""
    offsets = fmt.entry_offsets(text)
    end = offsets[0] if offsets else len(text)
    preamble, rest = text[:end], text[end:]
    kept = keep if keep and preamble.startswith(keep) else ""
    head, blocks = _blocks(preamble[len(kept):].splitlines(keepends=True))
    if rest and len(blocks) == 1 and blocks[0][0] is None and not _is_item(blocks[0][1][0]):
        return text  # one paragraph under the title, entries after it: a description
    entries = []
    for title, body in blocks:
        content = "".join(body).strip("\r\n")
        if title is None and "\n" not in content and "\r" not in content:
            # one line: the fact is the heading, said once (an edit of it finds one place)
            title, content = " ".join(_unmarked(content).split()), ""
        name = title if title is not None else fmt.default_title(_unmarked(content))
        entries.append(f"{fmt.HEADING}{name}\n" + (f"\n{content}\n" if content.strip() else ""))
    if not entries:
        return text
    top = (kept + "".join(head)).rstrip("\r\n")
    return "\n".join([*([top, ""] if top else []), "\n".join(entries)]) + (
        "\n" + rest if rest else "")
