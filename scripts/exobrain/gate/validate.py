"""skills-validate's checks: registries against the schema, declarations against folders,
overrides against declarations, and every SKILL.md against the Agent Skills rules.

Files still in the shapes of the original bash implementation get an info saying how to move
them to today's form (:mod:`exobrain.gate.legacy`). ``seed/`` is left out of the declaration
and orphan scans (its ``create-instance`` skill is
deliberately undeclared) but its ``skills.json`` is still schema-checked. Every skill folder is
also walked for what must never be shared: a link that leads outside it (the one escape rule,
:func:`exobrain.util.confine.leaves`) and FIFOs, devices or sockets (``unsafe-file``), and its
text files for characters a reviewer cannot see (``hidden-text``).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from exobrain.artifacts.checks import artifact_findings
from exobrain.artifacts.hidden_report import judge_folder
from exobrain.artifacts.lockfile import read_lock, recorded_powers
from exobrain.artifacts.specrules import spec_problems
from exobrain.errors import ExobrainError, InputFileError
from exobrain.findings import ERROR, INFO, WARNING, Finding, from_error
from exobrain.gate.crons import crons_findings
from exobrain.gate.legacy import legacy_findings
from exobrain.gate.unreached import unreached_findings
from exobrain.model import EXTERNAL, GLOBAL, Identity
from exobrain.paths import shown, skill_dir
from exobrain.registry.entries import REGISTRY_FILE, Entry, Policy, Registry
from exobrain.registry.rules import ALLOW, REFUSE
from exobrain.registry.schema import explained_findings, schema_findings, schema_is_packaged
from exobrain.scopes import SEED, is_shared
from exobrain.signals.voters import ledger_findings
from exobrain.skillmd import SKILL_FILE, SkillDoc, powers, read_skill
from exobrain.util.confine import leaves, unsafe_entries
from exobrain.util.staging import is_leftover
from exobrain.workspace import Workspace


def validate(ws: Workspace) -> list[Finding]:
    """Every finding for the repository, errors and infos, in a stable order."""
    registries = ws.all_registries(include_seed=True)
    # The connection file is per machine; validate judges what the repository shares.
    findings = [f for f in ws.findings if f.code not in ("registry-schema", "connection-scope")]
    trust_fast_check = schema_is_packaged(ws.root)
    for registry in registries:
        if not registry.parsed or (trust_fast_check and not registry.findings):
            continue
        explain = explained_findings if trust_fast_check else schema_findings
        findings.extend(explain(ws.root, registry))
    scanned = [r for r in registries if r.scope != SEED]
    declarations = _declarations(registries)
    for registry in scanned:
        findings.extend(_entry_findings(ws, registry, declarations))
    docs: dict[Identity, SkillDoc] = {}
    findings.extend(_folder_findings(ws, declarations, docs))
    findings.extend(_outside_findings(ws, declarations))
    findings.extend(artifact_findings(ws.root, scanned, docs))
    findings.extend(crons_findings(ws))
    findings.extend(legacy_findings(ws))
    findings.extend(policy_findings(ws, registries))
    findings.extend(unreached_findings(ws, scanned))
    findings.extend(ledger_findings(ws))
    return findings


def _declarations(registries: list[Registry]) -> set[Identity]:
    return {identity for r in registries for _, identity in r.declared()}


def _registry_file(scope: str) -> str:
    return REGISTRY_FILE if scope == GLOBAL else f"{scope}/{REGISTRY_FILE}"


def _entry_findings(
    ws: Workspace, registry: Registry, declarations: set[Identity]
) -> list[Finding]:
    """A declaration made twice in the file or whose folder is missing, then each override
    whose target nobody declares (one pass over the entries: a million at 100k people)."""
    rel = _registry_file(registry.scope)
    found: list[Finding] = []
    first: dict[Identity, int] = {}  # the index of each skill's first declaration
    # the skills folder of this scope, as text: at most one stat per declaration, no Paths
    shown_base = "skills/" if registry.scope == GLOBAL else f"{registry.scope}/skills/"
    # outside the cone git's tree says first; the disk is asked only when it has no folder
    committed = (
        ws.sparse.committed_skills(registry.scope)
        if ws.sparse.scope_left_out(registry.scope)
        else None
    )
    # in a full checkout the disk is the whole answer: git is asked only in a sparse one
    sparse = ws.sparse.checkout().sparse
    for index, identity in registry.declared():
        name = identity.name
        if identity in first:
            entry, earlier = registry.entry(index), registry.entry(first[identity])
            found.append(
                Finding(
                    ERROR,
                    "skill_name_unique",
                    rel,
                    f"{name!r} is declared twice in this file (first as "
                    f"{earlier.label()}); keep one declaration",
                    entry=entry.label(),
                    line=registry.line_of(index),
                )
            )
            continue
        first[identity] = index
        if (
            identity.home != EXTERNAL
            and (committed is None or name not in committed)
            and not os.path.isfile(os.path.join(ws.root, shown_base, name, SKILL_FILE))
            and (committed is not None or not sparse or not ws.skill_exists(registry.scope, name))
        ):
            missing = f"{shown_base}{name}/{SKILL_FILE}"
            found.append(
                Finding(
                    ERROR,
                    "missing-skill",
                    rel,
                    f"declared, but {missing} does not exist; create the skill "
                    f"or remove the declaration",
                    entry=registry.entry(index).label(),
                    line=registry.line_of(index),
                )
            )
    return found + [
        _dangling_override(rel, registry, registry.entry(index))
        for index, identity in registry.overridden()
        if identity not in declarations
    ]


def _dangling_override(rel: str, registry: Registry, entry: Entry) -> Finding:
    target = (
        f"no external declaration of {entry.name!r} owned by {entry.owner!r}"
        if entry.origin == EXTERNAL
        else f"{entry.name!r} is not declared in {entry.origin}/skills.json"
        if entry.origin != "global"
        else f"{entry.name!r} is not declared in the global skills.json"
    )
    return Finding(
        ERROR,
        "dangling-override",
        rel,
        f"DANGLING OVERRIDE: {target}; fix 'from' or remove the entry",
        entry=entry.label(),
        line=registry.line_of(entry.index),
    )


def _folder_findings(
    ws: Workspace, declarations: set[Identity], docs: dict[Identity, SkillDoc]
) -> list[Finding]:
    """Check every skill folder outside seed/: its SKILL.md, and whether anything declares it.
    Each SKILL.md that parses lands in ``docs`` under its skill (scope, folder name)."""
    found: list[Finding] = []
    policy = ws.registry(GLOBAL).policy
    for scope in ws.scan().scopes:
        if scope.path == SEED or ws.sparse.without_folder(scope.path):
            continue
        folder = skill_dir(ws.root, scope.path, "x").parent
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            found.append(
                Finding(
                    ERROR,
                    "scope-unreadable",
                    shown(folder, ws.root),
                    f"cannot read folder ({exc.strerror or exc})",
                    bad_input=True,
                )
            )
            continue
        try:
            locked = read_lock(ws.root, scope.path)["skills"]
        except ExobrainError:
            locked = {}  # reported as version_bumped against the lock file
        for item in entries:
            if is_leftover(item.name) and item.is_dir(follow_symlinks=False):
                found.append(_leftover(shown(Path(item.path), ws.root)))
            if item.name.startswith(".") or not item.is_dir():
                continue
            skill_file = Path(item.path) / SKILL_FILE
            rel = shown(skill_file, ws.root)
            if item.is_symlink() and leaves(ws.root, Path(item.path)):
                target = os.readlink(item.path)
                message = f"the skill folder is a link to {target!r}, outside the repository"
                found.append(
                    Finding(ERROR, "unsafe-file", shown(Path(item.path), ws.root), message)
                )
                continue
            found.extend(
                Finding(
                    ERROR,
                    "unsafe-file",
                    shown(Path(item.path) / inside, ws.root),
                    f"{why}; replace a link with the file it points to, remove a special file",
                )
                for inside, why in unsafe_entries(Path(item.path))
            )
            if not os.path.isfile(skill_file):  # (a folder that cannot be read: named above)
                continue
            if Identity(scope.path, item.name) not in declarations:
                found.append(_undeclared(rel, scope.path))
            doc: SkillDoc | None = None
            try:
                doc = read_skill(skill_file)
            except InputFileError as exc:
                found.append(from_error("skill-frontmatter", rel, exc.message, skill_file))
            found.extend(hidden_findings(ws.root, Path(item.path), doc, scope.type))
            if doc is None:
                continue
            docs[Identity(scope.path, item.name)] = doc
            found.extend(
                Finding(ERROR, code, rel, message)
                for code, message in spec_problems(doc.meta, item.name)
            )
            found.extend(power_findings(rel, doc, policy, recorded_powers(locked.get(item.name))))
    return found


def hidden_findings(
    root: Path, folder: Path, doc: SkillDoc | None, scope_type: str
) -> list[Finding]:
    """Tag characters, zero-width and bidi controls in the skill's text files: errors in a
    shared scope, warnings in a personal one (:mod:`exobrain.artifacts.hidden_report`)."""
    base = shown(folder, root)
    return [
        Finding(h.level, "hidden-text", f"{base}/{h.file}", h.message, line=h.line)
        for h in judge_folder(folder, doc.meta if doc else None, shared=is_shared(scope_type))
    ]


def _undeclared(rel: str, scope: str) -> Finding:
    """The note for a skill folder that no registry of its scope declares."""
    return Finding(
        INFO,
        "undeclared",
        rel,
        f"skill folder not declared in any skills.json of {scope}; declare it to make it "
        f"reachable (if an exobrain import of it was interrupted, run that import again: it "
        f"finishes it)",
    )


def _leftover(rel: str) -> Finding:
    """A staging or discarded folder in a skills folder: what a killed import, fork or update
    left half-written, never a skill, and nothing anyone should commit."""
    return Finding(
        WARNING,
        "interrupted-write",
        rel,
        "left half-written by an interrupted import, fork or update; remove it: "
        f"rm -r {shlex.quote(rel)}",
    )


def _outside_findings(ws: Workspace, declarations: set[Identity]) -> list[Finding]:
    """Skill folders a sparse checkout leaves out: git's tree says which exist (so nobody's
    declaration is reported missing and an undeclared folder is still an info), and a note
    says that their files were not checked. A folder is declared when its scope's own
    skills.json declares it in-tree: that declaration, and only it, has the identity
    (scope, folder name)."""
    outside = [s for s in ws.scan().scopes if ws.sparse.scope_left_out(s.path) and s.path != SEED]
    if not outside:
        return []
    found: list[Finding] = []
    count = 0
    for scope in outside:
        path, names = scope.path, ws.sparse.committed_skills(scope.path)
        count += len(names)
        # (path, n, "") is Identity(path, n) to a set, without making 600,000 named tuples
        undeclared = [n for n in names if (path, n, "") not in declarations]
        for name in sorted(undeclared) if undeclared else ():
            rel = shown(skill_dir(ws.root, path, name) / SKILL_FILE, ws.root)
            found.append(_undeclared(rel, scope.path))
    ws.notes.append(
        f"{count} skill folder(s) in {len(outside)} scope(s) lie outside the sparse checkout: "
        f"their registries and presence were checked from git, their files were not (a full "
        f"checkout, as in CI, checks them)"
    )
    return found


def power_findings(rel: str, doc: SkillDoc, policy: Policy, recorded: set[str]) -> list[Finding]:
    """A skill that gives an agent powers of its own (hooks, wildcard tool permissions): an
    error where the repository's policy refuses it, else a warning unless its lock entry
    records the power as seen (import, import --update and register record it)."""
    found = []
    for rule, why in powers(doc.meta):
        action = policy.action(rule)
        if action == ALLOW or (action != REFUSE and rule in recorded):
            continue
        if action == REFUSE:
            level, how = ERROR, "refused by the policy in the global skills.json"
        else:
            folder = rel.rsplit("/", 1)[0]
            level, how = WARNING, f"review it, then record it as seen: exobrain register {folder}"
        found.append(Finding(level, f"skill-{rule.replace('_', '-')}", rel, f"{why}; {how}"))
    return found


def policy_findings(ws: Workspace, registries: list[Registry]) -> list[Finding]:
    """A policy belongs to the repository: only the global skills.json may hold one."""
    return [
        Finding(
            ERROR,
            "registry-schema",
            shown(r.path, ws.root),
            "policy is read from the global skills.json only; move it there",
            bad_input=True,
        )
        for r in registries
        if r.scope != GLOBAL and isinstance(r.data, dict) and "policy" in r.data
    ]


def exit_code(findings: list[Finding], strict: bool) -> int:
    """2 for broken input files, 1 for other errors (or infos with --strict), else 0."""
    if any(f.bad_input and f.level == ERROR for f in findings):
        return 2
    if any(f.level == ERROR for f in findings) or (strict and findings):
        return 1
    return 0
