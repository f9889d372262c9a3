"""What one row of the agent table says, and where it puts an agent's files.

Data, not code: supporting a new agent is one :class:`Agent` row (the rows are in
:mod:`exobrain.agents.table` and :mod:`exobrain.agents.more`). Paths honour the agents' own
variables (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``OPENCLAW_WORKSPACE``, ``VIBE_HOME``) and
are resolved at call time, so tests (and users) can point them anywhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from exobrain.util.confine import resolve_inside

#: How an agent learns about the optional-skills index and the connected scopes.
CONTEXT_CLAUDE = "claude-md"  # a block in .claude/CLAUDE.md importing generated files
CONTEXT_CODEX = "agents-override"  # AGENTS.override.md at the project root, all inline
CONTEXT_OPENCLAW = "user-md-block"  # a marked block in the workspace's USER.md
CONTEXT_GEMINI = "gemini-md"  # a block in GEMINI.md importing the generated index
CONTEXT_RULE = "rule-file"  # one generated instructions/rule file holding the index
CONTEXT_OPENCODE = "opencode-json"  # the index, listed in opencode.json's "instructions"
CONTEXT_INDEX = "index-file"  # the index file beside the skills folder, nothing more


@dataclass(frozen=True)
class Budget:
    """How much of what connect-agent writes the agent may be given each session: at most
    ``size`` bytes of UTF-8 (which is never fewer characters, so a character limit is kept
    too) and, where the agent's guidance counts lines, ``lines``. ``why`` says where the
    figure comes from (the citations are in the table below and in knowledge/exobrain/agents.md)."""

    size: int
    why: str
    lines: int | None = None


@dataclass(frozen=True)
class Listing:
    """How the agent's own loader lists the skills of its folders in every session (the
    linked ``always`` skills): their names and descriptions within ``size`` characters, each
    description cut at ``entry`` characters, ``reserved`` of the size taken by the skills
    the agent ships itself. Past the size the loader drops descriptions (or skills) without a
    word, so connect-agent warns (:mod:`exobrain.connect.listing`). ``why`` says where the
    figures come from: measured on the programs (knowledge/exobrain/agents.md, "Context
    budgets")."""

    size: int
    entry: int
    why: str
    reserved: int = 0


@dataclass(frozen=True)
class Agent:
    """One agent: its project skills folder (relative to the repo, None when it has only a
    user-level one), its home (an environment variable, else a folder under ``~``), the
    skills folder inside that home, its context surface, its context budget and ``source``:
    the address of the agent's own documentation of its skills folders, so that every row
    says where its folders come from (tests/core/test_agents.py checks each has one).

    The generated files (the index, its overflow, Claude's connected scopes) go in the skills
    folder's parent, or in ``project_files`` at project level (Codex: ``.codex``, since the
    parent ``.agents`` is shared with ``agents``). ``surface_file`` is the file the agent reads
    that carries or imports them, relative to that folder, or to the repository root (the
    agent's home at user level) when ``surface_at_root`` (Codex's ``AGENTS.override.md``,
    Gemini's ``GEMINI.md``); None where the index file itself is the surface, or where the
    agent reads no file at that level (Cursor's user rules live in its settings, Windsurf's in
    one global_rules.md of the user's). ``sidecar`` is the per-scope file of that agent the
    bash implementation kept beside ``AGENTS.md``; ``front`` the frontmatter lines a generated
    rule file needs to be read in every session (none: plain Markdown);
    ``settings`` and ``user_settings`` the agent's own settings files, where connect-agent's
    usage hook goes (Claude's ``settings.local.json`` in the project: it is per machine).
    """

    name: str
    project_skills: str | None
    home_env: str | None
    home_default: str
    context: str
    budget: Budget
    source: str  # the agent's documentation of the skills folders it reads (a URL)
    home_skills: str = "skills"
    surface_at_root: bool = False
    surface_file: str | None = None
    user_surface_file: str | None = None
    project_files: str | None = None
    sidecar: str | None = None
    front: tuple[str, ...] = ()
    settings: str | None = None  # the project settings file, relative to the repository
    user_settings: str | None = None  # the user settings file, relative to the home
    #: the other skills folders the agent's loader also reads, besides its own: relative to
    #: the repository (``scans``) and to the user's home (``user_scans``), as its docs say
    #: and, for Claude Code, Codex and Gemini CLI, as the programs show (tests/connect/
    #: test_real_agents.py). connect-agent places each skill so that an agent reads it once.
    scans: tuple[str, ...] = ()
    user_scans: tuple[str, ...] = ()
    #: the loader's own listing of the linked skills (None: not measured for that agent)
    listing: Listing | None = None

    def home(self) -> Path:
        value = os.environ.get(self.home_env) if self.home_env else None
        return Path(value).expanduser() if value else Path.home() / self.home_default

    def user_skills_dir(self) -> Path:
        return self.home() / self.home_skills

    def folders(self, root: Path, user: bool = False) -> Folders:
        """Where this agent's files go for a connection of the repository at ``root``, at
        project level or (``user``) at its user level: worked out once, here."""
        user_level = user and self.project_skills is not None
        in_repository = not user and self.project_skills is not None
        if in_repository and self.project_skills is not None:
            skills = root / self.project_skills
        else:
            skills = self.user_skills_dir()
        own_files = self.project_files and in_repository
        files = root / self.project_files if own_files and self.project_files else skills.parent
        name = self.user_surface_file if user_level else self.surface_file
        if name is None:
            surface = None
        elif self.surface_at_root:
            surface = (root if in_repository else self.home()) / name
        else:
            surface = skills.parent / name
        if in_repository:
            settings = root / self.settings if self.settings else None
        else:
            settings = self.home() / self.user_settings if self.user_settings else None
        if in_repository:
            reads = (skills, *(root / path for path in self.scans))
        else:
            reads = (skills, *(Path.home() / path for path in self.user_scans))
        return Folders(self, root, user, skills, files, surface, settings, reads)


@dataclass(frozen=True)
class Folders:
    """One agent's folders and files for one connection (see :meth:`Agent.folders`): ``user``
    is ``--user`` as asked; ``files`` holds the generated files (the index, its overflow,
    Claude's connected scopes); ``surface`` is the file the agent reads that carries or
    imports them (None: the index file is read as it is); ``settings`` the agent's settings
    file, where its hooks go (None: it has none); ``reads`` every skills folder its loader
    reads at this level, its own first."""

    agent: Agent
    root: Path
    user: bool
    skills: Path
    files: Path
    surface: Path | None
    settings: Path | None
    reads: tuple[Path, ...] = ()  # every skills folder the agent's loader reads at this level

    @property
    def user_level(self) -> bool:
        """Whether ``--user`` really changes anything (an agent without a project folder is
        always connected at its user level, and recorded like a project-level one)."""
        return self.user and self.agent.project_skills is not None

    @property
    def in_repository(self) -> bool:
        """Whether the folders are the repository's (``.claude/skills``), not the user's
        (``~/.claude/skills``, or OpenClaw's workspace)."""
        return not self.user and self.agent.project_skills is not None

    @property
    def level(self) -> str:
        return "user" if self.user_level else "project"

    @property
    def optional(self) -> Path:
        """Where optional and unlisted external skills are installed."""
        return optional_dir(self.skills)

    def write_root(self, folder: Path) -> Path:
        """The folder a file written in ``folder`` must stay inside: the repository for
        project-level folders (anything committed there may be a link leading out), the
        folder itself at user level (where the user keeps an agent's folders, links
        included, is the user's choice)."""
        return self.root if self.in_repository else folder

    def check(self) -> None:
        """Refuse project-level agent folders that are (or pass through) links: a committed
        ``.claude`` link would send every link, index and install to wherever it points.
        They must be real folders inside the repository, or not exist yet
        (:class:`~exobrain.util.confine.UnsafePath`, exit 2). User-level folders are the
        user's own and are not checked."""
        if not self.in_repository:
            return
        folders = {self.skills, self.optional, self.files}
        if self.surface is not None:
            folders.add(self.surface.parent)
        for folder in folders:
            resolve_inside(self.root, folder, links=False)


def optional_dir(skills_dir: Path) -> Path:
    """Where optional and unlisted external skills are installed: the sibling folder."""
    return skills_dir.parent / "skills-optional"
