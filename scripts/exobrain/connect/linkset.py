"""Which links one agent's skills folder holds: the placement over every agent connected at
that level (:mod:`exobrain.connect.placement`), and the plain names something else already
holds moved to the told-apart name (:mod:`exobrain.model`, ``link_names``)."""

from __future__ import annotations

import os
from pathlib import Path

from exobrain.agents import AGENTS, Agent, Folders
from exobrain.connect import nativetiers, ownedlinks, placement
from exobrain.connect.connection import agent_list
from exobrain.paths import shown, skill_dir
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.workspace import Workspace


def placed_here(
    ws: Workspace, folders: Folders, mine: dict[str, Path], warnings: list[str]
) -> dict[str, Path]:
    """The links this agent's folder holds when every agent connected at its level is taken
    into account (:mod:`exobrain.connect.placement`): this agent's own links that no other
    folder it reads carries for it, and the links of the other agents that read this folder.
    A skill no placement shows exactly once to the right agents is reported."""
    readers, targets, wants = [], dict(mine), {name: {folders.agent.name} for name in mine}
    for other in connected_agents(ws, folders):
        there = (
            folders if other.name == folders.agent.name else other.folders(ws.root, folders.user)
        )
        readers.append(placement.Reader(other.name, there.skills, frozenset(there.reads)))
        if other.name == folders.agent.name:
            continue
        tiers = nativetiers.linked_tiers(ws.connection, other.name, folders.user_level)
        for row in ws.resolve(other.name):
            if (
                row.tier in tiers
                and not row.is_external
                and not ws.reads_committed(row.home, row.name)
            ):
                targets[row.link_name] = skill_dir(ws.root, row.home, row.name)
                wants.setdefault(row.link_name, set()).add(other.name)
    placed = placement.place(wants, readers)
    for clash in placed.clashes:
        if folders.agent.name not in wants[clash.name]:
            continue
        seen = [
            f"{a} (reads {shown(clash.folder, ws.root)}, not meant to have it)" for a in clash.extra
        ]
        seen += [f"{a} (twice)" for a in clash.twice]
        warnings.append(
            f"{clash.name}: no folder shows it only to the agents meant to have it: "
            f"also seen by {', '.join(seen)}"
        )
    return {name: targets[name] for name in sorted(placed.wanted_in(folders.skills))}


def around_foreign(
    root: Path, skills_dir: Path, wanted: dict[str, Path], owned: set[str], warnings: list[str]
) -> dict[str, Path]:
    """``wanted`` with every plain name that something not ours already holds in
    ``skills_dir`` (another installer's copy of the skill, the user's own folder) moved to the
    told-apart name, so the skill still reaches the agent; the user is told how to get the
    plain name back. The next run after that folder is gone links the plain name again."""
    placed = {}
    for name, target in wanted.items():
        held = skills_dir / name
        # a fetcher's install there is the toolkit's own business: the linker reports it
        fetched = not held.is_symlink() and (held / INSTALL_RECORD).exists()
        taken = name not in owned and os.path.lexists(held) and not fetched
        identity = ownedlinks.skill_identity(str(target), str(root))
        if taken and identity is not None and name == identity.name:
            told = identity.told_apart
            warnings.append(
                f"{name}: {shown(skills_dir / name, root)} is not ours (another "
                f"installer's copy, or your own folder): linked as {told}; the agent sees both "
                f"until you remove that one, then the next connect links the plain name"
            )
            placed[told] = target
        else:
            placed[name] = target
    return placed


def connected_agents(ws: Workspace, folders: Folders) -> list[Agent]:
    """The agents connected at ``folders``' level on this clone (this one included), in the
    agent table's order."""
    names = set(agent_list(ws.connection, folders.user_level)) | {folders.agent.name}
    return [a for a in AGENTS if a.name in names]
