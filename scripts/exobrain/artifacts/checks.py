"""The artifact validators of skills-validate (SPEC-013 section 3), each with its own code:

* ``skill_name_unique`` — no two skills an agent could see share a link name;
* ``skill_dependencies_resolve`` — every skill ref in ``dependencies.skills`` and ``links.*``
  names a declared skill; tools and MCP servers are listed as info (they live outside);
* ``links_acyclic`` — ``supersedes`` and ``derives_from`` form no cycle;
* ``agentskills_io_compat_check`` — info when ``exobrain export`` would refuse a skill that
  otherwise validates: a field it moves into ``metadata`` would overwrite an entry already
  there, or ``metadata.version`` disagrees with ``version`` (native fields as such need nothing
  done: export moves them into ``metadata`` by itself, so they are not reported);
* the content rules (instructions, description length, ``files``) of
  :mod:`exobrain.artifacts.content`;
* ``version_bumped`` — a locked skill whose content changed while its version did not, or
  whose version went backwards (names the files that changed).

(One declaration per name per registry is checked with the registry, also as
``skill_name_unique``.)
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from exobrain.agents import AGENTS
from exobrain.artifacts.content import content_findings
from exobrain.artifacts.lockfile import drift, lock_path, read_lock, version_problem
from exobrain.errors import ExobrainError
from exobrain.findings import ERROR, INFO, Finding, from_error
from exobrain.model import EXTERNAL, GLOBAL, Identity
from exobrain.paths import shown, skill_dir
from exobrain.refs import parse_ref
from exobrain.registry.entries import Entry, Registry
from exobrain.skillmd import (
    FOLDED_MARKER,
    SKILL_FILE,
    SkillDoc,
    as_list,
    lifted,
    links_of,
    toolkit_field,
    toolkit_field_conflicts,
)
from exobrain.util.graphs import find_cycles

#: Frontmatter keys of the Agent Skills standard; everything else is native or agent-specific.
#: ``version`` is left out of the native list: every artifact has one and it maps one-to-one
#: onto the conventional ``metadata.version`` on export, so it is not worth an info line.
STANDARD_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
NATIVE_FIELDS = (
    "triggers",
    "tags",
    "personas",
    "inputs",
    "outputs",
    "dependencies",
    "examples",
    "files",
    "schema_version",
    "requires_substrate_access",
    "links",
    "source",
    "source_format",
    "source_url",
    "agentskills_io_compat",
)
REF_PREDICATES = ("uses_skill", "derives_from", "supersedes")
#: The metadata entry naming the fields an export moved into metadata.
MOVED_MARKER = FOLDED_MARKER


def fields_to_move(meta: dict[str, Any], keep: frozenset[str], tools_as_text: bool) -> list[str]:
    """The top-level keys an export that keeps only ``keep`` moves into metadata
    (``allowed-tools`` too when it is a list and the target wants text); the toolkit's
    fields kept in ``metadata`` count as at the top level (:func:`lifted`)."""
    meta = lifted(meta)
    moved = [k for k in meta if k not in keep and k not in ("metadata", "version")]
    if tools_as_text and isinstance(meta.get("allowed-tools"), list):
        moved.append("allowed-tools")
    return moved


def metadata_conflicts(
    meta: dict[str, Any],
    *,
    keep: frozenset[str] = frozenset(STANDARD_FIELDS),
    tools_as_text: bool = True,
    strip: bool = False,
) -> list[str]:
    """Why an export would refuse the skill's ``metadata``: the reserved entry is taken, its
    ``version`` disagrees with the skill's, or a moved field would overwrite an entry
    (``strip``: moved fields are dropped instead, so they overwrite nothing)."""
    problems = []
    written = meta.get("metadata")  # as written: a field in both places must agree
    if isinstance(written, dict):
        version = meta.get("version")
        if "version" in meta and "version" in written and str(written["version"]) != str(version):
            problems.append(
                f"metadata.version {written['version']!r} differs from version {version!r}; "
                f"remove one"
            )
        problems += [why for why in toolkit_field_conflicts(meta) if not why.startswith("version ")]
    meta = lifted(meta)
    metadata = meta.get("metadata")
    if not isinstance(metadata, dict):
        return problems
    if not strip:
        problems += [
            f"{key} would move into metadata, which already has a {key!r} entry; rename "
            f"one (or export with --strip)"
            for key in fields_to_move(meta, keep, tools_as_text)
            if key in metadata
        ]
    return problems


def artifact_findings(
    root: Path, registries: list[Registry], docs: dict[Identity, SkillDoc]
) -> list[Finding]:
    found = _link_name_collisions(registries)
    named = {_ref_name(text) for doc in docs.values() for _, text in skill_refs(doc.meta)}
    by_name: dict[str, set[Identity]] = defaultdict(set)  # only the names a SKILL.md names
    for registry in registries:
        for _, identity in registry.declared():
            if identity.name in named:
                by_name[identity.name].add(identity)
    graph: dict[Identity, list[Identity]] = defaultdict(list)
    for (home, name, _), doc in sorted(docs.items()):
        rel = shown(skill_dir(root, home, name) / SKILL_FILE, root)
        found.extend(_reference_findings(rel, doc, by_name, graph, Identity(home, name)))
        found.extend(content_findings(rel, skill_dir(root, home, name), doc))
        found.extend(
            Finding(INFO, "agentskills_io_compat_check", rel, f"export would refuse it: {why}")
            for why in metadata_conflicts(doc.raw)
        )
    found.extend(_lock_findings(root, registries, docs))
    for cycle in find_cycles(graph):
        path = " → ".join(f"{n[1]}@{n[0]}" for n in cycle + cycle[:1])
        first = shown(skill_dir(root, cycle[0][0], cycle[0][1]) / SKILL_FILE, root)
        found.append(
            Finding(
                ERROR,
                "links_acyclic",
                first,
                f"supersedes/derives_from links form a cycle: {path}; remove one of the links",
            )
        )
    return found


def _reference_findings(
    rel: str,
    doc: SkillDoc,
    by_name: dict[str, set[Identity]],
    graph: dict[Identity, list[Identity]],
    node: Identity,
) -> list[Finding]:
    found = []
    deps = doc.meta.get("dependencies")
    if not isinstance(deps, dict):
        deps = {}
    for where, text in skill_refs(doc.meta):
        target = resolve_ref(text, by_name)
        if target is None:
            found.append(
                Finding(
                    ERROR,
                    "skill_dependencies_resolve",
                    rel,
                    f"{where}: {text} names no declared skill; declare it or fix "
                    f"the reference (skill:NAME or skill:NAME@HOME)",
                )
            )
        elif where in ("links.supersedes", "links.derives_from"):
            graph[node].append(target)
    for kind in ("tools", "mcp_servers"):
        names = [str(t) for t in as_list(deps.get(kind))]
        if names:
            found.append(
                Finding(
                    INFO,
                    "skill_dependencies_resolve",
                    rel,
                    f"dependencies.{kind}: {', '.join(names)} (provided outside "
                    f"this repository; not checked)",
                )
            )
    return found


def skill_refs(meta: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, ref) of every skill ref a frontmatter makes: ``dependencies.skills`` and the
    ``links`` that name skills."""
    deps = meta.get("dependencies")
    listed = as_list(deps.get("skills")) if isinstance(deps, dict) else []
    refs = [("dependencies.skills", r) for r in listed if isinstance(r, str)]
    return refs + [(f"links.{p}", r) for p in REF_PREDICATES for r in links_of(meta, p)]


