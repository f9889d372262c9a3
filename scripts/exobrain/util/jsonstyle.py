"""Editing JSON text in the file's own style, so a change touches only what changed.

People edit ``skills.json`` by hand and review it in pull requests. Re-serialising a whole
document would churn every line whose spacing differs from ours, so edits of an array are
spliced into the original text instead: elements that did not change keep their exact bytes,
and new or changed ones are rendered in the style the file already uses (one element per line
or fully expanded, its indentation, its separators, its newline). Adding an element and
removing it again gives back the original bytes.

The text handed in has already been parsed by :func:`json.loads`, so the scanners below may
assume well-formed JSON.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Style:
    """How a file writes its JSON; the defaults are the house style of ``skills.json``."""

    newline: str = "\n"
    indent: str = "  "  # one level of indentation
    inline: bool = True  # one element per line (else expanded, one key per line)
    pad: str = " "  # inside the braces of an inline object: { "a": 1 }
    item_sep: str = ", "
    key_sep: str = ": "
    ensure_ascii: bool = False
    multiline: bool = True  # False for a file written on a single line


@dataclass(frozen=True)
class ArraySpan:
    """Where a top-level key's array sits in the text: its brackets and each element."""

    open: int  # offset of '['
    close: int  # offset of ']'
    items: list[tuple[int, int]]  # [start, end) of each element
    key_line_indent: str  # indentation of the line holding the key


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def _starts_line(text: str, pos: int) -> bool:
    start = text.rfind("\n", 0, pos) + 1
    return not text[start:pos].strip(" \t")


def locate_array(text: str, key: str) -> ArraySpan | None:
    """The array under ``key`` in the top-level object (the last one, as json.loads keeps)."""
    found = None
    pos = _skip(text, 0)
    if pos >= len(text) or text[pos] != "{":
        return None
    pos = _skip(text, pos + 1)
    while text[pos] != "}":
        key_pos = pos
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, _skip(text, pos) + 1)  # past ':'
        if name == key and text[pos] == "[":
            found, pos = _scan_array(text, pos, _line_indent(text, key_pos))
        else:
            _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return found


def element_lines(text: str, key: str) -> list[int]:
    """The 1-based line on which each element of the top-level ``key`` array starts, for
    messages that point at an entry ([] when the text holds no such array or does not parse).
    Linear in the text: lines are counted once, between one element and the next."""
    try:
        span = locate_array(text, key)
    except (ValueError, IndexError):
        return []
    if span is None:
        return []
    lines, line, pos = [], 1, 0
    for start, _ in span.items:
        line += text.count("\n", pos, start)
        pos = start
        lines.append(line)
    return lines


def _scan_array(text: str, pos: int, indent: str) -> tuple[ArraySpan, int]:
    open_, items = pos, []
    pos = _skip(text, pos + 1)
    while text[pos] != "]":
        _, end = _DECODER.raw_decode(text, pos)
        items.append((pos, end))
        pos = _skip(text, end)
        if text[pos] == ",":
            pos = _skip(text, pos + 1)
    return ArraySpan(open_, pos, items, indent), pos + 1


def _object_seps(text: str) -> tuple[str | None, str | None, str | None]:
    """(pad, key_sep, item_sep) as written in an object's text; None where it does not say."""
    pos = _skip(text, 1)
    pad = text[1:pos] if "\n" not in text[1:pos] else None
    key_sep = item_sep = None
    while pos < len(text) and text[pos] == '"':
        _, end = _DECODER.raw_decode(text, pos)
        colon = _skip(text, end)
        value = _skip(text, colon + 1)
        key_sep = key_sep or text[end:value]
        _, pos = _DECODER.raw_decode(text, value)
        after = _skip(text, pos)
        if text[after] != ",":
            break
        nxt = _skip(text, after + 1)
        item_sep = item_sep or text[pos:nxt]
        pos = nxt
    if item_sep is None and key_sep is not None and "\n" not in key_sep:
        item_sep = "," + key_sep[1:]  # a one-key object: compact files stay compact
    return pad, key_sep, item_sep


