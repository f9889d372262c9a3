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
CONTEXT_CLAUDE = "claude-md"  # .claude/CLAUDE.md importing generated files
CONTEXT_CODEX = "agents-override"  # AGENTS.override.md at the project root
CONTEXT_OPENCLAW = "user-md-block"  # a marked block in the workspace's USER.md
CONTEXT_INDEX = "index-file"  # the index file beside the skills folder


#: The file each context surface writes or edits, in the agent's context folder (None: the
#: index file itself is the surface).
CONTEXT_FILES = {
    CONTEXT_CLAUDE: "CLAUDE.md",
    CONTEXT_CODEX: "AGENTS.override.md",
    CONTEXT_OPENCLAW: "USER.md",
    CONTEXT_INDEX: None,
}


@dataclass(frozen=True)
class Agent:
    """One agent: its project skills folder (relative to the repo, None when it has only a
    user-level one), its home (an environment variable, else a folder under ``~``), the
    skills folder inside that home, and its context surface.

    The context folder (where the index files and the surface file live) is the skills
    folder's parent, except for agents whose project-level context file sits at the repository
    root (``context_at_root``: Codex reads ``AGENTS.override.md`` there).
    """

    name: str
    project_skills: str | None
    home_env: str | None
    home_default: str
    context: str
    home_skills: str = "skills"
    context_at_root: bool = False

    def home(self) -> Path:
        value = os.environ.get(self.home_env) if self.home_env else None
        return Path(value).expanduser() if value else Path.home() / self.home_default

    def user_skills_dir(self) -> Path:
        return self.home() / self.home_skills

    def skills_dir(self, root: Path, user: bool = False) -> Path:
        """The folder skills are linked into: project-level by default, user-level with --user."""
        if user or self.project_skills is None:
            return self.user_skills_dir()
        return root / self.project_skills

    def is_user_level(self, user: bool) -> bool:
        """Whether ``--user`` really changes anything (an agent without a project folder is
        always connected at its user level, and recorded like a project-level one)."""
        return user and self.project_skills is not None

    def in_repository(self, user: bool = False) -> bool:
        """Whether this agent's folders are the repository's (``.claude/skills``), not the
        user's (``~/.claude/skills``, or OpenClaw's workspace)."""
        return not user and self.project_skills is not None

    def write_root(self, root: Path, folder: Path, user: bool = False) -> Path:
        """The folder a file this agent gets in ``folder`` must stay inside: the repository
        for project-level folders (anything committed there may be a link leading out), the
        folder itself at user level (where the user keeps an agent's folders, links
        included, is the user's choice)."""
        return root if self.in_repository(user) else folder

    def check_folders(self, root: Path, user: bool = False) -> None:
        """Refuse project-level agent folders that are (or pass through) links: a committed
        ``.claude`` link would send every link, index and install to wherever it points.
        They must be real folders inside the repository, or not exist yet
        (:class:`~exobrain.util.confine.UnsafePath`, exit 2). User-level folders are the
        user's own and are not checked."""
        if not self.in_repository(user):
            return
        skills = self.skills_dir(root)
        for folder in (skills, optional_dir(skills), self.context_dir(root)):
            resolve_inside(root, folder, links=False)

    def context_dir(self, root: Path, user: bool = False) -> Path:
        """The folder holding the agent's generated index files and its context file."""
        if self.context_at_root and self.project_skills and not user:
            return root
        return self.skills_dir(root, user).parent

    @property
    def context_file(self) -> str | None:
        return CONTEXT_FILES[self.context]


AGENTS: tuple[Agent, ...] = (
    Agent("claude", ".claude/skills", "CLAUDE_CONFIG_DIR", ".claude", CONTEXT_CLAUDE),
    Agent("codex", ".agents/skills", "CODEX_HOME", ".codex", CONTEXT_CODEX, context_at_root=True),
    Agent("openclaw", None, "OPENCLAW_WORKSPACE", ".openclaw/workspace", CONTEXT_OPENCLAW),
    Agent("gemini", ".gemini/skills", None, ".gemini", CONTEXT_INDEX),
    Agent("opencode", ".opencode/skills", None, ".config/opencode", CONTEXT_INDEX),
    Agent("copilot", ".github/skills", None, ".copilot", CONTEXT_INDEX),
    Agent("cursor", ".cursor/skills", None, ".cursor", CONTEXT_INDEX),
    Agent("agents", ".agents/skills", None, ".agents", CONTEXT_INDEX),
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
