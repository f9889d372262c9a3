"""The authoring gate: a new shared skill must carry committed proof that it earns its reach.

Declaring a skill in a shared scope (global, seed, a group, a team: every scope type except
``person`` and ``host``) loads it for everyone in that chain once forced or opted into, so a
skill that is *new* there must bring proof: a test, an eval or an A/B result tracked by git
inside its own folder, or a job in ``crons.json`` that names it.

What counts as proof is :mod:`exobrain.gate.proof`'s to say: a test that is not empty, an eval
that parses, an ``ab-results.json`` of the documented shape — judged on the blobs git holds —
or a crons.json job; a file that only looks like proof is reported with the reason it does
not count.

What is compared. The *current* state is the git index — what the next commit will hold. Under
pre-commit that is exactly the staged content; in CI, after a checkout, the index equals HEAD;
run by hand it is what you are about to commit. So proof must be tracked (staged or committed):
a file that is only on disk does not count. The *base* is a commit (the merge base with the
target branch), so the gate judges what this branch adds, not what the target gained since.

What is new. A shared scope's skill ``(scope, name)`` is new when its declaration is in the
current registry and was not in that scope's registry at the base (with the scope already
shared then), or when its ``SKILL.md`` was added and the skill was neither declared nor
present at the base. A rename inside the same registry keeps its standing: git's rename
detection pairs the old folder with the new one (a reworded ``SKILL.md`` still pairs through
its unchanged siblings) and the old name is gone. A move from another scope is new. External
declarations and overrides are exempt. Lifecycle changes of any declaration must follow
:class:`exobrain.model.Lifecycle`.

What runs on members' machines and is new or changed (:mod:`exobrain.gate.executables`:
executables of shared scopes, importable Python at the root, crons.json commands), and every
person the change makes a voter (:mod:`exobrain.gate.voters`), is listed for the reviewer: not
a finding, but "review needed", exit 3, so a CI gate cannot pass it silently.

Everything up to :func:`pick_base` is pure: two :class:`Snapshot` values plus git's renames
in, new skills and lifecycle problems out; ``pick_base`` and ``review`` ask git for the data.
What the gate will say of a skill just imported or moved, before it is committed, is
:mod:`exobrain.gate.preview`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.errors import UsageError
from exobrain.gate.crons import CRONS_FILE
from exobrain.gate.executables import ReadingList, reading_list
from exobrain.gate.proof import MAX_PROOF_BYTES, Verdict, judge, kind_of, looks_like_proof
from exobrain.gate.snapshot import Snapshot, skill_location, snapshot, wanted_blobs
from exobrain.model import GLOBAL, Identity, Lifecycle, transition_problem
from exobrain.registry.entries import REGISTRY_FILE
from exobrain.scopes import PERSONAL_TYPES
from exobrain.util.repository import INDEX, Rename, Repository

DEFAULT_BASES = ("origin/HEAD", "origin/main", "main", "master")
SKIP_VARIABLE = "EXOBRAIN_SKIP_AUTHORING_REVIEW"
#: The exit code of a review without findings that lists what a person must read.
REVIEW_NEEDED = 3
SKILL_PATHSPECS = (":(glob)skills/**", ":(glob)**/skills/**")


def skip_requested(environ: dict[str, str]) -> bool:
    return environ.get(SKIP_VARIABLE, "").strip().lower() in ("1", "true", "yes")


def skill_folder(scope: str, name: str) -> str:
    return f"skills/{name}" if scope == GLOBAL else f"{scope}/skills/{name}"


@dataclass(frozen=True)
class NewSkill:
    """A skill that is new in a shared scope, with the proof found for it (if any)."""

    scope: str
    name: str
    reason: str
    proof: tuple[str, ...]
    untracked: tuple[str, ...] = ()  # proof-like files on disk that git does not track
    rejected: tuple[str, ...] = ()  # tracked files that look like proof and why they are not

    @property
    def proven(self) -> bool:
        return bool(self.proof)

    def needs(self) -> str:
        """What would count as proof for this skill, in one line."""
        folder = skill_folder(self.scope, self.name)
        return (
            f"a test, eval or A/B result tracked under {folder}/ (adding one changes the "
            f"content: exobrain register {folder} --bump patch), or a crons.json job "
            f'with "skill": "{self.name}"'
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "reason": self.reason,
            "proven": self.proven,
            "proof": list(self.proof),
            "untracked_proof": list(self.untracked),
            "not_proof": list(self.rejected),
            "needs": None if self.proven else self.needs(),
        }


@dataclass(frozen=True)
class LifecycleChange:
    """A declaration whose lifecycle changed in a way the transition table forbids."""

    scope: str
    name: str
    old: str
    new: str
    problem: str

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "from": self.old,
            "to": self.new,
            "problem": self.problem,
        }


def renamed_from(
    renames: list[Rename], base: Snapshot, now: Snapshot
) -> dict[Identity, set[Identity]]:
    """New skill folder → the base skill folders git paired any of its files with."""
    pairs: dict[Identity, set[Identity]] = {}
    for rename in renames:
        old = skill_location(rename.old, base.scopes)
        new = skill_location(rename.new, now.scopes)
        if old and new and old[:2] != new[:2]:
            pairs.setdefault(Identity(*new[:2]), set()).add(Identity(*old[:2]))
    return pairs


def find_new(base: Snapshot, now: Snapshot, renames: list[Rename]) -> list[tuple[Identity, str]]:
    """Every new skill in a shared scope, with a reason, sorted by scope then name."""
    pairs = renamed_from(renames, base, now)
    declared_now = {k for k, raw in now.declarations.items() if "source" not in raw}
    declared_base = set(base.declarations)
    files_now, files_base = now.skill_files(), base.skill_files()

    def standing(key: Identity, known_base: set[Identity], known_now: set[Identity]) -> bool:
        if key in known_base and base.shared(key.home):
            return True
        return any(
            old.home == key.home
            and old in known_base
            and old not in known_now
            and base.shared(old.home)
            for old in pairs.get(key, ())
        )

    all_declared_now = set(now.declarations)
    found: list[tuple[Identity, str]] = []
    for key in sorted((declared_now | files_now), key=lambda k: (k.home != GLOBAL, k)):
        if not now.shared(key.home):
            continue
        declared_standing = standing(key, declared_base, all_declared_now)
        if key in declared_now and not declared_standing:
            found.append((key, _reason(key, base, pairs, declared=True)))
        elif (
            key in files_now and not declared_standing and not standing(key, files_base, files_now)
        ):
            found.append((key, _reason(key, base, pairs, declared=False)))
    return found


def _reason(
    key: Identity, base: Snapshot, pairs: dict[Identity, set[Identity]], *, declared: bool
) -> str:
    scope = key.home
    moved = sorted(old for old in pairs.get(key, ()) if old.home != scope)
    if moved:
        old_scope, old_name = moved[0].home, moved[0].name
        kind = base.scopes.get(old_scope, "unknown")
        why = "a widening of reach" if kind in PERSONAL_TYPES else "new in this registry"
        return f"moved from {skill_folder(old_scope, old_name)} ({kind} scope): {why}"
    if scope in base.scopes and not base.shared(scope):
        return f"{scope} was a {base.scopes[scope]} scope at the base and is shared now"
    if declared:
        registry = REGISTRY_FILE if scope == GLOBAL else f"{scope}/{REGISTRY_FILE}"
        return f"declared in {registry}, not at the base"
    return f"{skill_folder(scope, key.name)}/SKILL.md added since the base"


def proof_of(
    now: Snapshot, scope: str, name: str, contents: dict[str, bytes | None]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(proof, rejected) for a skill: its tracked files judged by :func:`judge` (``contents``
    maps a path inside the folder to its blob, None when too big to read), then the
    crons.json jobs naming it. Rejected entries say what was found and why it does not
    count."""
    folder = skill_folder(scope, name)
    verdicts: list[Verdict] = [judge(inside, contents.get(inside)) for inside in sorted(contents)]
    found = [f"{folder}/{v.path}" for v in verdicts if v.counts]
    found += [f"{CRONS_FILE} job {job.name!r}" for job in now.jobs if job.names_skill(name, scope)]
    rejected = [f"{folder}/{v.describe()}" for v in verdicts if not v.counts]
    return tuple(found), tuple(rejected)


