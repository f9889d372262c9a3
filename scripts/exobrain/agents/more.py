"""The agent table's later rows: every other agent whose own documentation names a project
and a user skills folder. Each row cites that page in ``source`` (and in
knowledge/exobrain/agents.md), lists the other skills folders the agent's loader reads
(``scans``, so that connect-agent's placement gives it each skill once), and reaches the
optional-skills index the way the agent documents: a rules file it loads in every session
(:data:`CONTEXT_RULE`, with the frontmatter it needs), else the index file beside the skills
folder (:data:`CONTEXT_INDEX`: the agent reads only ``AGENTS.md``-style files of the user's,
which connect-agent never writes). Where the agent documents no size for what it reads every
session, the budget is the 8,000 default and ``why`` says so.
"""

from __future__ import annotations

from exobrain.agents.model import CONTEXT_INDEX, CONTEXT_RULE, Agent, Budget

#: The budget's reason where the agent's documentation gives no figure.
UNDOCUMENTED = "none documented; the 8,000 default (Claude Code's and Codex's skill listings)"

#: One always-loaded rules file in the agent's rules folder, holding the index.
RULE_FILE = "exobrain-skills.md"

ROWS: tuple[Agent, ...] = (
    # Windsurf (Cascade) reads .windsurf/skills and ~/.codeium/windsurf/skills, and "for
    # cross-agent compatibility" .agents/skills and ~/.agents/skills (the Claude folders only
    # when Claude Code config reading is turned on). Workspace rules live in .windsurf/rules
    # (trigger: always_on loads one in every request), cut at 6,000 characters; the global
    # rules are one global_rules.md of the user's, not a folder
    # (https://docs.windsurf.com/windsurf/cascade/skills,
    # https://docs.windsurf.com/windsurf/cascade/memories).
    Agent(
        "windsurf",
        ".windsurf/skills",
        None,
        ".codeium/windsurf",
        CONTEXT_RULE,
        Budget(6000, "Windsurf truncates a rules file after 6,000 characters"),
        source="https://docs.windsurf.com/windsurf/cascade/skills",
        surface_file=f"rules/{RULE_FILE}",
        front=("trigger: always_on",),
        scans=(".agents/skills",),
        user_scans=(".agents/skills",),
    ),
    # Cline reads .cline/skills (and the alternate .clinerules/skills) and ~/.cline/skills;
    # every Markdown file in a workspace rules folder (.clinerules/ or .cline/rules/) is part
    # of every task, frontmatter only narrowing it; global rules live in ~/Documents/Cline/Rules
    # (https://docs.cline.bot/customization/skills,
    # https://docs.cline.bot/customization/cline-rules).
    Agent(
        "cline",
        ".cline/skills",
        None,
        ".cline",
        CONTEXT_RULE,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.cline.bot/customization/skills",
        surface_file=f"rules/{RULE_FILE}",
        scans=(".clinerules/skills",),
    ),
    # Roo Code reads .roo/skills and .agents/skills in the project, ~/.roo/skills and
    # ~/.agents/skills for the user (.roo/ wins on a clash), and appends every file of
    # .roo/rules/ and ~/.roo/rules/ to its system prompt
    # (https://docs.roocode.com/features/skills,
    # https://docs.roocode.com/features/custom-instructions).
    Agent(
        "roo",
        ".roo/skills",
        None,
        ".roo",
        CONTEXT_RULE,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.roocode.com/features/skills",
        surface_file=f"rules/{RULE_FILE}",
        user_surface_file=f"rules/{RULE_FILE}",
        scans=(".agents/skills",),
        user_scans=(".agents/skills",),
    ),
    # Kiro reads workspace skills from .kiro/skills and global ones from ~/.kiro/skills (the
    # workspace wins on a clash); steering files in .kiro/steering and ~/.kiro/steering with
    # "inclusion: always" are in every interaction
    # (https://kiro.dev/docs/skills, https://kiro.dev/docs/steering).
    Agent(
        "kiro",
        ".kiro/skills",
        None,
        ".kiro",
        CONTEXT_RULE,
        Budget(8000, UNDOCUMENTED),
        source="https://kiro.dev/docs/skills",
        surface_file=f"steering/{RULE_FILE}",
        user_surface_file=f"steering/{RULE_FILE}",
        front=("inclusion: always",),
    ),
    # goose combines ~/.claude/skills, ~/.config/agents/skills, ~/.config/goose/skills,
    # ./.claude/skills, ./.goose/skills and ./.agents/skills, later ones winning; its context
    # files are .goosehints and AGENTS.md, the user's
    # (https://block.github.io/goose/docs/guides/context-engineering/using-skills).
    Agent(
        "goose",
        ".goose/skills",
        None,
        ".config/goose",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://block.github.io/goose/docs/guides/context-engineering/using-skills",
        scans=(".claude/skills", ".agents/skills"),
        user_scans=(".claude/skills", ".config/agents/skills"),
    ),
    # Qwen Code reads project skills from .qwen/skills and personal ones from ~/.qwen/skills
    # (https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/).
    Agent(
        "qwen",
        ".qwen/skills",
        None,
        ".qwen",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://qwenlm.github.io/qwen-code-docs/en/users/features/skills/",
    ),
    # Factory's Droid reads workspace skills from <repo>/.factory/skills and personal ones from
    # ~/.factory/skills; it reads AGENTS.md for context
    # (https://docs.factory.ai/cli/configuration/skills).
    Agent(
        "droid",
        ".factory/skills",
        None,
        ".factory",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.factory.ai/cli/configuration/skills",
    ),
    # Kilo Code reads .kilo/skills and ~/.kilo/skills, and .agents/skills by default (the
    # Claude folders only with its Claude Code compatibility turned on)
    # (https://kilo.ai/docs/customize/skills).
    Agent(
        "kilo",
        ".kilo/skills",
        None,
        ".kilo",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://kilo.ai/docs/customize/skills",
        scans=(".agents/skills",),
    ),
    # Augment (Auggie) reads .augment/skills and .claude/skills, in the workspace and in the
    # home folder (https://docs.augmentcode.com/cli/skills).
    Agent(
        "augment",
        ".augment/skills",
        None,
        ".augment",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.augmentcode.com/cli/skills",
        scans=(".claude/skills",),
        user_scans=(".claude/skills",),
    ),
    # Qoder reads project skills from .qoder/skills and personal ones from ~/.qoder/skills,
    # the project's winning on a clash (https://docs.qoder.com/extensions/skills).
    Agent(
        "qoder",
        ".qoder/skills",
        None,
        ".qoder",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.qoder.com/extensions/skills",
    ),
    # Mistral Vibe reads ./.vibe/skills or ./.agents/skills when the working folder is trusted,
    # and ~/.vibe/skills, which VIBE_HOME moves (https://docs.mistral.ai/vibe/code/cli/skills,
    # https://docs.mistral.ai/vibe/code/cli/configuration).
    Agent(
        "vibe",
        ".vibe/skills",
        "VIBE_HOME",
        ".vibe",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://docs.mistral.ai/vibe/code/cli/skills",
        scans=(".agents/skills",),
    ),
    # Pi reads ~/.pi/agent/skills and ~/.agents/skills, and in a trusted project .pi/skills
    # and .agents/skills from the working folder up to the repository root
    # (https://github.com/earendil-works/pi/blob/main/packages/coding-agent/docs/skills.md).
    Agent(
        "pi",
        ".pi/skills",
        None,
        ".pi/agent",
        CONTEXT_INDEX,
        Budget(8000, UNDOCUMENTED),
        source="https://github.com/earendil-works/pi/blob/main/packages/coding-agent/docs/skills.md",
        scans=(".agents/skills",),
        user_scans=(".agents/skills",),
    ),
)
