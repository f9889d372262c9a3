"""connect-agent's side of external skills: the fetcher runs first, and what it reports
becomes the connect's notes and warnings (a failure never stops the connect)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from exobrain.agents import Folders
from exobrain.fetch.installs import may_hold_installs
from exobrain.resolve import Resolved
from exobrain.workspace import Workspace

#: Installs external skills before links are planned: called with keyword arguments ws,
#: folders and rows (see :func:`fetch_external`); whatever it raises is a warning.
ExternalSync = Callable[..., Any]


def fetch_external(*, ws: Workspace, folders: Folders, rows: list[Resolved]) -> Any:
    """The external sync the command uses: the fetcher, for this agent's skills folder."""
    from exobrain.fetch.fetcher import sync_external

    return sync_external(ws, folders, rows=rows)


def sync(
    run: ExternalSync | None,
    *,
    dry_run: bool,
    ws: Workspace,
    folders: Folders,
    rows: list[Resolved],
    report: Any,  # the connector's Report: notes, warnings, skills_dir, external
) -> None:
    """Run the fetcher when external skills resolve (or may be installed) here. Its failure is
    a warning, one skill's failure is that skill's event line: the rest of the connect
    completes."""
    wanted = [r for r in rows if r.is_external and r.tier != "off"]
    if not wanted and not may_hold_installs(report.skills_dir):
        return
    if run is None or dry_run:
        if wanted:
            report.notes.append(
                f"{len(wanted)} external skill(s) resolve here, not fetched "
                "now: fetch-external-skills [--check] installs them"
            )
        return
    try:
        result = run(ws=ws, folders=folders, rows=rows)
    except Exception as exc:
        report.warnings.append(f"external skills not updated: {exc}")
        return
    # a failed skill is one of its events: printed once, from there; a tampered install is a
    # problem that fails the connect (printed as that problem, not also as an event)
    report.external = result
    for event in getattr(result, "events", []):
        if event.action == "modified":
            report.problems.append(f"external skill {event.link_name}: {event.text()}")
    report.warnings += list(getattr(result, "warnings", []))