def proof_blobs(
    git: Repository, now: Snapshot, files: dict[str, str], key: Identity
) -> dict[str, bytes | None]:
    """The tracked files of a skill folder worth judging (path inside → blob, None when over
    :data:`~exobrain.gate.proof.MAX_PROOF_BYTES`), read in one git call."""
    folder = skill_folder(key.home, key.name)
    wanted = {
        inside: files[f"{folder}/{inside}"]
        for inside in now.skills.get(key, ())
        if looks_like_proof(inside) and f"{folder}/{inside}" in files
    }
    sizes = git.sizes(sorted(set(wanted.values())))
    small = {i: oid for i, oid in wanted.items() if sizes.get(oid, 0) <= MAX_PROOF_BYTES}
    blobs = git.read(small)
    return {inside: blobs.get(inside) for inside in wanted}


def lifecycle_problems(
    base: Snapshot, now: Snapshot, renames: list[Rename]
) -> list[LifecycleChange]:
    """Declarations (any scope) whose lifecycle changed against the transition table."""
    pairs = renamed_from(renames, base, now)
    found: list[LifecycleChange] = []
    for key, raw in sorted(now.declarations.items()):
        sources = (
            [key]
            if key in base.declarations
            else sorted(
                old
                for old in pairs.get(key, ())
                if old in base.declarations and old not in now.declarations
            )
        )
        if not sources:
            continue
        old_state = base.declarations[sources[0]].get("lifecycle", Lifecycle.ACTIVE)
        new_state = raw.get("lifecycle", Lifecycle.ACTIVE)
        if not isinstance(old_state, str) or not isinstance(new_state, str):
            continue
        problem = transition_problem(old_state, new_state)
        if problem:
            found.append(LifecycleChange(key.home, key.name, old_state, new_state, problem))
    return found


