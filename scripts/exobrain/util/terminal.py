"""Text from files, made safe to reach a terminal: the one output filter.

Every text a command prints that someone else could have written — a SKILL.md's
frontmatter and body, a ledger's host, agent and note, a comment, a scope's folder name, a
path — may hold characters a terminal acts on instead of showing: ESC starts the sequences
that set the window title (``ESC ] 0;…``), make hyperlinks (``ESC ] 8;;…``), write the
clipboard (OSC 52) or move the cursor and repaint (``ESC [ …``); U+009B is the same CSI in
one character and every C1 control (U+0080–U+009F) has a meaning of its own; the other C0
controls and DEL erase, return and ring; and the bidi controls (U+202A–U+202E,
U+2066–U+2069, U+200E, U+200F, U+061C) reorder what is shown, so a line reads other than
what it holds. rich, which draws the terminal tables, drops a few of them but passes ESC,
C1 and the bidi controls through.

So each such character is shown escaped and visible instead — ``\\x1b``, ``\\x9b``,
``\\u202e`` — and the reader sees that it is there; every other character (letters of any
script, emoji with their joiners, CJK) is left exactly as it was. A lone surrogate (bytes
that were not UTF-8, kept by ``surrogateescape``) is shown as its escape too, so no raw
byte of it reaches the terminal. :func:`safe_line` is for a value printed on one line (a
newline or a tab in it is escaped too); :func:`safe_text` for a text printed as lines on
purpose (a skill's body: newlines and tabs kept). :func:`json_text` writes JSON whose
strings carry the same characters as ``\\uXXXX`` escapes — the same data for a JSON reader,
nothing raw for a terminal (``json.dumps`` escapes C0 but leaves DEL, C1 and the bidi
controls raw when ``ensure_ascii`` is off). :func:`unsafe_in` names the first such
character, for the writers that refuse them.

Pure functions, standard library only: the core, every family and the usage hook may use it.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: The bidi controls: embeddings and overrides, isolates, the marks, the Arabic letter mark.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_REST = "\x7f-\x9f" + BIDI + "\ud800-\udfff"
#: What a value on one line may not show raw: every C0 control, DEL, C1, bidi, surrogates.
_LINE = re.compile(f"[\x00-\x1f{_REST}]")
#: The same for lines of text: newlines and tabs are kept.
_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f{_REST}]")
#: What ``json.dumps(ensure_ascii=False)`` leaves raw of the above (it escapes C0 itself).
_JSON = re.compile(f"[{_REST}]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def safe_line(text: str) -> str:
    """``text`` for one line of a terminal: each control, bidi control or lone surrogate
    shown as its escape (a newline as ``\\x0a``), everything else as it is."""
    if text.isprintable():  # the common case, in C: nothing to escape (no Cc, Cf, Cs, Z*)
        return text
    return _LINE.sub(_escaped, text)


def safe_text(text: str) -> str:
    """``text`` printed as lines on purpose: as :func:`safe_line`, but newlines and tabs
    stay what they are."""
    if text.isprintable():
        return text
    return _TEXT.sub(_escaped, text)


def json_safe(text: str) -> str:
    """JSON text (made by ``json.dumps``) with DEL, C1, bidi controls and lone surrogates
    written as ``\\uXXXX``: they can only stand inside its strings, where the escape means
    the same character, so the data is unchanged."""
    if text.isascii() and "\x7f" not in text:  # the common case, in C: nothing but DEL
        return text
    return _JSON.sub(_json_escaped, text)


def json_text(data: Any, indent: int | None = 2) -> str:
    """``data`` as JSON for a terminal or a pipe: readable non-ASCII text, no raw control."""
    return json_safe(json.dumps(data, indent=indent, ensure_ascii=False))


def unsafe_in(text: str, *, lines: bool = False) -> str | None:
    """The first character of ``text`` that :func:`safe_line` (with ``lines``:
    :func:`safe_text`) would escape, shown escaped (``\\x1b``, ``\\u202e``); None when
    there is none."""
    found = (_TEXT if lines else _LINE).search(text)
    return None if found is None else _escaped(found)