def detect_style(text: str, span: ArraySpan | None) -> Style:
    """The style of ``text``, judged from the elements of ``span`` and the top-level object."""
    base = Style(
        newline="\r\n" if "\r\n" in text else "\n",
        ensure_ascii=text.isascii() and "\\u" in text,
        multiline="\n" in text.strip(),
    )
    first_key = _skip(text, _skip(text, 0) + 1)
    if base.multiline and _starts_line(text, first_key):
        base = replace(base, indent=_line_indent(text, first_key) or base.indent)
    spans = span.items if span else []
    items = [text[s:e] for s, e in spans]
    objects = [t for t in items if t.startswith("{")]
    if not objects:
        if not base.multiline:  # a one-line file: follow its top-level spacing
            pad, key_sep, item_sep = _object_seps(text[_skip(text, 0) :])
            base = replace(
                base,
                pad=pad or "",
                key_sep=key_sep or base.key_sep,
                item_sep=item_sep or base.item_sep,
            )
        return base
    inline = [t for t in objects if "\n" not in t]
    if len(inline) * 2 >= len(objects):
        pad, key_sep, item_sep = _object_seps(inline[0])
        return replace(
            base,
            inline=True,
            pad=pad or "",
            key_sep=key_sep or base.key_sep,
            item_sep=item_sep or base.item_sep,
        )
    sample = next(t for t in objects if "\n" in t)
    start = spans[items.index(sample)][0]
    element_indent = _line_indent(text, start)
    second = sample.split("\n", 1)[1]
    inner = second[: len(second) - len(second.lstrip(" \t"))]
    unit = inner[len(element_indent) :] if inner.startswith(element_indent) else ""
    _, key_sep, _ = _object_seps(sample)
    return replace(
        base,
        inline=False,
        indent=unit or base.indent,
        key_sep=key_sep if key_sep and "\n" not in key_sep else ": ",
    )


def render_inline(value: Any, style: Style) -> str:
    """One value on one line, with the style's separators and brace padding."""
    if isinstance(value, dict):
        if not value:
            return "{}"
        body = style.item_sep.join(
            json.dumps(k, ensure_ascii=style.ensure_ascii) + style.key_sep + render_inline(v, style)
            for k, v in value.items()
        )
        return "{" + style.pad + body + style.pad + "}"
    if isinstance(value, list):
        return "[" + style.item_sep.join(render_inline(v, style) for v in value) + "]"
    return json.dumps(value, ensure_ascii=style.ensure_ascii)


def render_element(value: Any, style: Style, indent: str) -> str:
    """An array element starting at a line indented by ``indent``."""
    if style.inline or not style.multiline:
        return render_inline(value, style)
    text = json.dumps(
        value, indent=style.indent, ensure_ascii=style.ensure_ascii, separators=(",", style.key_sep)
    )
    return text.replace("\n", style.newline + indent)


def _identity(value: Any) -> str:
    return repr(value)  # JSON data: a faithful, fast key in which key order counts


def splice_array(text: str, span: ArraySpan, old: list[Any], new: list[Any]) -> str:
    """``text`` with the array at ``span`` (holding ``old``) now holding ``new``.

    Elements equal to an old one (same keys in the same order) keep their original text, found
    by a longest-common-subsequence match; the rest are rendered in the file's style.
    """
    style = detect_style(text, span)
    n = len(span.items)
    if not new:
        return text[: span.open] + "[]" + text[span.close + 1 :]
    if n:
        lead = text[span.open + 1 : span.items[0][0]]
        trail = text[span.items[-1][1] : span.close]
        seps = [text[span.items[i][1] : span.items[i + 1][0]] for i in range(n - 1)]
        indent = (
            _line_indent(text, span.items[0][0])
            if _starts_line(text, span.items[0][0])
            else span.key_line_indent + style.indent
        )
    elif style.multiline:
        indent = span.key_line_indent + style.indent
        lead, trail, seps = style.newline + indent, style.newline + span.key_line_indent, []
    else:
        indent, lead, trail, seps = "", "", "", []
    if seps:
        common = Counter(seps).most_common(1)[0][0]
    elif "\n" in lead:
        common = "," + lead
    else:
        common = style.item_sep
    pieces: list[str | None] = [None] * len(new)
    matcher = difflib.SequenceMatcher(
        a=[_identity(v) for v in old], b=[_identity(v) for v in new], autojunk=False
    )
    for a, b, size in matcher.get_matching_blocks():
        for k in range(size):
            start, end = span.items[a + k]
            pieces[b + k] = text[start:end]
    parts = [lead]
    for i, piece in enumerate(pieces):
        if i:
            parts.append(seps[i - 1] if i - 1 < len(seps) else common)
        parts.append(piece if piece is not None else render_element(new[i], style, indent))
    parts.append(trail)
    return text[: span.open + 1] + "".join(parts) + text[span.close :]


def render_like(original: str, data: Any) -> str:
    """``data`` serialised with the indentation, newline and final newline of ``original``."""
    newline = "\r\n" if "\r\n" in original else "\n"
    ending = newline if original.endswith("\n") else ""
    ensure_ascii = original.isascii() and "\\u" in original
    if "\n" not in original.strip():
        _, key_sep, item_sep = (
            _object_seps(original.strip())
            if original.lstrip().startswith("{")
            else (None, None, None)
        )
        return (
            json.dumps(
                data, ensure_ascii=ensure_ascii, separators=(item_sep or ", ", key_sep or ": ")
            )
            + ending
        )
    match = re.search(r"\n([ \t]+)\S", original)
    indent = match.group(1) if match else "  "
    text = json.dumps(data, indent=indent, ensure_ascii=ensure_ascii)
    return text.replace("\n", newline) + ending
