"""One foreign skill planned for the repository, shared by ``exobrain import`` and
``import --update`` (:mod:`exobrain.interop.importer`, :mod:`exobrain.interop.reimport`).

A plan is the skill's SKILL.md read leniently (YAML slips repaired), its frontmatter
translated by the format's adapter (:mod:`exobrain.interop.formats`), and checked as
skills-validate would (the spec, unsafe files, the powers it grants an agent against the
repository's policy); what is wrong lands on the skill's :class:`Item`, nothing is raised.
The lock's ``upstream`` record of where the copy came from is made here too, so both
commands record it alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from exobrain.artifacts.hidden_report import judge_folder
from exobrain.artifacts.lockfile import with_powers
from exobrain.artifacts.specrules import spec_problems
from exobrain.errors import ExobrainError
from exobrain.findings import ERROR
from exobrain.interop.formats.bundle import FoundSkill
from exobrain.interop.formats.fields import dump, read_lenient
from exobrain.interop.formats.translation import translate
from exobrain.interop.inputs import LOCAL, Opened
from exobrain.registry.entries import Policy
from exobrain.registry.rules import FLAG, REFUSE
from exobrain.skillmd import SKILL_FILE, powers, skill_text, toolkit_field
from exobrain.util.confine import unsafe_entries
from exobrain.util.dirhash import hash_digests


@dataclass
class Item:
    """One skill of an import or update: what happened to it and why."""

    name: str
    upstream: str
    status: str = "skipped"
    ref: str | None = None
    version: str | None = None
    previous: str | None = None
    repairs: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None
    forked: str | None = None  # the fork that keeps local edits (import --update --fork-local)
    hidden: list[dict[str, Any]] = field(default_factory=list)  # hidden characters found

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__.items())


@dataclass
class Report:
    source: str
    format: str
    reason: str
    scope: str
    dry_run: bool
    items: list[Item] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def skipped(self) -> list[Item]:
        return [i for i in self.items if i.status == "skipped"]

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "detected_by": self.reason,
            "scope": self.scope,
            "dry_run": self.dry_run,
            "notes": self.notes,
            "skills": [i.as_json() for i in self.items],
        }


@dataclass
class Plan:
    """A translated skill ready to be written."""

    found: FoundSkill
    item: Item
    text: str = ""
    body: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    upstream_version: str | None = None
    powers: list[str] = field(default_factory=list)  # policy rules, upstream's or the copy's
    resume: bool = False  # its copy is in place from an interrupted import: declare and lock


#: A found skill's SKILL.md as read: (frontmatter, body, repairs), or why it is unusable.
Reading = tuple[dict[str, Any], str, list[str]] | ExobrainError


def read_skill_text(found: FoundSkill) -> tuple[dict[str, Any], str, list[str]]:
    """(frontmatter, body, repairs) of a found skill; raises InputFileError when unusable."""
    path = found.folder / SKILL_FILE
    return read_lenient(skill_text(path), path)


def plan_skill(
    adapter: ModuleType,
    src: Opened,
    found: FoundSkill,
    reading: Reading,
    new_name: str | None = None,
    policy: Policy | None = None,
    *,
    shared: bool = True,
) -> Plan:
    """Translate one skill; problems end up on ``plan.item.problem`` (nothing raised). A skill
    that gives an agent powers of its own (hooks, wildcard tool permissions) is flagged, or
    refused where the repository's ``policy`` says so. Hidden characters in the incoming
    folder are listed on ``item.hidden``; into a ``shared`` scope, one that its SKILL.md does
    not allow refuses the skill, as skills-validate would fail on it."""
    item = Item(found.folder_name, src.where(found.rel) or ".")
    plan = Plan(found, item)
    if isinstance(reading, ExobrainError):
        item.problem = reading.message
        return plan
    raw, body, repairs = reading
    raw = dict(raw)
    notes = adapter.prepare(raw, found)
    result = translate(
        raw,
        found.folder_name,
        keep=adapter.KEEP,
        source_format=adapter.SOURCE_FORMAT,
        source_url=src.display(found.rel),
        new_name=new_name,
        bundle_versions=found.bundle_versions(),
    )
    item.name, item.version = result.name, toolkit_field(result.meta, "version")
    item.repairs, item.notes = repairs + result.repairs, notes
    problems = result.problems + [f"{rel}: {why}" for rel, why in unsafe_entries(found.folder)]
    if not result.problems:  # what the translation could not repair would fail skills-validate
        problems += [why for _, why in spec_problems(result.meta, result.name)]
    granted = dict(powers(raw) + powers(result.meta))
    plan.powers = sorted(granted)
    for rule, why in granted.items():
        action = (policy or Policy()).action(rule)
        if action == REFUSE:
            problems.append(f"{why}; refused by the policy in the global skills.json")
        elif action == FLAG:
            item.flags.append(f"{why}; review it before anyone opts in (the lock records it)")
    hidden = judge_folder(found.folder, result.meta, shared=shared)
    item.hidden = [h.as_json() for h in hidden]
    errors = [h for h in hidden if h.level == ERROR]
    if errors:
        first = errors[0]
        at = f"{first.file}:{first.line}" if first.line else first.file
        problems.append(
            f"{len(errors)} hidden-text error(s), characters a reviewer cannot see that "
            f"skills-validate refuses in a shared scope (first: {at}: {first.message})"
        )
    if problems:
        item.problem = "; ".join(problems)
    plan.text, plan.body, plan.meta = dump(result.meta, body), body, result.meta
    plan.upstream_version = result.upstream_version
    return plan


def upstream_record(
    src: Opened,
    found: FoundSkill,
    adapter: ModuleType,
    upstream: dict[str, str],
    local: dict[str, str],
    repairs: list[str],
) -> dict[str, Any]:
    """What the lock remembers about where an imported skill came from, and the repairs its
    translation made (the same translation is applied again by ``import --update``). A local
    source is recorded without its place (``url`` is ``local``): the lock is committed, and
    where it was on this machine is kept on this machine
    (:mod:`exobrain.interop.localsources`)."""
    record: dict[str, Any] = {
        "kind": src.kind,
        "url": LOCAL if src.local else src.url,
        "base": src.path,
        "path": src.where(found.rel),
        "ref": src.ref,
        "commit": src.commit,
        "hash": hash_digests(upstream),
        "format": adapter.NAME,
        "imported": hash_digests(local),
    }
    if repairs:
        record["repairs"] = list(repairs)
    return record


def lock_entry_for(
    version: str, local: dict[str, str], record: dict[str, Any], rules: list[str]
) -> dict[str, Any]:
    """The lock entry of an imported copy: its digests, where it came from, and the powers it
    gives an agent (reported by the import, so recorded as seen)."""
    entry = {
        "version": version,
        "hash": hash_digests(local),
        "files": dict(sorted(local.items())),
        "upstream": record,
    }
    return with_powers(entry, rules)
