"""What the authoring gate will say before the commit: the skills an import or a move just
brought into a shared scope, judged on the disk as the next commit would carry them.

``exobrain import`` and ``exobrain move`` print these lines right away, so the proof the review
(:mod:`exobrain.gate.review`) will ask for is named while it can still be added, or the path
around the gate (import into your own scope first) is shown. They read the skill's folder and
``crons.json`` on disk, where the review reads the git index; what counts as proof is
:mod:`exobrain.gate.proof`'s, the same judge the review uses.
"""

from __future__ import annotations

from pathlib import Path

from exobrain.errors import InputFileError
from exobrain.gate.crons import CRONS_FILE, load_crons
from exobrain.gate.proof import MAX_PROOF_BYTES, Verdict, judge, looks_like_proof
from exobrain.gate.review import skill_folder
from exobrain.scopes import PERSONAL_TYPES
from exobrain.util.fileio import read_bytes


def _proof_on_disk(root: Path, scope: str, name: str) -> tuple[list[str], list[Verdict]]:
    """The proof a skill of ``scope`` carries on disk (what a commit of it would hold), and the
    verdicts on every file that looks like proof."""
    folder = root / skill_folder(scope, name)
    contents: dict[str, bytes | None] = {}
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        inside = path.relative_to(folder).as_posix()
        if path.is_file() and not path.is_symlink() and looks_like_proof(inside):
            try:
                contents[inside] = read_bytes(path, limit=MAX_PROOF_BYTES)
            except InputFileError:
                contents[inside] = None
    verdicts = [judge(inside, content) for inside, content in contents.items()]
    found = [f"{v.path} ({v.kind})" for v in verdicts if v.counts]
    crons = load_crons(root)
    found += [
        f"{CRONS_FILE} job {job.name!r}"
        for job in (crons.jobs if crons else [])
        if job.names_skill(name, scope)
    ]
    return found, verdicts


def after_import(root: Path, scope: str, kind: str, names: list[str], person: str) -> list[str]:
    """What the gate will say of skills just imported into ``scope`` (of type ``kind``), and,
    for those without proof, the path a team can follow without bypassing it."""
    if kind in PERSONAL_TYPES or not names:
        return []
    proven = {n: found for n in names if (found := _proof_on_disk(root, scope, n)[0])}
    lines = [
        f"authoring-review: {len(names)} skill(s) new in the shared scope {scope} must carry "
        f"committed proof; {len(proven)} already do (the upstream ships it)"
    ]
    lines += [f"  proof found: {name}: {', '.join(found)}" for name, found in proven.items()]
    missing = [n for n in names if n not in proven]
    if missing:
        home = f"people/{person}" if person else "people/<you>"
        lines += [
            f"  no proof yet: {', '.join(missing)}",
            f"  the path without the gate in the way: import them into {home} instead, try "
            f"them, then for each one that earns its place: exobrain move skill:NAME@{home} "
            f"--to {scope}, with a test, an eval or an A/B result added to its folder and "
            f"exobrain register {skill_folder(scope, 'NAME')} --bump patch",
        ]
    return lines


def after_move(root: Path, moved: tuple[str, str], to: tuple[str, str], name: str) -> list[str]:
    """What the gate will say about a skill just moved from ``moved`` to ``to`` (each a
    (scope, type) pair), judged on the files on disk as the next commit would carry them."""
    (old_scope, old_type), (scope, kind) = moved, to
    if kind in PERSONAL_TYPES:
        return [f"authoring-review: {scope} is a {kind} scope: no proof is asked for there"]
    why = "a widening of reach" if old_type in PERSONAL_TYPES else "new in this registry"
    head = (
        f"authoring-review: skill:{name}@{scope} counts as new (moved from a {old_type} "
        f"scope: {why})"
    )
    found, verdicts = _proof_on_disk(root, scope, name)
    if found:
        lines = [f"{head}; proof found: {', '.join(found)} — commit it with the move"]
    else:
        lines = [
            f"{head} and has no proof yet: add a test, an eval or an A/B result in "
            f"{skill_folder(scope, name)}/, then exobrain register {skill_folder(scope, name)} "
            f"--bump patch (the content changed), and commit them with the move (or add a "
            f"crons.json job instead, or keep it in {old_scope})"
        ]
    return lines + [f"  not proof: {v.describe()}" for v in verdicts if not v.counts]
