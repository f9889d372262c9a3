"""The catalog as printed text (not a terminal's table): one *chunk* per row, so that a
printed catalog can be patched row by row (:mod:`exobrain.catalog.patch`).

Three kinds: ``table`` (aligned columns, what a pipe gets), ``plain`` (tab-separated) and
``json``. A chunk is the text of one row, and the whole text is the chunks joined around a
head and a tail, so the text made from patched chunks is the text a full render makes. The
table's columns are as wide as their widest cell; :func:`cell_widths` gives each row's widths,
so a patch can tell whether a column's width changed (then it renders in full).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from exobrain.catalog.rows import CatalogRow
from exobrain.skillmd import one_line
from exobrain.util.terminal import json_text, safe_line

TABLE, PLAIN, JSON = "table", "plain", "json"
KINDS = (TABLE, PLAIN, JSON)
TITLE = "all declared skills"
HEADER = ("NAME", "SCOPE", "OWNER", "TIER", "FORCED", "LIFECYCLE", "DESCRIPTION")
#: The columns whose width sets the table's alignment (the last one is never padded).
ALIGNED = len(HEADER) - 1
_JSON_HEAD, _JSON_TAIL, _JSON_EMPTY = '{\n  "skills": [\n', "\n  ]\n}", '{\n  "skills": []\n}'
_NAME_KEY = '"name": "'


def cells(row: CatalogRow) -> list[str]:
    """The row's cells as the table and the tab-separated text show them: through the one
    output filter (:func:`~exobrain.util.terminal.safe_line`), since every cell but FORCED
    comes from a file someone else may have written, and the text is kept and printed
    again from the memo and the kept rows."""
    found = [
        row.name,
        row.scope,
        row.owner or "-",
        row.tier,
        "yes" if row.force else "no",
        row.lifecycle,
        one_line(row.description, 80),
    ]
    if "".join(found).isprintable():  # one check for the whole row: the common case
        return found
    return [safe_line(cell) for cell in found]


def variant_of(kind: str, tier: str | None) -> str:
    """The name of one output variant: ``table``, ``json-optional``…"""
    return kind + (f"-{tier}" if tier else "")


def footer(count: int) -> str:
    return (
        f"{count} declared skill(s). Opt in: skills-promote NAME --from SCOPE --to optional|always"
    )


def line_format(widths: Sequence[int]) -> str:
    """The format of one table line: the aligned columns padded, two spaces between."""
    return "  ".join([*(f"{{:<{w}}}" for w in widths), "{}"])


def widths_of(histograms: Sequence[Counter[int]]) -> tuple[int, ...]:
    """Each aligned column's width: its widest cell, at least its header."""
    return tuple(
        max(len(HEADER[i]), max((w for w, n in h.items() if n > 0), default=0))
        for i, h in enumerate(histograms)
    )


def cell_widths(all_cells: list[list[str]]) -> list[Counter[int]]:
    """How many rows have each width, per aligned column."""
    return [Counter(map(len, column)) for column in list(zip(*all_cells, strict=True))[:ALIGNED]]


def json_chunk(row: CatalogRow) -> str:
    """The row as ``json.dumps`` indents it inside ``{"skills": [...]}``, with DEL, C1 and
    bidi controls as ``\\uXXXX`` escapes (:func:`~exobrain.util.terminal.json_text`)."""
    text = json_text(row.as_json())
    return "    " + text.replace("\n", "\n    ")


def name_in(kind: str, chunk: str) -> str:
    """The skill name a chunk shows (a valid name holds no space, tab or quote)."""
    if kind == JSON:
        start = chunk.index(_NAME_KEY) + len(_NAME_KEY)
        return chunk[start : chunk.index('"', start)]
    return chunk.partition("\t" if kind == PLAIN else " ")[0]


#: Printed text in UTF-8, in pieces written one after the other (no copy of a big catalog).
Printed = list[bytes | memoryview]
#: What comes between two rows' chunks, by kind.
SEPARATORS = {TABLE: "\n", PLAIN: "\n", JSON: ",\n"}


def frame(kind: str, count: int, widths: Sequence[int]) -> tuple[str, str]:
    """The text before the first chunk and after the last of a catalog of ``count`` (> 0)
    rows."""
    if kind == JSON:
        return _JSON_HEAD, _JSON_TAIL
    if kind == PLAIN:
        return "", ""
    head = line_format(widths).format(*HEADER).rstrip()
    return f"{TITLE}\n{head}\n", f"\n{footer(count)}"


@dataclass
class CatalogText:
    """A rendered catalog: its chunks, and for a table the widths they were padded to and
    how many rows have each width (what a patch needs to keep them right)."""

    kind: str
    chunks: list[str]
    widths: tuple[int, ...] = ()
    histograms: list[Counter[int]] | None = None

    def text(self) -> str:
        """What the command prints (without the final newline)."""
        if not self.chunks:
            return {JSON: _JSON_EMPTY, PLAIN: ""}.get(self.kind, f"{TITLE}\n{footer(0)}")
        head, tail = frame(self.kind, len(self.chunks), self.widths)
        return head + SEPARATORS[self.kind].join(self.chunks) + tail


def render(kind: str, rows: list[CatalogRow]) -> CatalogText:
    """The catalog's text of ``kind`` for ``rows`` (in the order given)."""
    if kind != TABLE:
        return CatalogText(kind, chunks_of(kind, rows))
    all_cells = [cells(r) for r in rows]
    histograms = cell_widths(all_cells) if all_cells else [Counter() for _ in range(ALIGNED)]
    widths = widths_of(histograms)
    return CatalogText(kind, table_lines(all_cells, widths), widths, histograms)


def chunks_of(kind: str, rows: list[CatalogRow], widths: Sequence[int] = ()) -> list[str]:
    """The chunks of ``rows`` (a table's padded to ``widths``)."""
    if kind == JSON:
        return [json_chunk(r) for r in rows]
    if kind == PLAIN:
        return ["\t".join(cells(r)) for r in rows]
    return table_lines([cells(r) for r in rows], widths)


def table_lines(all_cells: list[list[str]], widths: Sequence[int]) -> list[str]:
    """The table lines of rows' cells, padded to ``widths``."""
    fmt = line_format(widths).format  # one format per row: fast at scale
    return [fmt(*c).rstrip() for c in all_cells]


def table_cells(line: str, widths: Sequence[int]) -> list[str]:
    """The aligned cells of a table line, read back at their columns (a cell never ends in
    a space: names, owners and scope paths of a stored catalog are checked for it)."""
    found, start = [], 0
    for width in widths:
        found.append(line[start : start + width].rstrip())
        start += width + 2
    return found
