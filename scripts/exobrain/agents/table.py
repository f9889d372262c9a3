"""The agent table's first rows: the agents connect-agent supported first, each modelled
from its documentation and, for Claude Code, Codex and Gemini CLI, checked against the program
(tests/connect/test_real_agents.py). The rows added later are in :mod:`exobrain.agents.more`.
"""

from __future__ import annotations

from exobrain.agents.model import (
    CONTEXT_CLAUDE,
    CONTEXT_CODEX,
    CONTEXT_GEMINI,
    CONTEXT_INDEX,
    CONTEXT_OPENCLAW,
    CONTEXT_OPENCODE,
    CONTEXT_RULE,
    Agent,
    Budget,
    Listing,
)

#: Claude Code 2.1.197 lists skills in a system reminder within skillListingBudgetFraction
#: (0.01) of the context window counted at 4 characters a token (3 for models after the 4.6
#: family): 8,000 characters at 200K, its fallback when the window is unknown and what
#: claude-sonnet-4-5/4-6 get ("Skill listing over budget: … > 8000 budget" in its debug log);
#: 30,000 for claude-opus-4-8 with its 1M window. Each description (with when_to_use) is cut
#: at skillListingMaxDescChars, 1,536. Over the budget the skills it used least are listed by
#: name only. Its bundled skills took 4,454 characters of the listing (13 skills).
CLAUDE_LISTING = Listing(
    8000,
    1536,
    "Claude Code lists skills within 1% of the context window: 8,000 characters at 200K "
    "(30,000 with a 1M window)",
    reserved=4454,
)
#: Codex 0.171.0 lists skills within [skills] max_context_tokens, by default 2% of the
#: model's context window, at 4 characters a token: 8,000 characters at model_context_window
#: 100000, 16,000 at 200K, 21,760 for gpt-5 (272K), 40,000 for its default model; 8,000 is
#: its documented figure when the window is unknown. Descriptions are cut at 1,024 characters;
#: over the budget it shortens every description, then drops them, then leaves skills out.
#: Its system skills (imagegen, openai-docs, skill-creator, skill-installer) took 1,723.
CODEX_LISTING = Listing(
    8000,
    1024,
    "Codex lists skills within 2% of the model's context window: 8,000 characters when the "
    "window is unknown (21,760 for gpt-5)",
    reserved=1723,
)

#: Budgets and surfaces, with their sources (knowledge/exobrain/agents.md, "Context budgets").
ROWS: tuple[Agent, ...] = (
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
        source="https://code.claude.com/docs/en/skills",
        surface_file="CLAUDE.md",
        user_surface_file="CLAUDE.md",
        sidecar="CLAUDE.md",
        settings=".claude/settings.local.json",
        user_settings="settings.json",
        listing=CLAUDE_LISTING,
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
        source="https://developers.openai.com/codex/skills",
        surface_at_root=True,
        surface_file="AGENTS.override.md",
        user_surface_file="AGENTS.override.md",
        project_files=".codex",
        sidecar="CODEX.md",
        # Codex reads .agents/skills from the working folder up to the repository root, and
        # ~/.agents/skills beside $CODEX_HOME/skills (developers.openai.com/codex/skills)
        user_scans=(".agents/skills",),
        listing=CODEX_LISTING,
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
        source="https://docs.openclaw.ai/tools/skills",
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
        source="https://geminicli.com/docs/cli/skills",
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
        source="https://opencode.ai/docs/skills",
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
        source="https://docs.github.com/en/copilot/concepts/agents/about-agent-skills",
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
        source="https://cursor.com/docs/skills",
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
        source="https://developers.openai.com/codex/skills",
    ),
)
