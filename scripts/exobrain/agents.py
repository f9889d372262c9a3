"""The agent table: where each agent reads skills and how its context is wired.

Data, not code: supporting a new agent is one :class:`Agent` row. Paths honour the agents'
own variables (``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``, ``OPENCLAW_WORKSPACE``) and are resolved
at call time, so tests (and users) can point them anywhere.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from exobrain.errors import UsageError
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
class Agent:
    """One agent: its project skills folder (relative to the repo, None when it has only a
    user-level one), its home (an environment variable, else a folder under ``~``), the
    skills folder inside that home, its context surface and its context budget.

    The generated files (the index, its overflow, Claude's connected scopes) go in the skills
    folder's parent, or in ``project_files`` at project level (Codex: ``.codex``, since the
    parent ``.agents`` is shared with ``agents``). ``surface_file`` is the file the agent reads
    that carries or imports them, relative to that folder, or to the repository root (the
    agent's home at user level) when ``surface_at_root`` (Codex's ``AGENTS.override.md``,
    Gemini's ``GEMINI.md``); None where the index file itself is the surface, or where the
    agent reads no file at that level (Cursor's user rules live in its settings). ``sidecar``
    is the per-scope file of that agent the bash implementation kept beside ``AGENTS.md``;
    ``front`` the frontmatter lines a generated rule file needs to be read in every session;
    ``settings`` and ``user_settings`` the agent's own settings files, where connect-agent's
    usage hook goes (Claude's ``settings.local.json`` in the project: it is per machine).
    """

    name: str
    project_skills: str | None
    home_env: str | None
    home_default: str
    context: str
    budget: Budget
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


#: Budgets and surfaces, with their sources (knowledge/exobrain/agents.md, "Context budgets").
AGENTS: tuple[Agent, ...] = (
    # Claude Code loads a CLAUDE.md of up to 4 MiB but advises "under 200 lines per CLAUDE.md";
    # its own skill listing gets 1% of the context window, 8,000 characters at 200K
    # (https://code.claude.com/docs/en/memory, https://code.claude.com/docs/en/skills).
    Agent(
        "claude",
        ".claude/skills",
        "CLAUDE_CONFIG_DIR",
        ".claude",
        CONTEXT_CLAUDE,
        Budget(8000, "Claude Code's skill-listing budget (1% of a 200K context), 200 lines", 200),
        surface_file="CLAUDE.md",
        user_surface_file="CLAUDE.md",
        sidecar="CLAUDE.md",
        settings=".claude/settings.local.json",
        user_settings="settings.json",
    ),  # reads only .claude/skills (its debug log: "Loading skills from: … project=[…]")
    # Codex concatenates AGENTS files from the project root down to the working folder and
    # stops at project_doc_max_bytes, 32 KiB by default, cutting the rest silently
    # (https://developers.openai.com/codex/guides/agents-md; codex-rs/core/src/agents_md.rs).
    # The budget leaves 4 KiB of it for the AGENTS.md of a folder Codex is started in; a
    # project_doc_max_bytes set in $CODEX_HOME/config.toml is honoured (connect/budgets.py).
    Agent(
        "codex",
        ".agents/skills",
        "CODEX_HOME",
        ".codex",
        CONTEXT_CODEX,
        Budget(
            28 * 1024, "Codex's project_doc_max_bytes (32 KiB) less 4 KiB for a folder's AGENTS.md"
        ),
        surface_at_root=True,
        surface_file="AGENTS.override.md",
        user_surface_file="AGENTS.override.md",
        project_files=".codex",
        sidecar="CODEX.md",
        # Codex reads .agents/skills from the working folder up to the repository root, and
        # ~/.agents/skills beside $CODEX_HOME/skills (developers.openai.com/codex/skills)
        user_scans=(".agents/skills",),
    ),
    # OpenClaw cuts each workspace bootstrap file (USER.md) at agents.defaults.bootstrapMaxChars:
    # 20,000 today, 12,000 in earlier releases (openclaw docs/gateway/config-agents.md); the
    # budget is the lower figure for the whole USER.md, the user's own text included.
    Agent(
        "openclaw",
        None,
        "OPENCLAW_WORKSPACE",
        ".openclaw/workspace",
        CONTEXT_OPENCLAW,
        Budget(12000, "OpenClaw's bootstrapMaxChars for USER.md (12,000 in older releases)"),
        surface_file="USER.md",
        user_surface_file="USER.md",
        sidecar="OPENCLAW.md",
    ),
    # Gemini CLI reads GEMINI.md from the workspace and its parents up to the git root, and
    # ~/.gemini/GEMINI.md, with @./file imports (gemini-cli docs/cli/gemini-md.md,
    # docs/reference/memport.md); it documents no size limit: 8,000 as for Claude and Codex's
    # skill listings.
    Agent(
        "gemini",
        ".gemini/skills",
        None,
        ".gemini",
        CONTEXT_GEMINI,
        Budget(8000, "none documented; the skill-listing budget of Claude Code and Codex"),
        surface_at_root=True,
        surface_file="GEMINI.md",
        user_surface_file="GEMINI.md",
        settings=".gemini/settings.json",
        user_settings="settings.json",
        # .agents/skills is an alias Gemini CLI reads beside .gemini/skills, at both levels,
        # and prefers on a clash (geminicli.com/docs/cli/skills; `gemini skills list`)
        scans=(".agents/skills",),
        user_scans=(".agents/skills",),
    ),
    # OpenCode reads AGENTS.md and the files opencode.json lists under "instructions"
    # (https://opencode.ai/docs/rules, https://opencode.ai/docs/config: .opencode/opencode.json
    # is a project config); no size limit is documented.
    Agent(
        "opencode",
        ".opencode/skills",
        None,
        ".config/opencode",
        CONTEXT_OPENCODE,
        Budget(8000, "none documented; the skill-listing budget of Claude Code and Codex"),
        surface_file="opencode.json",
        user_surface_file="opencode.json",
        # OpenCode also reads the Claude- and agent-compatible folders at both levels
        # (https://opencode.ai/docs/skills)
        scans=(".claude/skills", ".agents/skills"),
        user_scans=(".claude/skills", ".agents/skills"),
    ),
    # Copilot reads .github/instructions/*.instructions.md (applyTo) and, in the CLI,
    # ~/.copilot/instructions/*.instructions.md; code review reads only the first 4,000
    # characters of an instruction file (docs.github.com: copilot/concepts/prompting/
    # response-customization; copilot-cli/customize-copilot/add-custom-instructions).
    Agent(
        "copilot",
        ".github/skills",
        None,
        ".copilot",
        CONTEXT_RULE,
        Budget(4000, "Copilot code review reads the first 4,000 characters of an instruction file"),
        surface_file="instructions/exobrain-skills.instructions.md",
        user_surface_file="instructions/exobrain-skills.instructions.md",
        front=('applyTo: "**"',),
        # Copilot reads project skills from .github/skills, .claude/skills and .agents/skills,
        # personal ones from ~/.copilot/skills, ~/.claude/skills and ~/.agents/skills
        # (docs.github.com: copilot/concepts/agents/about-agent-skills)
        scans=(".claude/skills", ".agents/skills"),
        user_scans=(".claude/skills", ".agents/skills"),
    ),
    # Cursor reads project rules from .cursor/rules/*.mdc (alwaysApply) and advises keeping a
    # rule under 500 lines (https://cursor.com/docs/rules); a third-party report of rules cut
    # near 6,000 characters sets the size. User rules live in Cursor's settings, not a file.
    Agent(
        "cursor",
        ".cursor/skills",
        None,
        ".cursor",
        CONTEXT_RULE,
        Budget(
            6000, "Cursor's rule guidance (under 500 lines; reported cut near 6,000 chars)", 500
        ),
        surface_file="rules/exobrain-skills.mdc",
        front=(
            "description: Optional skills of this exobrain, read on demand",
            "alwaysApply: true",
        ),
        # Cursor reads .agents/skills and .cursor/skills, and for compatibility the Claude and
        # Codex folders, at both levels (https://cursor.com/docs/skills)
        scans=(".agents/skills", ".claude/skills", ".codex/skills"),
        user_scans=(".agents/skills", ".claude/skills", ".codex/skills"),
    ),
    # agents: the shared .agents/skills folder, not one agent; nothing reads its index by
    # itself (a scope's AGENTS.md may point at it). 8,000 as for the others.
    Agent(
        "agents",
        ".agents/skills",
        None,
        ".agents",
        CONTEXT_INDEX,
        Budget(8000, "none documented; the skill-listing budget of Claude Code and Codex"),
    ),
)


def agent_names() -> list[str]:
    return [a.name for a in AGENTS]


def get_agent(name: str) -> Agent:
    """The agent called ``name``; an unknown name is a usage error listing the known ones."""
    for agent in AGENTS:
        if agent.name == name:
            return agent
    raise UsageError(f"unknown agent {name!r}", hint=f"use one of: {', '.join(agent_names())}")


def optional_dir(skills_dir: Path) -> Path:
    """Where optional and unlisted external skills are installed: the sibling folder."""
    return skills_dir.parent / "skills-optional"
