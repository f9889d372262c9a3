"""The fast structural check of skills.json: the rules of ``skills.schema.json``, mirrored in
plain Python.

Every load runs it on every entry (a repository of 100,000 people has a million), so
resolution never sees a malformed entry and commands such as ``skills-status`` need not
import jsonschema; :mod:`exobrain.registry.schema` runs the schema itself for
``skills-validate`` and the registry editor, and a test keeps the two in agreement.
"""

from __future__ import annotations

import re
from typing import Any

from exobrain.model import DECLARED_TIERS, EXTERNAL, GLOBAL, LIFECYCLES, POLICY_RULES, TIERS

#: Every key an entry may have, in the order the registry editor writes them: identity
#: first, then tier, then the rest.
ENTRY_KEY_ORDER = (
    "name",
    "from",
    "owner",
    "tier",
    "force",
    "source",
    "agent",
    "skipAgents",
    "lifecycle",
    "notes",
    "reviewed_by",
    "reviewed_at",
)
_KEYS = frozenset(ENTRY_KEY_ORDER)
ALLOW, FLAG, REFUSE = "allow", "flag", "refuse"
POLICY_ACTIONS = (ALLOW, FLAG, REFUSE)
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
_OWNER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_AGENT = re.compile(r"^[a-z][a-z0-9-]*\Z")


def entry_problem(raw: Any) -> str | None:
    """The first rule ``raw`` breaks (mirrors skills.schema.json), or None when it is fine."""
    if not isinstance(raw, dict):
        return "an entry must be a JSON object"
    if not _KEYS.issuperset(raw):
        return f"unknown key(s) {', '.join(sorted(set(raw) - _KEYS))}"
    name, tier = raw.get("name"), raw.get("tier")
    if not isinstance(name, str) or not _NAME.match(name) or len(name) > 64:
        return "name must be 1-64 lowercase letters, digits and single hyphens"
    if "tier" not in raw:
        return "tier is required"
    if "owner" in raw and not (isinstance(raw["owner"], str) and _OWNER.match(raw["owner"])):
        return "owner must be an id of letters, digits, '.', '_' or '-'"
    if "agent" in raw and "skipAgents" in raw:
        return "agent and skipAgents are mutually exclusive: keep one"
    if "agent" in raw and not (isinstance(raw["agent"], str) and _AGENT.match(raw["agent"])):
        return "agent must be an agent name such as claude"
    skip = raw.get("skipAgents")
    if "skipAgents" in raw and not (
        isinstance(skip, list)
        and skip
        and len(set(map(str, skip))) == len(skip)
        and all(isinstance(a, str) and _AGENT.match(a) for a in skip)
    ):
        return "skipAgents must be a non-empty list of distinct agent names"
    for key in ("notes", "reviewed_by"):
        if key in raw and not isinstance(raw[key], str):
            return f"{key} must be a string"
    if "reviewed_at" in raw and not (
        isinstance(raw["reviewed_at"], str)
        and re.match(r"^\d{4}-\d{2}-\d{2}([T ].*)?\Z", raw["reviewed_at"])
    ):
        return "reviewed_at must be an ISO date such as 2026-11-29"
    if "from" in raw:
        return _override_problem(raw, tier)
    return _declaration_problem(raw, tier)


def _override_problem(raw: dict[str, Any], tier: Any) -> str | None:
    origin = raw["from"]
    if not isinstance(origin, str) or not _scope_ref_ok(origin):
        return "from must be 'global', 'external' or a scope path without '..' or '__'"
    if tier not in TIERS:
        return f"tier must be one of {', '.join(TIERS)}"
    if "force" in raw:
        return "an override cannot carry force: set force on the declaration"
    if "source" in raw:
        return "an override cannot carry source: source belongs on the external declaration"
    if any(k in raw for k in ("lifecycle", "reviewed_by", "reviewed_at")):
        return (
            "lifecycle, reviewed_by and reviewed_at belong on the declaration, not on an override"
        )
    if origin == EXTERNAL and "owner" not in raw:
        return "an override with from: external needs the owner of the external declaration"
    if origin != EXTERNAL and "owner" in raw:
        return "owner is only allowed on an override when from is 'external'"
    return None


def _declaration_problem(raw: dict[str, Any], tier: Any) -> str | None:
    if tier not in DECLARED_TIERS:
        return "a declaration's tier is always, optional or unlisted ('off' is for overrides)"
    if "owner" not in raw:
        return "a declaration needs an owner (who to ask; whose connection enables it)"
    if "force" in raw and not isinstance(raw["force"], bool):
        return "force must be true or false"
    if "lifecycle" in raw and raw["lifecycle"] not in LIFECYCLES:
        return f"lifecycle must be one of {', '.join(LIFECYCLES)}"
    if "source" in raw:
        source = raw["source"]
        if (
            not isinstance(source, dict)
            or set(source) != {"repo", "path", "ref"}
            or not all(isinstance(v, str) and v for v in source.values())
        ):
            return "source needs exactly repo, path and ref, each a non-empty string"
        if (
            source["repo"][0] == "-"
            or source["ref"][0] == "-"
            or any(c.isspace() for c in source["repo"] + source["ref"])
        ):
            return "source repo and ref must not start with '-' or hold spaces"
        parts = source["path"].split("/")
        if (
            source["path"].startswith("/")
            or ".." in parts
            or source["path"][0].isspace()
            or "\n" in source["path"]
        ):
            return "source path must be relative, on one line, and must not contain '..'"
    return None


def _scope_ref_ok(text: str) -> bool:
    if text in (GLOBAL, EXTERNAL):
        return True
    parts = text.split("/")
    return "__" not in text and all(
        part and part not in (".", "..") and re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z", part)
        for part in parts
    )


def top_level_problem(data: Any) -> str | None:
    """The first rule the file's top level breaks (mirrors skills.schema.json), or None."""
    if not isinstance(data, dict) or not isinstance(data.get("skills"), list):
        return 'expected an object with a "skills" list'
    unknown = sorted(set(data) - {"$schema", "skills", "policy"})
    if unknown:
        return f"unknown top-level key(s) {', '.join(unknown)}: keep $schema, skills and policy"
    if not isinstance(data.get("$schema", ""), str):
        return "$schema must be the relative path to skills.schema.json"
    policy = data.get("policy", {})
    if not isinstance(policy, dict) or set(policy) - set(POLICY_RULES):
        return f"policy must be an object with {' and/or '.join(POLICY_RULES)}"
    if any(v not in POLICY_ACTIONS for v in policy.values()):
        return f"each policy rule is one of {', '.join(POLICY_ACTIONS)}"
    return None