def _ref_name(text: str) -> str | None:
    try:
        return parse_ref(text).name
    except ExobrainError:
        return None  # reported by resolve_ref


def resolve_ref(text: str, by_name: dict[str, set[Identity]]) -> Identity | None:
    """A reference's target identity when some declaration matches (any home when none is
    given: nearest-in-chain depends on the reader's connection, existence does not)."""
    try:
        ref = parse_ref(text)
    except ExobrainError:
        return None
    candidates = by_name.get(ref.name, set())
    if ref.home is None:
        return min(candidates) if candidates else None
    if ref.home.startswith(f"{EXTERNAL}/"):
        key = Identity.external(ref.name, ref.home.split("/", 1)[1])
    else:
        key = Identity(ref.home, ref.name)
    return key if key in candidates else None


def _link_name_collisions(registries: list[Registry]) -> list[Finding]:
    """Two different skills that would get the same folder name in one agent's skills dir.

    Link names are computed once per declaration, from its identity (a million at 100,000
    people, none of them made into an entry), and only the declarations whose link name two
    identities share are looked at per agent; when no entry filters agents, every agent sees
    the same names and one pass stands for all of them."""
    if _links_are_distinct(registries):
        return []
    found, reported = [], set()
    keyed = [
        (registry, index, identity, identity.told_apart)
        for registry in registries
        for index, identity in registry.declared()
    ]
    first: dict[str, Identity] = {}
    shared = {link for _, _, i, link in keyed if first.setdefault(link, i) != i}
    filtered = any(registry.filters_agents() for registry in registries)
    rows = [(r.entry(index), i, link) for r, index, i, link in keyed if link in shared]
    for agent in AGENTS if filtered else AGENTS[:1]:
        names: dict[str, tuple[Entry, Identity]] = {}
        for entry, identity, link in rows:
            if filtered and not entry.applies_to(agent.name):
                continue
            other, other_identity = names.setdefault(link, (entry, identity))
            if other_identity != identity and (link, identity) not in reported:
                reported.add((link, identity))
                found.append(
                    Finding(
                        ERROR,
                        "skill_name_unique",
                        _registry_file(entry.scope),
                        f"link name {link!r} collides with {other.name!r} declared "
                        f"in {other.scope} (agent {agent.name}); rename one",
                        entry=entry.label(),
                    )
                )
    return found


