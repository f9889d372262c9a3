"""One artifact a connection may see — a skill or a knowledge document — as every search
answer carries it: its canonical reference, where it lives, its declaration and resolution,
and what those make of it for me (reach, tier, lifecycle, owner, the fields a JSON answer
starts with). :mod:`exobrain.search.corpus` decides which of them are visible.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from exobrain.model import EXTERNAL
from exobrain.reach import Reach, reach_of
from exobrain.registry.entries import Entry
from exobrain.resolve import Resolved


@dataclass(frozen=True)
class Artifact:
    """One skill or knowledge document, with where it lives and how it reaches me."""

    ref: str  # canonical: skill:NAME@HOME or knowledge:PATH@SCOPE
    type: str  # "skill" | "knowledge"
    name: str
    home: str  # scope path, or external/<owner>
    scope: str  # the scope holding the file, or the declaring registry
    file: str | None  # SKILL.md or the .md file; None: external not installed
    declaration: Entry | None = None
    resolved: Resolved | None = None
    in_chain: bool = True  # declared in (or opted into from) the connection's chain
    successor: str | None = None  # the ref of the visible skill that supersedes this one

    @property
    def reach(self) -> Reach:
        """How it stands for this connection and agent (:mod:`exobrain.reach`)."""
        return reach_of(self.resolved, in_chain=self.in_chain)

    @property
    def path(self) -> Path | None:
        return Path(self.file) if self.file else None

    @property
    def folder(self) -> str | None:
        """The skill's folder (what its content hash covers); None for knowledge."""
        return os.path.dirname(self.file) if self.type == "skill" and self.file else None

    @property
    def lifecycle(self) -> str:
        return self.declaration.lifecycle if self.declaration else "active"

    @property
    def owner(self) -> str | None:
        return self.declaration.owner if self.declaration else None

    @property
    def tier(self) -> str:
        """The tier for me: what the resolver says, ``off`` when my chain does not mention it."""
        if self.type != "skill":
            return "-"
        return self.resolved.tier if self.resolved else "off"

    def fields(self) -> dict[str, Any]:
        """What every JSON answer says of an artifact first (search hits, substrate rows)."""
        data: dict[str, Any] = {
            "ref": self.ref,
            "type": self.type,
            "name": self.name,
            "home": self.home,
            "owner": self.owner,
            "lifecycle": self.lifecycle,
            "tier": self.tier,
        }
        if self.type == "skill":
            data["reach"] = self.reach.value
            if self.successor:
                data["superseded_by"] = self.successor
        return data


def skill_ref(entry: Entry) -> str:
    return f"skill:{entry.name}@{home_of(entry)}"


def home_of(entry: Entry) -> str:
    return f"{EXTERNAL}/{entry.owner}" if entry.source else entry.scope