@dataclass(frozen=True)
class Base:
    """The commit the current state is compared with, and how it was chosen."""

    ref: str
    commit: str  # the commit compared with (the merge base when there is one)
    merge_base: bool


@dataclass
class Review:
    """The gate's verdict: new shared skills (proven or not) and forbidden lifecycle changes."""

    base: Base
    new: list[NewSkill] = field(default_factory=list)
    lifecycle: list[LifecycleChange] = field(default_factory=list)
    reading: ReadingList = field(default_factory=lambda: ReadingList([], [], []))  # not failed
    warnings: list[str] = field(default_factory=list)

    @property
    def unproven(self) -> list[NewSkill]:
        return [skill for skill in self.new if not skill.proven]

    @property
    def exit_code(self) -> int:
        """1 on findings (an unproven skill, a lifecycle change not allowed), like every
        check; else 3 when there is something for a person to read; 2 stays for bad usage
        and broken input files."""
        if self.unproven or self.lifecycle:
            return 1
        return REVIEW_NEEDED if self.reading else 0

    def as_json(self) -> dict[str, Any]:
        base = {
            "ref": self.base.ref,
            "commit": self.base.commit,
            "merge_base": self.base.merge_base,
        }
        return {
            "skipped": False,
            "base": base,
            "compared": "index",
            "new_shared_skills": [s.as_json() for s in self.new],
            "lifecycle_problems": [c.as_json() for c in self.lifecycle],
            **self.reading.as_json(),
            "warnings": self.warnings,
            "exit_code": self.exit_code,
        }


def pick_base(git: Repository, ref: str | None) -> Base | None:
    """``ref`` (or the first of DEFAULT_BASES that exists), narrowed to its merge base with HEAD."""
    if ref is not None:
        commit = git.commit_of(ref)
        if commit is None:
            raise UsageError(
                f"--base {ref}: no such branch, tag or commit",
                hint="fetch it first (e.g. git fetch origin main) or name another",
            )
    else:
        ref, commit = next(((r, c) for r in DEFAULT_BASES if (c := git.commit_of(r))), (None, None))
        if ref is None or commit is None:
            return None
    head = git.commit_of("HEAD")
    merge = git.merge_base(head, commit) if head else None
    return Base(ref, merge or commit, merge is not None)


def review(git: Repository, base: Base, on_disk: Path | None = None) -> Review:
    """Compare the index with ``base``; ``on_disk`` (the root) lets the report point at proof
    files that exist but are not tracked."""
    base_tree, now_tree = git.tree(base.commit), git.tree(INDEX)
    base_files = {path: oid for path, (_mode, oid) in base_tree.items()}
    now_files = {path: oid for path, (_mode, oid) in now_tree.items()}
    base_snap = snapshot(list(base_files), git.read(wanted_blobs(base_files)), strict=False)
    now_snap = snapshot(list(now_files), git.read(wanted_blobs(now_files)), strict=True)
    renames = git.renames(base.commit, SKILL_PATHSPECS)
    result = Review(base, warnings=[*base_snap.warnings])
    for key, reason in find_new(base_snap, now_snap, renames):
        scope, name = key.home, key.name
        proof, rejected = proof_of(
            now_snap, scope, name, proof_blobs(git, now_snap, now_files, key)
        )
        untracked = (
            () if proof or on_disk is None else _untracked_proof(on_disk, now_snap, scope, name)
        )
        result.new.append(NewSkill(scope, name, reason, proof, untracked, rejected))
    result.lifecycle = lifecycle_problems(base_snap, now_snap, renames)
    jobs = (base_snap.jobs, now_snap.jobs)
    scopes = (base_snap.scopes, now_snap.scopes)
    result.reading = reading_list(base_tree, now_tree, scopes, jobs)
    return result


def _untracked_proof(root: Path, now: Snapshot, scope: str, name: str) -> tuple[str, ...]:
    folder = root / skill_folder(scope, name)
    if not folder.is_dir():
        return ()
    found: list[str] = []
    for path in sorted(folder.rglob("*")):
        inside = path.relative_to(folder).as_posix()
        rel = f"{skill_folder(scope, name)}/{inside}"
        if path.is_file() and rel not in now.files and kind_of(inside) is not None:
            found.append(rel)
            if len(found) == 5:
                break
    return tuple(found)
