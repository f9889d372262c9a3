"""The catalog's printed text, chunk by chunk (:mod:`exobrain.catalog.text`): the chunks joined
are what one whole render prints — ``json.dumps`` of all rows, the aligned table — so a
catalog patched chunk by chunk prints the same."""

import json

from exobrain.catalog.rows import CatalogRow
from exobrain.catalog.text import (
    HEADER,
    JSON,
    PLAIN,
    TABLE,
    TITLE,
    cells,
    footer,
    name_in,
    render,
    table_cells,
)
from exobrain.cli.edge import plain_table

ROWS = [
    CatalogRow("alpha", "global", "p1", "always", True, "active", None, None, (), "Does a."),
    CatalogRow(
        "beta",
        "people/zoë",
        None,
        "optional",
        False,
        "deprecated",
        {"repo": "https://example.org/x", "ref": "v1", "nested": {"k": [1, 2]}},
        "claude",
        ("codex", "gemini"),
        'Ünïcode — and "quotes"\nover two lines',
    ),
    CatalogRow("c", "groups/g", "owner-x", "off", False, "active", None, None, (), ""),
]


def test_json_chunks_join_into_json_dumps_of_all_rows():
    whole = json.dumps({"skills": [r.as_json() for r in ROWS]}, indent=2, ensure_ascii=False)
    assert render(JSON, ROWS).text() == whole
    empty = json.dumps({"skills": []}, indent=2, ensure_ascii=False)
    assert render(JSON, []).text() == empty


def test_the_table_is_the_aligned_table_of_the_cells():
    rows = [cells(r) for r in ROWS]
    expected = "\n".join([TITLE, plain_table(rows, list(HEADER)), footer(len(ROWS))])
    assert render(TABLE, ROWS).text() == expected
    assert render(TABLE, []).text() == f"{TITLE}\n{footer(0)}"


def test_plain_is_tab_separated_cells():
    assert render(PLAIN, ROWS).text() == "\n".join("\t".join(cells(r)) for r in ROWS)


def test_a_table_line_reads_back_into_its_aligned_cells():
    text = render(TABLE, ROWS)
    for row, line in zip(ROWS, text.chunks, strict=True):
        assert table_cells(line, text.widths) == cells(row)[:-1]
    assert [sum(h.values()) for h in text.histograms or []] == [len(ROWS)] * len(text.widths)


def test_each_chunk_names_its_skill():
    for kind in (TABLE, PLAIN, JSON):
        chunks = render(kind, ROWS).chunks
        assert [name_in(kind, c) for c in chunks] == [r.name for r in ROWS]
