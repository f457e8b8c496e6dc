"""A small Markdown subset as HTML, escaping first: memory text is hostile input.

Every character of the input is escaped (``html.escape``, quote=True) before any structure is
recognised, so the only tags in the output are the ones written here: headings, paragraphs,
fenced code, lists, quotes, inline code, emphasis, and links to http(s) addresses only (any
other link is shown as its text and address). Characters that change how text *looks*
without being visible (bidi overrides, zero-width joiners, other format and control
characters) are shown as a visible ``⟨U+202E⟩`` mark, so a shard cannot hide or reorder text.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable

from .format import closes_fence, opens_fence

# Tags and attributes this module writes (tests/test_serve.py checks nothing else appears).
TAGS = frozenset({"h4", "h5", "h6", "p", "pre", "code", "ul", "ol", "li", "strong", "em",
                  "a", "blockquote", "br"})
ATTRS = frozenset({("a", "href"), ("a", "rel")})

_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*")
_BULLET = re.compile(r" {0,3}[-*+][ \t]+(.*)")
_NUMBERED = re.compile(r" {0,3}\d{1,9}[.)][ \t]+(.*)")
_QUOTE = re.compile(r" {0,3}> ?(.*)")
# Spans are bounded and hold no delimiter of their own kind, so hostile text (a line of
# 20,000 `**`) costs linear time, not cubic.
_CODE_SPAN = re.compile(r"(`{1,8})([^`]{1,2000})\1")
# On escaped text: the address holds no quote, space or angle bracket (they were escaped or
# end the match), so it cannot leave the attribute it is put in.
_LINK = re.compile(r"\[([^\[\]\n]{1,500})\]\(([^()\s]{1,2000})\)")
_STRONG = re.compile(r"\*\*(?=[^\s*])([^*]{1,500}?)(?<=\S)\*\*"
                     r"|__(?=[^\s_])([^_]{1,500}?)(?<=\S)__")
_EM = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*]{1,500}?)(?<=\S)\*(?![\w*])"
                 r"|(?<![\w_])_(?=[^\s_])([^_]{1,500}?)(?<=\S)_(?![\w_])")
MAX_DEPTH = 8  # nested quotes deeper than this read as text
_SAFE_URL = re.compile(r"https?://[^\s\"'<>`\\]+", re.I)


def _shown(ch: str) -> str:
    if ch.isprintable() or ch in "\t\n" or unicodedata.category(ch) == "Zs":
        return ch
    return f"⟨U+{ord(ch):04X}⟩"


def escape(text: str) -> str:
    """``text`` safe as HTML text or as a quoted attribute value, with every character that
    is not visible (format and control characters, bidi overrides, zero-width ones,
    separators, private use, unassigned) shown as a ``⟨U+XXXX⟩`` mark."""
    text = html.escape(text.replace("\r\n", "\n").replace("\r", "\n"), quote=True)
    if text.replace("\n", "").replace("\t", "").isprintable():  # the common case, at C speed
        return text
    return "".join(map(_shown, text))


def _emphasis(esc: str) -> str:
    esc = _STRONG.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", esc)
    return _EM.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", esc)


def _links(esc: str) -> str:
    out: list[str] = []
    at = 0
    for m in _LINK.finditer(esc):
        out.append(_emphasis(esc[at:m.start()]))
        label, url = _emphasis(m.group(1)), m.group(2)
        if _SAFE_URL.fullmatch(html.unescape(url)):
            out.append(f'<a href="{url}" rel="noopener noreferrer">{label}</a>')
        else:  # javascript:, data:, relative...: shown, never followed
            out.append(f"{label} ({url})")
        at = m.end()
    out.append(_emphasis(esc[at:]))
    return "".join(out)


def inline(text: str) -> str:
    """One paragraph's text: code spans, links, emphasis; everything else as text."""
    out: list[str] = []
    at = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_links(escape(text[at:m.start()])))
        out.append(f"<code>{escape(m.group(2).strip(' ') or m.group(2))}</code>")
        at = m.end()
    out.append(_links(escape(text[at:])))
    return "".join(out)


def _paragraph(lines: list[str]) -> str:
    return "<p>" + "<br>".join(inline(ln.strip()) for ln in lines) + "</p>"


def render(text: str, *, top: int = 4) -> str:
    """Markdown ``text`` as HTML; its headings start at ``<h{top}>`` (capped at h6)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(_blocks(lines, top, 0))


def _blocks(lines: list[str], top: int, depth: int) -> Iterable[str]:
    i = 0
    para: list[str] = []

    def flush() -> Iterable[str]:
        if para:
            yield _paragraph(para)
            para.clear()

    while i < len(lines):
        line = lines[i]
        mark = opens_fence(line)
        if mark is not None:
            yield from flush()
            body: list[str] = []
            i += 1
            while i < len(lines):
                if closes_fence(mark, lines[i]):
                    break
                body.append(lines[i])
                i += 1
            i += 1
            yield "<pre><code>" + escape("\n".join(body)) + "</code></pre>"
            continue
        if not line.strip():
            yield from flush()
            i += 1
            continue
        heading = _HEADING.fullmatch(line)
        if heading:
            yield from flush()
            level = min(6, top + len(heading.group(1)) - 1)
            yield f"<h{level}>{inline(heading.group(2))}</h{level}>"
            i += 1
            continue
        for pattern, tag in ((_BULLET, "ul"), (_NUMBERED, "ol")):
            if pattern.fullmatch(line):
                yield from flush()
                items: list[list[str]] = []
                while i < len(lines) and lines[i].strip():
                    m = pattern.fullmatch(lines[i])
                    if m:
                        items.append([m.group(1)])
                    elif lines[i].startswith((" ", "\t")):  # a continuation line
                        items[-1].append(lines[i].strip())
                    else:
                        break
                    i += 1
                yield (f"<{tag}>" + "".join("<li>" + "<br>".join(inline(x) for x in item)
                                            + "</li>" for item in items) + f"</{tag}>")
                break
        else:
            quote = _QUOTE.fullmatch(line) if depth < MAX_DEPTH else None
            if quote:
                yield from flush()
                quoted: list[str] = []
                while i < len(lines) and (m := _QUOTE.fullmatch(lines[i])):
                    quoted.append(m.group(1))
                    i += 1
                yield "<blockquote>" + "".join(_blocks(quoted, top, depth + 1)) + "</blockquote>"
                continue
            para.append(line)
            i += 1
            continue
    yield from flush()
