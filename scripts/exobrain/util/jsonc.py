"""JSON with comments and trailing commas (JSONC), read and edited one member at a time.

Agents keep their settings in files people write by hand: Gemini CLI and VS Code accept
``//`` and ``/* */`` comments and trailing commas, and a person's ``.mcp.json`` has its own
indentation. Rewriting such a file from parsed data would drop the comments and restyle every
line, so the one member the toolkit owns is edited in the text instead: its value replaced, or
the member inserted in the object that should hold it, and every other byte kept.

Both passes below keep the text's length, so an offset in the cleaned text (comments and
trailing commas blanked out) is the same offset in the original, and the standard decoder can
find where each value ends.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError
from exobrain.util.fileio import parse_json

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()


def _blank(text: str, start: int, end: int, out: list[str]) -> None:
    for at in range(start, end):
        if out[at] not in "\r\n":
            out[at] = " "


def clean(text: str, path: Path, *, commas: bool = True) -> str:
    """``text`` with comments (and, unless ``commas`` is False, trailing commas) replaced by
    spaces, line breaks kept."""
    out = list(text)
    at, size = 0, len(text)
    last_comma: int | None = None  # a comma that only whitespace or comments follow so far
    while at < size:
        char = text[at]
        if char == '"':
            last_comma = None
            at += 1
            while at < size and text[at] != '"':
                at += 2 if text[at] == "\\" else 1
            at += 1
        elif text.startswith("//", at):
            end = text.find("\n", at)
            end = size if end < 0 else end
            _blank(text, at, end, out)
            at = end
        elif text.startswith("/*", at):
            end = text.find("*/", at + 2)
            if end < 0:
                raise InputFileError(f"{path}: a /* comment is never closed")
            _blank(text, at, end + 2, out)
            at = end + 2
        else:
            if commas and char in "}]" and last_comma is not None:
                out[last_comma] = " "
            if char not in _WS:
                last_comma = at if char == "," else None
            at += 1
    return "".join(out)


def loads(text: str, path: Path) -> Any:
    """The data of a JSON or JSONC text; InputFileError (with line and column) otherwise."""
    return parse_json(clean(text, path), path)


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in _WS:
        at += 1
    return at


def _members(text: str, start: int) -> tuple[list[_Member], int]:
    """The members of the object whose ``{`` is at ``start`` in cleaned (valid) text, and
    the offset of its ``}``."""
    found: list[_Member] = []
    at = _skip(text, start + 1)
    while text[at] != "}":
        key, after = _DECODER.raw_decode(text, at)
        value = _skip(text, _skip(text, after) + 1)  # past the colon
        _, end = _DECODER.raw_decode(text, value)
        found.append(_Member(key, at, value, end))
        at = _skip(text, end)
        if text[at] == ",":
            at = _skip(text, at + 1)
    return found, at


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = start
    while end < at and text[end] in " \t":
        end += 1
    return text[start:end]


def _render(value: Any, indent: str, unit: str, newline: str) -> str:
    """``value`` in the file's indentation; on one line in a file that is all one line."""
    if not newline:
        return json.dumps(value, ensure_ascii=False)
    lines = json.dumps(value, indent=unit or 2, ensure_ascii=False).split("\n")
    return (newline + indent).join(lines)


def set_member(text: str, keys: tuple[str, ...], value: Any, path: Path) -> str:
    """``text`` with the member at ``keys`` set to ``value`` (missing objects on the way are
    inserted too), every byte outside that member kept. Refused (InputFileError) when the
    text is not JSONC, or when the edit would not give exactly that data."""
    cleaned = clean(text, path)
    expected = parse_json(cleaned, path)
    newline = "\r\n" if "\r\n" in text else "\n" if "\n" in text else ""
    start = _skip(cleaned, 0)
    if not isinstance(expected, dict) or cleaned[start] != "{":
        raise InputFileError(f"{path}: expected a JSON object")
    members, _ = _members(cleaned, start)
    unit = _line_indent(text, members[0].key_start) if members else "  "
    target: Any = expected
    for key in keys[:-1]:
        target = target.setdefault(key, {}) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        raise InputFileError(f"{path}: {'.'.join(keys[:-1])} must be an object")
    target[keys[-1]] = value
    edited = _edit(text, cleaned, start, keys, value, unit, newline)
    if loads(edited, path) != expected:
        raise InputFileError(
            f"{path}: cannot add the {keys[-1]} entry without changing the rest",
            hint="add it by hand, then run the command again",
        )
    return edited


def _edit(
    text: str, cleaned: str, start: int, keys: tuple[str, ...], value: Any, unit: str, nl: str
) -> str:
    for depth, key in enumerate(keys):
        members, close = _members(cleaned, start)
        match = [m for m in members if m.key == key]
        if not match:
            for inner in reversed(keys[depth + 1 :]):
                value = {inner: value}
            return _insert(text, start, close, members, key, value, unit, nl)
        member = match[-1]  # the one a parser keeps
        if depth == len(keys) - 1 or cleaned[member.value_start] != "{":
            indent = _line_indent(text, member.key_start)
            rendered = _render(value, indent, unit, nl)
            return text[: member.value_start] + rendered + text[member.value_end :]
        start = member.value_start
    raise AssertionError("unreachable: keys is never empty")


def _insert(
    text: str,
    start: int,
    close: int,
    members: list[_Member],
    key: str,
    value: Any,
    unit: str,
    nl: str,
) -> str:
    """Insert ``"key": value`` as the last member of the object from ``start`` to ``close``,
    on its own line in the indentation of its siblings (inline when they share one line)."""
    if not members and not nl:
        member = f"{json.dumps(key)}: {_render(value, '', unit, nl)}"
        return text[: start + 1] + member + text[start + 1 :]
    if not members:
        indent = _line_indent(text, start) + unit
        member = f"{json.dumps(key)}: {_render(value, indent, unit, nl)}"
        closing = "" if "\n" in text[start:close] else nl + _line_indent(text, start)
        return text[: start + 1] + nl + indent + member + closing + text[start + 1 :]
    last = members[-1]
    indent = _line_indent(text, last.key_start)
    line_end = text.find("\n", last.value_end)
    line_end = len(text) if line_end < 0 else line_end
    rest = clean(text, Path(), commas=False)[last.value_end : line_end]  # its commas kept
    if rest.strip() not in ("", ","):  # siblings on one line: stay on it
        inline = f", {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}"
        return text[: last.value_end] + inline + text[last.value_end :]
    trailing = "," in rest
    at = line_end - 1 if line_end and text[line_end - 1 : line_end] == "\r" else line_end
    member = f"{json.dumps(key)}: {_render(value, indent, unit, nl)}{',' if trailing else ''}"
    head = text[: last.value_end] + ("" if trailing else ",") + text[last.value_end : at]
    return head + nl + indent + member + text[at:]
