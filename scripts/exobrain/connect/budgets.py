"""Context budgets: the optional-skills index an agent reads every session stays within what
that agent takes in (the figures and their sources are in the agent table,
:mod:`exobrain.agents`).

Fitting goes in steps, each tried only when the one before does not fit: every row with its
summary (160 characters); compact rows, summaries cut to 120, then 80 characters — the floor,
still a readable sentence; then only the rows that fit, the best first by their score (quality,
usage and closeness, :mod:`exobrain.connect.scoring`; without scores, the closest first:
skills of the deepest connected scopes before shared and external ones), with a line saying
how many more skills there are and how to reach them. The overflow file lists the rest with
full summaries; it is read on demand, so it has no budget. Fitting is pure (the scores are
handed in); only :func:`codex_budget` reads a file (Codex's own ``config.toml``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from exobrain.agents import Budget
from exobrain.connect.indexes import IndexRow, shortened
from exobrain.errors import InputFileError
from exobrain.util.fileio import read_text

#: Summary lengths tried, longest first, before rows go to the overflow file; the last is the
#: floor: a summary is never cut shorter than that, rows are left out instead.
SUMMARY_STEPS = (160, 120, 80)
SUMMARY_FLOOR = SUMMARY_STEPS[-1]
#: The scores of the rows by their path, computed only when some rows must be left out.
Scores = Callable[[], Mapping[str, float]]
#: Codex's default ``project_doc_max_bytes`` and the share of it left for a folder's AGENTS.md.
CODEX_DOC_DEFAULT = 32 * 1024
CODEX_HEADROOM = 4 * 1024


@dataclass
class Fit:
    """The rows the surface shows, those left to the overflow file, and the text rendered."""

    shown: list[IndexRow]
    overflow: list[IndexRow] = field(default_factory=list)
    text: str | None = None
    summary: int = SUMMARY_STEPS[0]
    over: bool = False  # even without a single row the text is over the budget


def size_of(text: str | None) -> tuple[int, int]:
    """(UTF-8 bytes, lines) of a text."""
    if not text:
        return 0, 0
    return len(text.encode("utf-8")), text.count("\n") + (not text.endswith("\n"))


def within(text: str | None, size: int, lines: int | None) -> bool:
    byte_count, line_count = size_of(text)
    return byte_count <= size and (lines is None or line_count <= lines)


def _closest_first(row: IndexRow) -> tuple[int, int, str, str]:
    external = row.home.startswith("external")
    depth = 0 if row.home in ("", "global") else row.home.count("/") + 1
    return (external, -depth, row.name, row.path)


def fit(
    rows: list[IndexRow],
    render: Callable[[list[IndexRow], int], str | None],
    size: int,
    lines: int | None = None,
    scores: Scores | None = None,
) -> Fit:
    """Fit ``rows`` into ``size`` bytes (and ``lines``): ``render(rows, hidden)`` gives the
    surface's whole text showing ``rows`` and saying that ``hidden`` more are left out.
    When not every row fits at the floor, the rows shown are those ``scores`` (by path, the
    higher the better; asked for only then) rank first, ties and unscored rows the closest
    first."""
    for summary in SUMMARY_STEPS:
        compact = shortened(rows, summary)
        text = render(compact, 0)
        if within(text, size, lines):
            return Fit(compact, [], text, summary)
    scored = scores() if scores is not None else {}
    ordered = sorted(rows, key=lambda row: (-scored.get(row.path, 0.0), *_closest_first(row)))
    compact = shortened(ordered, SUMMARY_FLOOR)
    low, high = 0, len(rows)  # the most rows that fit: a prefix of the best first
    while low < high:
        middle = (low + high + 1) // 2
        if within(render(compact[:middle], len(rows) - middle), size, lines):
            low = middle
        else:
            high = middle - 1
    text = render(compact[:low], len(rows) - low)
    over = not within(text, size, lines)
    return Fit(compact[:low], ordered[low:], text, SUMMARY_FLOOR, over)


def codex_budget(budget: Budget) -> tuple[int, str]:
    """Codex's budget: ``project_doc_max_bytes`` from ``$CODEX_HOME/config.toml`` when it is
    set there (else the 32 KiB default), less the headroom for a folder's AGENTS.md."""
    limit = _codex_doc_max() or CODEX_DOC_DEFAULT
    if limit == CODEX_DOC_DEFAULT:
        return budget.size, budget.why
    size = limit - min(CODEX_HEADROOM, limit // 8)
    return size, f"Codex's project_doc_max_bytes ({limit} in config.toml) less room for a folder"


def _codex_doc_max() -> int | None:
    import tomllib

    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    path = home / "config.toml"
    if not path.is_file():
        return None
    try:
        value = tomllib.loads(read_text(path, what="Codex's config.toml")).get(
            "project_doc_max_bytes"
        )
    except (InputFileError, ValueError):
        return None  # Codex reports its own broken config; the default stands
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