def _links_are_distinct(registries: list[Registry]) -> bool:
    """Whether no two different skills can share a link name, known from the scopes and the
    external owners alone (a million identities need not be walked for it).

    A link is ``name`` (global), ``name.<home with / as __>`` (in-tree) or ``name.<owner>``
    (external), and a valid name holds no ``.``: a global link never equals another kind, and
    two links are equal only when their names are and so are the parts after the dot. Those
    parts are distinct for in-tree skills when no two scopes turn into the same text (as
    ``a/_b`` and ``a_/b`` would), and an external's owner can only match a scope's text."""
    scopes = [r.scope for r in registries if r.scope != GLOBAL]
    texts = {scope.replace("/", "__") for scope in scopes}
    if len(texts) != len(set(scopes)):
        return False
    return not any(
        identity.owner in texts
        for registry in registries
        for _, identity in registry.declared()
        if identity.home == EXTERNAL
    )


def _registry_file(scope: str) -> str:
    return "skills.json" if scope == "global" else f"{scope}/skills.json"


def _lock_findings(
    root: Path, registries: list[Registry], docs: dict[Identity, SkillDoc]
) -> list[Finding]:
    found: list[Finding] = []
    with_docs = {key.home for key in docs}  # a lock is checked against skills on disk
    for registry in registries:
        if registry.scope not in with_docs:
            continue
        path = lock_path(root, registry.scope)
        if not path.exists():
            continue
        rel = shown(path, root)
        try:
            lock = read_lock(root, registry.scope)
        except ExobrainError as exc:
            found.append(from_error("version_bumped", rel, exc.message, path))
            continue
        for name, locked in sorted(lock["skills"].items()):
            doc = docs.get(Identity(registry.scope, name))
            if doc is None:
                continue  # a missing folder is reported against its declaration
            version = toolkit_field(doc.meta, "version")
            folder = skill_dir(root, registry.scope, name)
            try:
                folder_drift = drift(folder, locked)
            except ExobrainError:
                continue  # a special file in the folder: reported as unsafe-file
            problem = version_problem(
                str(version) if version is not None else None,
                locked,
                folder_drift,
                shown(folder, root),
            )
            if problem:
                found.append(
                    Finding(ERROR, "version_bumped", shown(folder / SKILL_FILE, root), problem)
                )
    return found
