"""What the fetcher did per skill: the facts behind the progress lines, ``--json`` and exit codes.

One event per skill and agent. Its ``action`` is a past-tense fact (``fetched``, ``updated``,
``unchanged``, ``moved``, ``removed``, ``modified``, ``failed``) or, under ``--check``, a
``would-…`` change or ``unverified`` (the cached clone that proves an install is gone);
``line()`` renders the one-line form the command prints; :func:`settled` and :func:`failed`
give an event its final action.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import ExobrainError

#: action → (symbol, counts as a pending change for --check)
ACTIONS = {
    "fetched": ("↓", False),
    "updated": ("↑", False),
    "unchanged": ("=", False),
    "moved": ("→", False),
    "removed": ("-", False),
    "modified": ("!", False),
    "failed": ("✗", False),
    "unverified": ("?", True),
    "would-fetch": ("↓", True),
    "would-update": ("↑", True),
    "would-move": ("→", True),
    "would-remove": ("-", True),
}


def short(commit: str | None) -> str:
    return commit[:7] if commit else "-"


@dataclass
class SkillEvent:
    """What happened to one skill (or, with ``--check``, what would)."""

    agent: str
    name: str
    owner: str
    link_name: str
    folder: str
    action: str = "checking"
    repo: str | None = None
    ref: str | None = None
    from_commit: str | None = None
    to_commit: str | None = None
    message: str = ""
    moved_from: str | None = None
    check: bool = False

    @property
    def failed(self) -> bool:
        return self.action == "failed"

    @property
    def pending(self) -> bool:
        return ACTIONS.get(self.action, ("", False))[1]

    def text(self) -> str:
        a, where = self.action, self.folder
        frm, to = short(self.from_commit), short(self.to_commit)
        words = {
            "fetched": f"fetched {to} into {where}",
            "updated": f"updated {frm}→{to}",
            "unchanged": f"already at {frm}",
            "moved": f"moved to {where}",
            "removed": f"removed from {where}",
            "modified": "modified locally, left alone",
            "failed": "failed",
            "unverified": "cannot be checked",
            "would-fetch": f"would fetch {to} into {where}",
            "would-update": f"would update {frm}→{to}",
            "would-move": f"would move to {where}",
            "would-remove": f"would remove from {where}",
            "checking": "checking",
        }[a]
        if self.moved_from and a not in ("moved", "would-move"):
            words += f" ({'would move' if self.check else 'moved'} from {self.moved_from})"
        return f"{words}: {self.message}" if self.message else words

    def line(self) -> str:
        symbol = ACTIONS.get(self.action, ("…",))[0]
        return f"{self.agent}  {self.link_name}  {symbol} {self.text()}"

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "name": self.name,
            "owner": self.owner,
            "link_name": self.link_name,
            "action": self.action,
            "folder": self.folder,
            "repo": self.repo,
            "ref": self.ref,
            "from_commit": self.from_commit,
            "to_commit": self.to_commit,
            "moved_from": self.moved_from,
            "message": self.message,
            "failed": self.failed,
        }


@dataclass
class FetchReport:
    """Everything one :func:`sync_external` call did, for rendering and exit codes."""

    agent: str
    skills_dir: Path
    check: bool
    events: list[SkillEvent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    network_calls: int = 0

    @property
    def failed(self) -> bool:
        return any(e.failed for e in self.events)

    @property
    def pending(self) -> bool:
        return any(e.pending for e in self.events)

    @property
    def tampered(self) -> bool:
        """An install whose content no longer matches its record (a local edit, or someone
        else's): the command exits non-zero, naming the files."""
        return any(e.action == "modified" for e in self.events)

    def summary(self) -> str:
        counts: dict[str, int] = {}
        for event in self.events:
            counts[event.action] = counts.get(event.action, 0) + 1
        parts = [
            f"{n} {'up to date' if a == 'unchanged' else a.replace('-', ' ')}"
            for a, n in counts.items()
        ]
        return f"{self.agent}: " + (", ".join(parts) if parts else "no external skills")

    def as_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "skills_dir": str(self.skills_dir),
            "check": self.check,
            "failed": self.failed,
            "pending": self.pending,
            "tampered": self.tampered,
            "network_calls": self.network_calls,
            "warnings": self.warnings,
            "events": [e.as_json() for e in self.events],
        }


def settled(event: SkillEvent, modified: bool) -> SkillEvent:
    """Nothing to fetch: the install is current (perhaps moved), or edited by someone."""
    if modified:
        event.action = "modified"
        event.message += "; --force restores it"
    elif event.moved_from:
        event.action = "would-move" if event.check else "moved"
    else:
        event.action = "unchanged"
    return event


def error_text(exc: BaseException) -> str:
    """An error as one line of an event (a hint in parentheses)."""
    if isinstance(exc, ExobrainError):
        return str(exc).replace("\n  fix: ", " (fix: ") + (")" if exc.hint else "")
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)


def failed(event: SkillEvent, message: str) -> SkillEvent:
    """The event of a skill that could not be done, and why."""
    event.action, event.message = "failed", message
    return event
