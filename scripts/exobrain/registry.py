"""skills.json registries: loading, the entry model, and schema checks with precise locations.

Two levels of checking share one set of rules:

* ``entry_problem`` is a fast structural check used on every load, so resolution never sees a
  malformed entry and commands such as ``skills-status`` need not import jsonschema;
* :mod:`exobrain.registry_schema` runs the JSON Schema itself (``skills.schema.json``) for
  ``skills-validate`` and the registry editor; a test keeps the two in agreement.

A broken file never stops other files from loading: its problems travel with the
:class:`Registry` as findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

from exobrain.errors import InputFileError
from exobrain.findings import ERROR, Finding, from_error
from exobrain.model import (
    DECLARED_TIERS,
    EXTERNAL,
    GLOBAL,
    LIFECYCLES,
    POLICY_RULES,
    TIERS,
    Identity,
    Lifecycle,
    Tier,
)
from exobrain.paths import shown
from exobrain.util import boundedjson
from exobrain.util.fileio import parse_json, read_text
from exobrain.util.jsonstyle import element_lines

REGISTRY_FILE = "skills.json"
SCHEMA_FILE = "skills.schema.json"
_TIER_OF = {t.value: t for t in Tier}
_LIFECYCLE_OF = {c.value: c for c in Lifecycle}
_KEYS = {
    "name",
    "owner",
    "tier",
    "from",
    "force",
    "source",
    "agent",
    "skipAgents",
    "lifecycle",
    "notes",
    "reviewed_by",
    "reviewed_at",
}
ALLOW, FLAG, REFUSE = "allow", "flag", "refuse"
POLICY_ACTIONS = (ALLOW, FLAG, REFUSE)
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
_OWNER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_AGENT = re.compile(r"^[a-z][a-z0-9-]*\Z")


class SourceSpec(TypedDict):
    """An external declaration's ``source`` (its shape is checked by :func:`entry_problem`)."""

    repo: str
    path: str
    ref: str


@dataclass(frozen=True)
class Entry:
    """One skills.json entry: a declaration (no ``from``) or an override (``from`` set)."""

    name: str
    tier: Tier
    scope: str  # the scope whose skills.json holds the entry
    index: int  # position in the file's "skills" array
    owner: str | None = None
    origin: str | None = None  # the "from" field of an override
    force: bool = False
    source: SourceSpec | None = None
    agent: str | None = None
    skip_agents: tuple[str, ...] = ()
    lifecycle: Lifecycle = Lifecycle.ACTIVE
    notes: str | None = None

    @property
    def is_override(self) -> bool:
        return self.origin is not None

    @property
    def is_external(self) -> bool:
        return self.source is not None or self.origin == EXTERNAL

    @cached_property
    def identity(self) -> Identity:
        """The skill this entry declares or overrides (computed once: the checks of a large
        registry ask for it several times per entry)."""
        if self.is_external:
            return Identity.external(self.name, self.owner or "")
        return Identity(self.origin if self.origin is not None else self.scope, self.name)

    def applies_to(self, agent: str | None) -> bool:
        """Agent filtering: ``agent`` = only that agent, ``skipAgents`` = all but those."""
        if agent is None:
            return True
        if self.agent is not None:
            return self.agent == agent
        return agent not in self.skip_agents

    def label(self) -> str:
        return f"#{self.index} {self.name}"


def registry_path(root: Path, scope: str) -> Path:
    return (root if scope == GLOBAL else root / scope) / REGISTRY_FILE


