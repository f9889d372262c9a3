"""Where each linked skill goes when several agents are connected on one clone.

Agents' loaders read more than their own folder: Gemini CLI also reads ``.agents/skills``
(Codex's), Copilot ``.claude/skills`` and ``.agents/skills``, Cursor and OpenCode more still
(the ``scans`` of the agent table). Linking every skill into every connected agent's own
folder makes a loader that reads two of them list a skill twice (Gemini prints "Skill
conflict detected" on every start). So the folders are chosen together, for all the agents
connected at one level, from what each agent reads: each skill goes into the fewest folders
such that every agent meant to have it reads it exactly once and no other connected agent
reads it at all.

The choice is a pure function of the connected agents, what each reads and what each wants,
so every connect-agent and every relink (the git hooks run one per agent) computes the same
placement and no run undoes another's. When no choice is exact (an agent that must have a
skill reads only folders that another agent, who must not, reads too), the skill still goes
where the agent that wants it reads it, and the clash is reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Reader:
    """One connected agent: its name, the folder connect-agent writes its links into, and
    every skills folder its loader reads (its own included)."""

    name: str
    own: Path
    reads: frozenset[Path]


@dataclass(frozen=True)
class Clash:
    """A skill no placement shows exactly to its agents: ``extra`` read it without wanting it,
    ``twice`` read it from two folders."""

    name: str
    folder: Path
    extra: tuple[str, ...] = ()
    twice: tuple[str, ...] = ()


@dataclass
class Placement:
    """Link name → the folders it is linked into, and the clashes left."""

    folders: dict[str, tuple[Path, ...]] = field(default_factory=dict)
    clashes: list[Clash] = field(default_factory=list)

    def wanted_in(self, folder: Path) -> set[str]:
        """The link names that go into ``folder``."""
        return {name for name, where in self.folders.items() if folder in where}


def name_clashes(agent: str, linked: Iterable[tuple[str, str]]) -> list[str]:
    """One warning per name that two or more skills linked for ``agent`` share (``linked``:
    (name, link name) pairs): each was linked told apart by its home, which the Agent Skills
    specification refuses (folder name = ``name``) and which some loaders still reduce to one
    (Gemini CLI keeps one skill per ``name``)."""
    by_name: dict[str, set[str]] = {}
    for name, link in linked:
        by_name.setdefault(name, set()).add(link)
    return [
        f"{name}: {len(links)} skills of this name reach {agent}, linked told apart as "
        f"{', '.join(sorted(links))} (an agent that keeps one skill per name, such as Gemini "
        f"CLI, shows only one); rename one, or turn one off with an override in your scope"
        for name, links in sorted(by_name.items())
        if len(links) > 1
    ]


def place(wants: Mapping[str, Iterable[str]], readers: Iterable[Reader]) -> Placement:
    """Choose the folders of every link name in ``wants`` (name → the agents that want it
    linked). Candidates are the connected agents' own folders, tried in the order of
    ``readers`` (the agent table's), the one that serves the most agents still waiting first;
    a folder is taken only when everyone who reads it wants the skill and reads it nowhere
    else yet."""
    readers = list(readers)
    folders = list(dict.fromkeys(r.own for r in readers))
    read_by = {f: frozenset(r.name for r in readers if f in r.reads) for f in folders}
    own = {r.name: r.own for r in readers}
    placement = Placement()
    for name in sorted(wants):
        audience = frozenset(wants[name]) & set(own)
        chosen: list[Path] = []
        seeing: set[str] = set()
        waiting = set(audience)
        while waiting:
            fits = [
                f
                for f in folders
                if f not in chosen
                and read_by[f] <= audience
                and not read_by[f] & seeing
                and read_by[f] & waiting
            ]
            if not fits:
                break
            best = max(fits, key=lambda f: (len(read_by[f] & waiting), -folders.index(f)))
            chosen.append(best)
            seeing |= read_by[best]
            waiting -= read_by[best]
        for agent in sorted(waiting, key=[r.name for r in readers].index):
            if agent in seeing:  # an earlier fallback folder reached it already
                continue
            folder = own[agent]
            extra = tuple(sorted(read_by[folder] - audience))
            twice = tuple(sorted(read_by[folder] & seeing))
            chosen.append(folder)
            seeing |= read_by[folder]
            placement.clashes.append(Clash(name, folder, extra, twice))
        placement.folders[name] = tuple(chosen)
    return placement
