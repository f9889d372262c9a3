"""Claude Code skills and plugins.

Import: a skill with Claude Code's own fields (``allowed-tools`` as a list, ``model``,
``disable-model-invocation``, ``user-invocable``, ``argument-hint``, ``context``, ``agent``,
``hooks``, ``paths``, ``when_to_use``, …) keeps them at the top level, where Claude Code reads
them. Export (``--format claude-plugin``): a plugin folder with ``.claude-plugin/plugin.json``
and ``skills/<name>/``; each SKILL.md keeps the standard and Claude Code fields, and the native
fields travel in ``metadata`` exactly as in the Agent Skills export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from exobrain.artifacts.checks import fields_to_move
from exobrain.interop.formats.agentskills import EXPORT_KEEP, export_meta
from exobrain.interop.formats.agentskills import compat_problems as _compat
from exobrain.interop.formats.bundle import MANIFESTS, Bundle, FoundSkill
from exobrain.interop.formats.fields import CLAUDE_FIELDS, dump

NAME = "claude"
SOURCE_FORMAT = "claude_skill"
KEEP = frozenset(CLAUDE_FIELDS)
FORMAT = "claude-plugin"
PLUGIN_KEEP = EXPORT_KEEP | KEEP
PLUGIN_MANIFEST = ".claude-plugin/plugin.json"


def _claude_fields(meta: dict[str, Any]) -> list[str]:
    found = [k for k in CLAUDE_FIELDS if k in meta and k != "allowed-tools"]
    if isinstance(meta.get("allowed-tools"), list):
        found.append("allowed-tools (a list)")
    return found


def detect(bundle: Bundle, metas: list[dict[str, Any]]) -> str | None:
    fields = sorted({f for m in metas for f in _claude_fields(m)})
    if fields:
        return f"Claude Code fields ({', '.join(fields)})"
    for manifest in MANIFESTS:  # a plugin, or a plugin marketplace (anthropics/skills)
        if manifest in bundle.manifests:
            return f"a Claude Code plugin manifest ({manifest})"
    in_claude = "/.claude/skills" in bundle.root.as_posix() or any(
        s.rel.startswith(".claude/skills/") for s in bundle.skills
    )
    return "a .claude/skills folder" if in_claude else None


def prepare(raw: dict[str, Any], found: FoundSkill) -> list[str]:
    return []


def moved_fields(meta: dict[str, Any]) -> list[str]:
    """The fields an export moves into metadata."""
    return fields_to_move(meta, PLUGIN_KEEP, False)


def compat_problems(
    meta: dict[str, Any], body: str, folder: str, *, strip: bool = False
) -> list[str]:
    return _compat(meta, body, folder, keep=PLUGIN_KEEP, strip=strip, tools_as_text=False)


def export_skill(meta: dict[str, Any], body: str, *, strip: bool = False) -> str:
    return dump(export_meta(meta, keep=PLUGIN_KEEP, strip=strip, tools_as_text=False), body)


def write_manifest(plugin_root: Path, name: str, description: str) -> None:
    """The plugin manifest Claude Code reads (skills are found in ``skills/``)."""
    path = plugin_root / PLUGIN_MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"name": name, "description": description}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
