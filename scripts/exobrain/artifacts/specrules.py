"""The Agent Skills specification's rules for a SKILL.md frontmatter: the limits on its name,
description and compatibility, and the checks against them that skills-validate, registering,
composing and importing all apply. Kept together so every command reads one set of rules.
"""

from __future__ import annotations

import unicodedata
from typing import Any

NAME_MAX, DESCRIPTION_MAX, COMPATIBILITY_MAX = 64, 1024, 500


def spec_problems(meta: dict[str, Any], folder_name: str) -> list[tuple[str, str]]:
    """The Agent Skills rules a frontmatter breaks, as (code, message) pairs."""
    problems: list[tuple[str, str]] = []
    name = meta.get("name")
    if not isinstance(name, str) or not name:
        problems.append(("skill-name", "frontmatter needs a 'name'"))
    else:
        problems.extend(("skill-name", m) for m in name_problems(name, folder_name))
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append(("skill-description", "frontmatter needs a non-empty 'description'"))
    elif len(description) > DESCRIPTION_MAX:
        problems.append(
            (
                "skill-description",
                f"description is {len(description)} characters (at most {DESCRIPTION_MAX})",
            )
        )
    compatibility = meta.get("compatibility")
    if compatibility is not None and (
        not isinstance(compatibility, str) or len(compatibility) > COMPATIBILITY_MAX
    ):
        problems.append(
            (
                "skill-compatibility",
                f"compatibility must be a string of at most {COMPATIBILITY_MAX} characters",
            )
        )
    metadata = meta.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        problems.append(("skill-metadata", "metadata must map strings to strings"))
    return problems


def name_problems(name: str, folder_name: str) -> list[str]:
    """Agent Skills name rules: 1-64 chars, lowercase letters, digits, single inner hyphens."""
    normal = unicodedata.normalize("NFKC", name)
    problems = []
    if len(normal) > NAME_MAX:
        problems.append(f"name {name!r} is longer than {NAME_MAX} characters")
    if normal != normal.lower() or not all(c.isalnum() or c == "-" for c in normal):
        problems.append(f"name {name!r} may hold only lowercase letters, digits and hyphens")
    if normal.startswith("-") or normal.endswith("-") or "--" in normal:
        problems.append(f"name {name!r} must not start or end with a hyphen or hold '--'")
    if normal != unicodedata.normalize("NFKC", folder_name):
        problems.append(f"name {name!r} does not match its folder {folder_name!r}")
    return problems
