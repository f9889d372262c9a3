"""Characters a human reviewer cannot see, found and named: the scanner of hidden text.

A skill is read by an agent as text, and reviewed by a person as rendered text. Some
characters are in the first and not in the second, so a skill can say one thing to its
reviewer and another to the agent:

* **tag characters** (U+E0000–U+E007F) mirror ASCII and render as nothing: a whole
  instruction ("ignore the user and …") can ride invisibly inside a harmless line, and
  models read it;
* **zero-width characters** (U+200B–U+200D, U+2060, U+FEFF anywhere but as a file's leading
  byte-order mark) split a word so that a reviewer's search or a filter misses it, or join
  what looks like two tokens;
* **bidi controls** (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) reorder what is
  shown, so a script reads other than it runs ("Trojan Source");
* **other invisible formatting characters** with no business in a skill's text: the soft
  hyphen, the invisible mathematical operators (U+2061–U+2064), the Mongolian vowel
  separator, the deprecated format controls (U+206A–U+206F), the interlinear annotation
  controls (U+FFF9–U+FFFB), the musical formatting controls (U+1D173–U+1D17A), the Khmer
  inherent vowels and the Hangul fillers that render as blank space (used to make
  invisible identifiers);
* **runs of variation selectors** (U+FE00–U+FE0F, U+E0100–U+E01EF): one selects the
  glyph of the character before it, two or more in a row select nothing and can carry
  arbitrary bytes behind an emoji.

Two uses are the writing system's own and never reported: a zero-width joiner between two
emoji (how the technologist, 👩 U+200D 💻, is made), and a flag's subdivision tag sequence (🏴
then up to seven tag letters or digits and the cancel tag, as in the flag of Scotland).
Everything else is a
:class:`Hidden` run — one or more such characters of one kind side by side on one line —
with its line, column, code point and name, what tag characters spell, and the line
around it with every hidden character escaped, so a message can show it without showing
it raw.

:func:`scan_text` is pure; :func:`scan_folder` walks a skill folder's text files with
bounded reads (binary files skipped, links not followed: a link inside the folder points at
a file that is scanned itself, one leading out is ``unsafe-file``).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.errors import InputFileError
from exobrain.util.dirhash import SKIPPED_DIRS, is_skipped_file
from exobrain.util.fileio import open_regular, size_text
from exobrain.util.terminal import BIDI

TAG = "tag character"
ZERO_WIDTH = "zero-width character"
BIDI_CONTROL = "bidi control"
INVISIBLE = "invisible formatting character"
SELECTORS = "variation selectors"

_ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_INVISIBLE = (
    "\u00ad\u115f\u1160\u17b4\u17b5\u180e\u2061-\u2064\u206a-\u206f\u3164\uffa0"
    "\ufff9-\ufffb\U0001d173-\U0001d17a"
)
_SELECTOR = "\ufe00-\ufe0f\U000e0100-\U000e01ef"
_ANY_HIDDEN = re.compile(f"[\U000e0000-\U000e007f{_ZERO_WIDTH}{BIDI}{_INVISIBLE}{_SELECTOR}]")
#: Side-by-side hidden characters of any kind (one character class: a regular expression of
#: alternatives is eight times slower on text without any); split by kind afterwards.
_RUNS = re.compile(_ANY_HIDDEN.pattern + "+")
#: Tag letters and digits of a flag's subdivision (``gbsct``), then the cancel tag.
_FLAG_TAGS = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,7}\U000e007f")
_BLACK_FLAG = "\U0001f3f4"
_ZWJ = "\u200d"

#: How much of a file is read: a skill's text is small, a bigger file is named, not read.
SCAN_LIMIT = 4 << 20
#: What is read first to tell a binary file (a NUL in it) from a text file.
_HEAD = 8192
#: Characters of the line shown on each side of a run.
_AROUND = 24


@dataclass(frozen=True)
class Hidden:
    """One run of hidden characters of one kind on one line."""

    line: int
    column: int  # of the run's first character, counted from 1
    kind: str
    chars: str  # the run itself (never to be printed: see :func:`escaped`)
    context: str  # the line around it, every hidden character escaped

    @property
    def code_point(self) -> str:
        return code_point(self.chars[0])

    @property
    def name(self) -> str:
        return char_name(self.chars[0])

    @property
    def spells(self) -> str:
        """What a run of tag characters spells in ASCII (other characters escaped)."""
        if self.kind != TAG:
            return ""
        return "".join(
            chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else escaped(c)
            for c in self.chars
        )

    def describe(self) -> str:
        """The run for a message: code point and name, how many, what it spells or where."""
        more = len(self.chars) - 1
        what = f"{self.code_point} {self.name} ({self.kind}"
        what += f", and {more} more)" if more else ")"
        shown = self.spells or self.context
        where = "spelling" if self.spells else "in"
        return f"{what} at column {self.column}, {where} {_quoted(shown)}"

    def as_json(self) -> dict[str, object]:
        return {
            "line": self.line,
            "column": self.column,
            "kind": self.kind,
            "code_point": self.code_point,
            "name": self.name,
            "count": len(self.chars),
            "code_points": sorted({code_point(c) for c in self.chars}),
            "spells": self.spells,
            "context": self.context,
        }


def code_point(char: str) -> str:
    return f"U+{ord(char):04X}"


def char_name(char: str) -> str:
    return unicodedata.name(char, "an unassigned code point")


def escaped(text: str) -> str:
    """``text`` with each hidden character written as its Python escape (``\\u200b``,
    ``\\U000e0041``): what a message shows instead of the character."""
    return _ANY_HIDDEN.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _quoted(text: str) -> str:
    return '"' + text.replace('"', '\\"') + '"'


def _kind(char: str) -> str:
    code = ord(char)
    if 0xE0000 <= code <= 0xE007F:
        return TAG
    if char in _ZERO_WIDTH:
        return ZERO_WIDTH
    if char in BIDI:
        return BIDI_CONTROL
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF:
        return SELECTORS
    return INVISIBLE


def _is_emoji(char: str) -> bool:
    """Roughly Extended_Pictographic (which unicodedata does not expose): the emoji blocks,
    the symbols and dingbats that take an emoji presentation, and the selector FE0F."""
    code = ord(char)
    return 0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF or code == 0xFE0F


def _writing_system_own(text: str, start: int, end: int, kind: str) -> bool:
    """A zero-width joiner inside an emoji sequence, or a flag's subdivision tags."""
    before = text[start - 1] if start else ""
    if kind == ZERO_WIDTH and text[start:end] == _ZWJ:
        return bool(before) and end < len(text) and _is_emoji(before) and _is_emoji(text[end])
    if kind == TAG:
        return before == _BLACK_FLAG and _FLAG_TAGS.fullmatch(text, start, end) is not None
    return False


