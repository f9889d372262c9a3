"""``exobrain events --follow``: the events of the chain as they happen.

Two sources, checked on every poll:

* **commits** — when ``HEAD`` moves (a commit, a pull), the events between the old and the new
  head, exactly as ``exobrain events --since`` gives them;
* **ledger lines not yet committed** — an agent's usage hook or the MCP ``signal`` tool appends
  to ``signals/<person>/<host>.jsonl`` long before anyone commits, so the ledgers are watched
  too: lines appended since the last poll become ``skill.invoked`` and ``signal`` events at
  once.

A line is announced once: when it is committed later, its commit does not announce it again.
A ledger that shrank or was rewritten (compaction, a checkout) is read again from its new end
without announcing old lines. Visibility is the view of :mod:`exobrain.search.events`: lines
about skills the connection cannot see, lines not in their author's own ledger, and the
ledgers of strangers (a folder naming no person, :mod:`exobrain.signals.voters`) never produce
an event.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from exobrain.errors import InputFileError, UsageError
from exobrain.search.corpus import open_view
from exobrain.search.events import events_since, signal_event
from exobrain.signals.ledger import LEDGER_LIMIT, ledger_owner
from exobrain.signals.voters import repository_ledgers
from exobrain.util import boundedjson
from exobrain.util.fileio import open_regular
from exobrain.util.repository import Repository
from exobrain.workspace import Workspace

Key = tuple[Any, ...]


class Follower:
    """Polls one workspace for new events since ``cursor`` (a commit; None: HEAD)."""

    def __init__(self, ws: Workspace, cursor: str | None = None) -> None:
        self.ws = ws
        self.git = Repository(ws.root, own_env=True)
        head = self.git.commit_of(cursor or "HEAD")
        if head is None:
            raise UsageError(
                f"--since {cursor!r} is not a commit of this repository"
                if cursor
                else "the repository has no commit yet"
            )
        self.head = head
        self.pending: list[dict[str, Any]] = []
        if cursor is not None:  # what happened between the cursor and now comes first
            self.pending = self._commits()
        self.offsets = {path: _size(path) for path in repository_ledgers(ws).counted}
        self.announced: set[Key] = set()

    def poll(self) -> list[dict[str, Any]]:
        """The events that happened since the last poll, commits first."""
        events, self.pending = self.pending, []
        events += [e for e in self._commits() if _key(e) not in self.announced]
        events += self._appended()
        return events

    def _commits(self) -> list[dict[str, Any]]:
        head = self.git.commit_of("HEAD")
        if head is None or head == self.head:
            return []
        data = events_since(self.ws, self.head)
        self.head = data["head"]
        return list(data["events"])

    def _appended(self) -> list[dict[str, Any]]:
        """Ledger lines appended since the last poll, about visible skills."""
        visible: set[str] | None = None
        events = []
        for path in repository_ledgers(self.ws).counted:
            size, start = _size(path), self.offsets.get(path, 0)
            self.offsets[path] = size
            if size <= start:
                continue  # unchanged, or rewritten shorter: nothing new to announce
            if visible is None:
                visible = {a.ref for a in open_view(self.ws).skills()}
            owner = ledger_owner(path.relative_to(self.ws.root).as_posix())
            for record in _new_records(path, start, size):
                if record.get("skill") in visible and record.get("by") == owner:
                    event = signal_event(record)
                    self.announced.add(_key(event))
                    events.append(event)
        return events


def _new_records(path: Path, start: int, end: int) -> list[dict[str, Any]]:
    """The whole lines between ``start`` and ``end`` as JSON objects (others skipped)."""
    if end - start > LEDGER_LIMIT or path.is_symlink():  # a ledger is never followed
        return []
    try:
        fd = open_regular(path)
    except InputFileError:
        return []
    try:
        data = os.pread(fd, end - start, start)
    except OSError:
        return []
    finally:
        os.close(fd)
    records = []
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            record = boundedjson.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _key(event: dict[str, Any]) -> Key:
    return (event["type"], event["ref"], event.get("by"), event.get("ts"))
