"""What ``exobrain signals REF`` shows: the ledger lines about one skill, its comments as a
thread and its aggregate (:func:`skill_signals`, which the MCP tools call too)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from exobrain.refs import canonical, parse_ref
from exobrain.signals.aggregate import Aggregate, aggregate
from exobrain.signals.comments import thread
from exobrain.signals.ledger import FUND_UNIT, ledger_owner
from exobrain.signals.lines import parse_line, read_ledger_text
from exobrain.signals.timestamps import day_label
from exobrain.signals.voters import repository_ledgers, stranger_note
from exobrain.util import boundedjson
from exobrain.workspace import Workspace, find_declaration


def skill_signals(ws: Workspace, ref_text: str) -> dict[str, Any]:
    """Everything ``exobrain signals REF`` (and the MCP ``signals`` tool) shows about a
    declared skill, JSON-ready: its lines (time order), the comments as a thread, their
    aggregate and the lines that do not count."""
    ref = canonical(find_declaration(ws, parse_ref(ref_text)))
    ledgers = repository_ledgers(ws)
    lines, problems = skill_lines(ws.root, ref, ledgers.counted)
    totals = summary(aggregate(ws), ref)
    note = stranger_note(ledgers)
    return {
        "skill": ref,
        "signals": lines,
        "comments": thread(lines),
        "aggregate": totals,
        "problems": problems + ([note] if note else []),
        "not_counted": sorted(ledgers.strangers),
    }


def skill_lines(root: Path, ref: str, files: list[Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """Every valid line about ``ref`` in ``files`` (the ledgers that count:
    :func:`exobrain.signals.voters.repository_ledgers`), time order, and the problems met.

    Lines are found with a substring test first, so only the lines that mention the skill
    are parsed; a malformed line that mentions it is reported.
    """
    needle = f'{ref}"'
    found: list[dict[str, Any]] = []
    problems: list[str] = []
    for path in files:
        rel = path.relative_to(root).as_posix()
        text = read_ledger_text(path, rel, problems)
        if text is None or needle not in text:
            continue
        owner = ledger_owner(rel)
        for lineno, line in enumerate(text.split("\n"), 1):
            if needle not in line:
                continue
            record = parse_line(line, owner)
            if isinstance(record, str):
                problems.append(f"{rel}:{lineno}: skipped: {record}")
            elif record is not None and record[1] == ref:
                obj = boundedjson.loads(line)
                obj["ts"], obj["file"], obj["line"] = record[2], rel, lineno
                found.append(obj)
    found.sort(key=lambda o: (o["ts"], o["file"], o["line"]))
    return found, problems


def skill_thread(ws: Workspace, ref: str) -> list[dict[str, Any]]:
    """The comments about ``ref`` (a canonical reference) that count, as one thread."""
    return thread(skill_lines(ws.root, ref, repository_ledgers(ws).counted)[0])


def summary(agg: Aggregate, ref: str) -> dict[str, Any]:
    """The aggregate of one skill in plain numbers (SPEC-013 section 3 semantics)."""
    votes = agg.votes_of(ref)
    ranks: dict[str, list[float]] = {}
    for (_by, dim), (_t, value) in agg.ranks_of(ref).items():
        ranks.setdefault(dim, []).append(value)
    outcomes = agg.calibration.get(ref, {}).values()
    done, total = sum(c for c, _ in outcomes), sum(n for _, n in outcomes)
    funds: dict[str, int] = {}
    for (currency, _day), amount in agg.fund.get(ref, {}).items():
        funds[currency] = funds.get(currency, 0) + amount
    uses = agg.usage.get(ref, {})
    return {
        "votes": {
            "up": sum(1 for _t, v in votes.values() if v > 0),
            "down": sum(1 for _t, v in votes.values() if v < 0),
            "voters": len(votes),
        },
        "ranks": {
            dim: {"raters": len(values), "mean": round(sum(values) / len(values), 4)}
            for dim, values in sorted(ranks.items())
        },
        "usage": {"uses": sum(uses.values()), "last_day": day_label(max(uses)) if uses else None},
        "calibration": {
            "completed": done,
            "outcomes": total,
            "rate": round(done / total, 4) if total else None,
        },
        "fund": {currency: amount / FUND_UNIT for currency, amount in sorted(funds.items())},
    }


def describe(line: dict[str, Any]) -> str:
    """One line's value and details in words, for the table."""
    kind, value = line.get("kind"), line.get("value")
    snapshot = line.get("snapshot") is True
    if kind == "vote":
        text = "up" if value == 1 else "down"
    elif kind == "rank":
        text = f"{line.get('dimension')} {value}"
    elif kind == "usage":
        text = f"{value} uses that day" if snapshot else ("auto" if line.get("auto") else "manual")
    elif kind == "calibration":
        text = (
            f"{value}/{line.get('total')} completed that day"
            if snapshot
            else ("completed" if value else "not completed")
        )
        notes = line.get("notes") or ([line["note"]] if line.get("note") else [])
        if notes:  # a hand-written line's notes may be any JSON value
            text += ": " + "; ".join(map(str, notes if isinstance(notes, list) else [notes]))
    elif kind == "comment":
        reply = f"re {line['reply_to']}: " if line.get("reply_to") else ""
        text = f"[{line.get('id')}] {reply}" + " ".join(str(value).split())
    else:
        amount = f"{value:g}" if isinstance(value, (int, float)) else str(value)
        text = f"{amount} {line.get('currency')}" + (" that day" if snapshot else "")
    return text + (" (snapshot)" if snapshot else "")