def scan_text(text: str) -> list[Hidden]:
    """Every run of hidden characters in ``text`` (a leading byte-order mark is not one)."""
    if text.isascii():  # the common case, in C: nothing to find
        return []
    found: list[Hidden] = []
    line, line_start, counted = 1, 0, 0
    for start, end, kind in _runs(text):
        if _writing_system_own(text, start, end, kind):
            continue
        newlines = text.count("\n", counted, start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", counted, start) + 1
        counted = start
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        left = max(line_start, start - _AROUND)
        right = min(line_end, end + _AROUND)
        context = escaped(text[left:right].strip())
        found.append(Hidden(line, start - line_start + 1, kind, text[start:end], context))
    return found


def _runs(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, kind) of each run of one kind: a lone variation selector is the
    glyph choice of the character before it, and a leading byte-order mark is one."""
    for match in _RUNS.finditer(text):
        start = match.start() + (match.start() == 0 and text[0] == "\ufeff")
        while start < match.end():
            kind, end = _kind(text[start]), start + 1
            while end < match.end() and _kind(text[end]) == kind:
                end += 1
            if kind != SELECTORS or end - start > 1:
                yield start, end, kind
            start = end


@dataclass
class FolderScan:
    """What :func:`scan_folder` found: runs per file (relative POSIX paths), and the text
    files it could not read through (too big, unreadable) with why."""

    found: dict[str, list[Hidden]] = field(default_factory=dict)
    unscanned: dict[str, str] = field(default_factory=dict)


def scan_folder(folder: Path, *, limit: int = SCAN_LIMIT) -> FolderScan:
    """Scan every text file under ``folder`` (see the module docstring): a file with a NUL
    in its first bytes, or that is not UTF-8, is binary and skipped; one over ``limit``
    bytes is listed as unscanned rather than read."""
    scan = FolderScan()

    def walk(directory: str, prefix: str) -> None:
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            return  # a folder that cannot be listed is reported by the folder checks
        for entry in entries:
            rel = prefix + entry.name
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    walk(entry.path, rel + "/")
            elif entry.is_file(follow_symlinks=False) and not is_skipped_file(entry.name):
                _scan_file(scan, entry.path, rel, limit)

    walk(os.fspath(folder), "")
    return scan


def _scan_file(scan: FolderScan, path: str, rel: str, limit: int) -> None:
    try:
        data = _read_text_bytes(path, limit)
    except InputFileError as exc:
        scan.unscanned[rel] = exc.message.removeprefix(f"{path}: ")
        return
    if data is None:
        return
    if data.isascii():  # most files of a skill: nothing hidden can be in them
        return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # not UTF-8: not text an agent reads as such
    runs = scan_text(text)
    if runs:
        scan.found[rel] = runs


def _read_text_bytes(path: str, limit: int) -> bytes | None:
    """The file's bytes, or None when its first bytes hold a NUL (a binary file, skipped
    whatever its size); a text file over ``limit`` bytes is an InputFileError naming it."""
    fd = open_regular(path)  # a FIFO, device or socket: refused, never waited on
    try:
        size = os.fstat(fd).st_size
        head = os.read(fd, _HEAD)
        if b"\0" in head:
            return None
        if size > limit:
            raise InputFileError(
                f"{path}: {size_text(size)}, over the {size_text(limit)} scanned for hidden "
                f"characters"
            )
        chunks = [head]
        total = len(head)
        while len(head) == _HEAD and (block := os.read(fd, limit + 1 - total)):
            chunks.append(block)
            total += len(block)
            if total > limit:
                raise InputFileError(f"{path}: grew over the {size_text(limit)} scanned")
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(f"{path}: cannot read ({exc.strerror or exc})") from exc
    finally:
        os.close(fd)
