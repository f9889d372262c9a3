"""Our marked block in a file the user owns (``CLAUDE.md``, ``USER.md``, ``GEMINI.md``).

The block sits between :data:`BEGIN` and :data:`END` lines and is the only part of that file we
ever change: created, replaced in place (never duplicated), removed (a file that held only the
block goes with it). Pure text in, text out.
"""

from __future__ import annotations

BEGIN = "<!-- BEGIN exobrain -->"
END = "<!-- END exobrain -->"


def import_block(files: list[str]) -> str | None:
    """The body of a block that imports generated files (``CLAUDE.md``, ``GEMINI.md``): one
    ``@`` import line per file."""
    return "\n".join(f"@{name}" for name in files) if files else None


class BlockError(ValueError):
    """The file holds a BEGIN line without its END (we will not guess where ours stops)."""


def _block_spans(lines: list[str]) -> list[tuple[int, int]]:
    spans, start = [], None
    for index, line in enumerate(lines):
        text = line.strip()
        if text == BEGIN and start is None:
            start = index
        elif text == END and start is not None:
            spans.append((start, index))
            start = None
    if start is not None:
        raise BlockError(f"line {start + 1} opens {BEGIN} but no {END} follows")
    return spans


def splice_block(text: str | None, body: str | None) -> str | None:
    """``text`` with our block set to ``body`` (None: removed); None means "no file".

    An existing block is replaced in place (extra copies are dropped, so it is never
    duplicated); otherwise the block is appended after a blank line. Removing the block from a
    file that held nothing else leaves nothing, so the file goes.
    """
    lines = text.split("\n") if text is not None else []
    spans = _block_spans(lines)
    block = [BEGIN, *body.split("\n"), END] if body is not None else []
    if not spans:
        if body is None:
            return text
        if text is None or not text.strip():
            return "\n".join(block) + "\n"
        return text.rstrip("\n") + "\n\n" + "\n".join(block) + "\n"
    result: list[str] = []
    previous = 0
    for number, (start, end) in enumerate(spans):
        result += lines[previous:start]
        if number == 0:
            result += block
        previous = end + 1
        if (
            body is None
            and previous < len(lines)
            and not lines[previous].strip()
            and (not result or not result[-1].strip())
        ):
            previous += 1  # do not leave two blank lines where the block was
    result += lines[previous:]
    joined = "\n".join(result)
    return joined if joined.strip() else None


def outside_size(text: str | None) -> int:
    """The UTF-8 size of ``text`` without our block (what the user wrote around it)."""
    if text is None:
        return 0
    rest = splice_block(text, None)
    return len(rest.encode("utf-8")) if rest else 0


def without_bash_imports(text: str | None, names: list[str]) -> str | None:
    """A ``CLAUDE.md`` the bash implementation generated (nothing but ``@`` import lines) minus
    the imports of ``names``, which our block now makes; any other text is returned as is."""
    if text is None or BEGIN in text:
        return text
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    if not lines or not all(line.startswith("@") for line in lines):
        return text
    kept = [line for line in lines if line[1:] not in names]
    return "\n".join(kept) + "\n" if kept else None