def entry_problem(raw: Any) -> str | None:
    """The first rule ``raw`` breaks (mirrors skills.schema.json), or None when it is fine."""
    if not isinstance(raw, dict):
        return "an entry must be a JSON object"
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        return f"unknown key(s) {', '.join(unknown)}"
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
    skip = raw.get("skipAgents", ["x"])
    if not (
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


def make_entry(raw: dict[str, Any], scope: str, index: int) -> Entry:
    """The entry of a valid raw ``skills.json`` item, its identity already known.

    A repository of 100,000 people has a million entries, so this is made the fast way:
    the instance's attributes are set in one go (what :mod:`copy` and :mod:`pickle` do for a
    frozen dataclass) instead of one ``object.__setattr__`` per field, and the identity lands
    where :attr:`Entry.identity` caches it. ``test_registry`` holds it equal to ``Entry(...)``.
    """
    name, origin, owner, source = raw["name"], raw.get("from"), raw.get("owner"), raw.get("source")
    skip = raw.get("skipAgents")
    if source is not None or origin == EXTERNAL:
        identity = Identity(EXTERNAL, name, owner or "")
    else:
        identity = Identity(origin if origin is not None else scope, name)
    entry = _new(Entry)
    entry.__dict__.update(
        name=name,
        tier=_TIER_OF[raw["tier"]],
        scope=scope,
        index=index,
        owner=owner,
        origin=origin,
        force=raw.get("force") is True,
        source=source,
        agent=raw.get("agent"),
        skip_agents=tuple(skip) if skip else (),
        lifecycle=_LIFECYCLE_OF[raw.get("lifecycle", "active")],
        notes=raw.get("notes"),
        identity=identity,
    )
    return entry


_new = object.__new__


@dataclass(frozen=True)
class Policy:
    """What the repository does about skills that give an agent powers of their own (the
    ``policy`` object of the global skills.json; see :func:`exobrain.skillmd.powers`): each
    rule is ``allow`` (say nothing), ``flag`` (the default: a warning in skills-validate and
    exobrain import) or ``refuse`` (an error in skills-validate; import skips the skill)."""

    agent_hooks: str = FLAG
    tool_wildcards: str = FLAG

    def action(self, rule: str) -> str:
        return str(getattr(self, rule, FLAG))


_NO_POLICY = Policy()


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


@dataclass(slots=True)
class Registry:
    """The valid entries of one skills.json plus findings about everything else in it.

    A registry made by :meth:`known_valid` (from a parse cached by blob id: see
    :mod:`exobrain.committed`) makes its entries only on first use, so a catalog of a million
    entries need not make a million objects it does not look at."""

    scope: str
    root: Path
    findings: list[Finding] = field(default_factory=list)
    data: Any = None
    text: str = ""
    parsed: bool = False  # the file was read and is JSON (``data`` may still be any value)
    bad_entries: dict[int, Finding] = field(default_factory=dict)  # index → the fast check's
    policy: Policy = _NO_POLICY  # only the global registry's counts (frozen: shared)
    _entries: list[Entry] | None = field(default_factory=list, repr=False)
    _lines: list[int] | None = field(default=None, repr=False)

    @classmethod
    def known_valid(cls, scope: str, root: Path, skills: list[dict[str, Any]]) -> Registry:
        """A registry of nothing but entries all known valid (an earlier parse found nothing
        and no policy)."""
        return cls(scope, root, data={"skills": skills}, parsed=True, _entries=None)

    @property
    def path(self) -> Path:
        return registry_path(self.root, self.scope)

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:
            raw = self.data.get("skills", []) if isinstance(self.data, dict) else []
            self._entries = [make_entry(r, self.scope, i) for i, r in enumerate(raw)]
        return self._entries

    def valid_raw(self) -> list[dict[str, Any]] | None:
        """The entries as parsed JSON for a :meth:`known_valid` registry whose entry objects
        were not made yet, else None: use :attr:`entries`."""
        if self._entries is not None or not isinstance(self.data, dict):
            return None
        raw = self.data.get("skills")
        return raw if isinstance(raw, list) else None

    @property
    def exists(self) -> bool:
        return self.parsed

    def line_of(self, index: int) -> int | None:
        """The line where entry ``index`` starts (computed once, only when asked)."""
        if self._lines is None:
            self._lines = element_lines(self.text, "skills")
        return self._lines[index] if index < len(self._lines) else None


def load_registry(root: Path, scope: str) -> Registry:
    """Load a scope's skills.json (a missing file is an empty registry)."""
    registry = Registry(scope, root)
    path = registry.path
    rel = shown(path, root)
    try:
        registry.text = read_text(path)
    except InputFileError as exc:
        if not path.exists() and not path.is_symlink():
            return registry
        registry.findings.append(from_error("registry-unreadable", rel, exc.message, path))
        return registry
    return _parse_into(registry, rel)


def registry_from_text(root: Path, scope: str, text: str) -> Registry:
    """A registry as it would load if its skills.json held ``text`` (previews of an edit)."""
    registry = Registry(scope, root, text=text)
    return _parse_into(registry, shown(registry.path, root))


def registry_if_clean(root: Path, scope: str, text: str) -> Registry | None:
    """The registry ``text`` holds when it has nothing to report and no policy (a
    :meth:`Registry.known_valid` one, its entries made only when asked), else None: then
    :func:`registry_from_text` gives the findings. The first catalog of a big repository
    parses hundreds of thousands of registries from git, nearly all of them clean."""
    try:
        data = boundedjson.loads(text)
    except ValueError:  # not JSON, or over a limit
        return None
    if top_level_problem(data) is not None or "policy" in data:
        return None
    skills = data["skills"]
    if any(entry_problem(raw) is not None for raw in skills):
        return None
    return Registry.known_valid(scope, root, skills)


def _parse_into(registry: Registry, rel: str) -> Registry:
    path = registry.path
    try:
        data = parse_json(registry.text, path)
    except InputFileError as exc:
        registry.findings.append(from_error("registry-json", rel, exc.message, path))
        return registry
    registry.data, registry.parsed = data, True
    top = top_level_problem(data)
    if top is not None:
        registry.findings.append(Finding(ERROR, "registry-schema", rel, top, bad_input=True))
    if not isinstance(data, dict) or not isinstance(data.get("skills"), list):
        return registry
    skills = data["skills"]
    if top is None and "policy" in data:
        registry.policy = Policy(**data["policy"])
    for index, raw in enumerate(skills):
        problem = entry_problem(raw)
        if problem is None:
            registry.entries.append(make_entry(raw, registry.scope, index))
            continue
        label = f"#{index} {raw.get('name')}" if isinstance(raw, dict) else f"#{index}"
        finding = Finding(
            ERROR,
            "registry-schema",
            rel,
            problem,
            entry=label,
            line=registry.line_of(index),
            bad_input=True,
        )
        registry.findings.append(finding)
        registry.bad_entries[index] = finding
    return registry
