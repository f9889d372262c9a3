"""skills.json registries: loading, the entry model, and findings with precise locations.

Two levels of checking share one set of rules:

* :mod:`exobrain.registry.rules` (``entry_problem``) is a fast structural check used on
  every load, so resolution never sees a malformed entry and commands such as
  ``skills-status`` need not import jsonschema;
* :mod:`exobrain.registry.schema` runs the JSON Schema itself (``skills.schema.json``) for
  ``skills-validate`` and the registry editor; a test keeps the two in agreement.

A broken file never stops other files from loading: its problems travel with the
:class:`Registry` as findings.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict

from exobrain.errors import InputFileError
from exobrain.findings import ERROR, Finding, from_error
from exobrain.model import (
    EXTERNAL,
    GLOBAL,
    Identity,
    Lifecycle,
    Tier,
)
from exobrain.paths import shown
from exobrain.registry.rules import FLAG, entry_problem, top_level_problem
from exobrain.util import boundedjson
from exobrain.util.fileio import parse_json, read_text
from exobrain.util.jsonstyle import element_lines

REGISTRY_FILE = "skills.json"
SCHEMA_FILE = "skills.schema.json"
_TIER_OF = {t.value: t for t in Tier}
_LIFECYCLE_OF = {c.value: c for c in Lifecycle}


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
        registry ask for it several times per entry). The one rule: :meth:`identity_for`."""
        return self.identity_for(self.name, self.scope, self.origin, self.owner, self.source)

    @staticmethod
    def identity_for(
        name: str, scope: str, origin: str | None, owner: str | None, source: Any
    ) -> Identity:
        """Which skill an entry of ``scope`` names: an external one (owner-qualified) when it
        declares a ``source`` or overrides ``from: external``; else the skill at its home —
        the override's ``from``, or the declaring scope itself. A declaration is therefore
        its own skill: external exactly when it has a ``source``. Raw JSON items are given
        their identity by the same rule (:func:`make_entry`, :meth:`Registry.declared`)."""
        if source is not None or origin == EXTERNAL:
            return Identity(EXTERNAL, name, owner or "")
        return Identity(origin if origin is not None else scope, name)

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


def make_entry(raw: dict[str, Any], scope: str, index: int) -> Entry:
    """The entry of a valid raw ``skills.json`` item, its identity already known.

    A repository of 100,000 people has a million entries, so this is made the fast way:
    the instance gets its attribute dictionary whole, built as one literal (what :mod:`copy`
    and :mod:`pickle` do for a frozen dataclass), instead of one ``object.__setattr__`` per
    field, and the identity lands where :attr:`Entry.identity` caches it. ``test_registry``
    holds it equal to ``Entry(...)``.
    """
    name, origin, owner, source = raw["name"], raw.get("from"), raw.get("owner"), raw.get("source")
    skip = raw.get("skipAgents")
    identity = Entry.identity_for(name, scope, origin, owner, source)
    entry = _new(Entry)
    _set(
        entry,
        "__dict__",
        {
            "name": name,
            "tier": _TIER_OF[raw["tier"]],
            "scope": scope,
            "index": index,
            "owner": owner,
            "origin": origin,
            "force": raw.get("force") is True,
            "source": source,
            "agent": raw.get("agent"),
            "skip_agents": tuple(skip) if skip else (),
            "lifecycle": _LIFECYCLE_OF[raw.get("lifecycle", "active")],
            "notes": raw.get("notes"),
            "identity": identity,
        },
    )
    return entry


_new = object.__new__
_set = object.__setattr__  # a frozen dataclass refuses its own


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


@dataclass(slots=True)
class Registry:
    """The valid entries of one skills.json plus findings about everything else in it.

    A registry made by :meth:`known_valid` (from a parse cached by blob id: see
    :mod:`exobrain.sparse.committed`) makes its entries only on first use, so a catalog of a million
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
    _declared: list[tuple[int, Identity]] | None = field(default=None, repr=False)
    _overridden: list[tuple[int, Identity]] | None = field(default=None, repr=False)

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

    def declared(self) -> list[tuple[int, Identity]]:
        """(index, identity) of each declaration (an entry without ``from``), in file order.

        Made from the parsed JSON while the entry objects are not: the repository-wide checks
        of skills-validate look at a million entries at 100,000 people and need an
        :class:`Entry` (:meth:`entry`) only for the few they report."""
        return self._identities()[0]

    def overridden(self) -> list[tuple[int, Identity]]:
        """(index, identity of the skill it overrides) of each override, in file order."""
        return self._identities()[1]

    def _identities(self) -> tuple[list[tuple[int, Identity]], list[tuple[int, Identity]]]:
        if self._declared is None or self._overridden is None:
            declared: list[tuple[int, Identity]] = []
            overridden: list[tuple[int, Identity]] = []
            raw = self.valid_raw()
            if raw is None:
                for e in self.entries:
                    (overridden if e.is_override else declared).append((e.index, e.identity))
            else:
                scope, rule = self.scope, Entry.identity_for
                for i, d in enumerate(raw):
                    origin = d.get("from")
                    kind = declared if origin is None else overridden
                    identity = rule(d["name"], scope, origin, d.get("owner"), d.get("source"))
                    kind.append((i, identity))
            self._declared, self._overridden = declared, overridden
        return self._declared, self._overridden

    def entry(self, index: int) -> Entry:
        """The valid entry at position ``index`` of the file's ``skills`` list."""
        raw = self.valid_raw()
        if raw is not None:
            return make_entry(raw[index], self.scope, index)
        # Parsing appends the valid entries in file order (skipping the bad ones), so the list
        # is sorted by index: a bisection finds one in a 200,000-entry registry at once, where
        # a search from the start for each entry reported made skills-validate quadratic.
        entries = self.entries
        at = bisect_left(entries, index, key=_index_of)
        if at < len(entries) and entries[at].index == index:
            return entries[at]
        return next(e for e in entries if e.index == index)  # a list an edit reordered

    def filters_agents(self) -> bool:
        """Whether an entry names an ``agent`` or ``skipAgents`` (checked without entries)."""
        raw = self.valid_raw()
        if raw is None:
            return any(e.agent is not None or e.skip_agents for e in self.entries)
        # known valid: an agent is a name and skipAgents never empty, so the keys say it all
        return any("agent" in d or "skipAgents" in d for d in raw)

    @property
    def exists(self) -> bool:
        return self.parsed

    def entry_finding(self, index: int, raw: Any, problem: str) -> Finding:
        """The error for entry ``index`` (as ``raw`` in the file) breaking a rule."""
        label = f"#{index} {raw.get('name')}" if isinstance(raw, dict) else f"#{index}"
        rel = shown(self.path, self.root)
        line = self.line_of(index)
        return Finding(
            ERROR, "registry-schema", rel, problem, entry=label, line=line, bad_input=True
        )

    def line_of(self, index: int) -> int | None:
        """The line where entry ``index`` starts (computed once, only when asked)."""
        if self._lines is None:
            self._lines = element_lines(self.text, "skills")
        return self._lines[index] if index < len(self._lines) else None


def _index_of(entry: Entry) -> int:
    return entry.index


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
        finding = registry.entry_finding(index, raw, problem)
        registry.findings.append(finding)
        registry.bad_entries[index] = finding
    return registry
