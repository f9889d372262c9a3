"""Plan, then apply: the skills folder's links and the generated files an agent reads.

Planning reads the disk once and decides one :class:`Action` per path; applying is the only
code that writes. What the linker may touch (design, "What connect-agent owns"):

* a symlink the skills folder's ownership record says this repository created, with the
  text it was created with (:mod:`exobrain.util.ownership`) — replaced, removed; new links to
  in-tree skill folders are created and recorded. A link of the user's (``my-alias``, a link
  that only resolves into the repository through another folder) is never ours, whatever it
  points at. Links an earlier version made before the record existed are adopted once
  (:func:`exobrain.connect.ownedlinks.legacy_links`);
* a file whose first line is our generated mark — rewritten, removed;
* the marked block in a file of the user's — replaced, removed (the rest is kept);
* our entries in a list of an agent's JSON settings (:mod:`exobrain.connect.configs`).

Anything else in the way (a real folder, a foreign symlink, a user's file with the name of one
of ours, a folder installed by the fetcher) is reported as skipped and left as it is. Unchanged
things are "kept" and cost no write, so a run with nothing to do writes nothing. Every action
carries the root its path must stay inside (the repository for project-level folders, the
agent's own folder at user level), and applying goes through the file layer's checks.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from exobrain.connect.blocks import BlockError, splice_block, without_bash_imports
from exobrain.connect.indexes import is_bash_generated, is_generated
from exobrain.errors import InputFileError, OperationFailed
from exobrain.paths import shown
from exobrain.util.confine import UnsafePath, resolve_inside
from exobrain.util.dirhash import INSTALL_RECORD
from exobrain.util.fileio import atomic_write_text, make_folders, read_text

KEEP, CREATE, REPLACE, REMOVE, SKIP = "keep", "create", "replace", "remove", "skip"
TAKEN_OVER = "made by the bash implementation's connect-agent.sh; taken over"


@dataclass(frozen=True)
class Action:
    """One decision about one path. ``kind`` is link, file, block or hook; ``content`` is the
    whole new text of a file (None with REMOVE: delete it); ``target`` the text of a link;
    ``aside`` where a user's file is moved before ours takes its place; ``root`` the folder
    the path must stay inside when it is written."""

    kind: str
    op: str
    path: Path
    name: str = ""
    target: str = ""
    reason: str = ""
    content: str | None = None
    executable: bool = False
    aside: Path | None = None
    problem: bool = False  # a skip that means something is broken (not a user's file)
    root: Path = field(kw_only=True)

    @property
    def changes(self) -> bool:
        return self.op in (CREATE, REPLACE, REMOVE)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "op": self.op,
            "name": self.name or self.path.name,
            "path": str(self.path),
        }
        if self.target:
            data["target"] = self.target
        if self.reason:
            data["reason"] = self.reason
        if self.aside:
            data["aside"] = str(self.aside)
        if self.problem:
            data["problem"] = True
        return data


def check_skills_dir(path: Path) -> None:
    """A skills folder must be a folder (or not exist yet); a file or a dangling link is not."""
    if path.is_dir():
        return
    if path.is_symlink():
        what = "a file" if path.exists() else "nothing"
        raise InputFileError(
            f"{path}: the skills folder is a symlink to {what} ({os.readlink(path)})",
            hint="remove the link or point it at an existing folder, then rerun",
        )
    if path.exists():
        raise InputFileError(
            f"{path}: the skills folder is a file, not a folder",
            hint="move the file away, then rerun connect-agent",
        )


def plan_links(
    skills_dir: Path,
    wanted: dict[str, Path],
    root: Path,
    *,
    place: Path,
    owned: dict[str, str],
    keep_unwanted: bool = False,
) -> list[Action]:
    """Actions that make ``skills_dir`` hold exactly a link per ``wanted`` name (name → the
    skill folder, absolute) among the links we own (``owned``: name → the link text we made,
    from the ownership record). ``place`` is the root the folder must stay inside. ``wanted``
    holds every agent's links that go here (:mod:`exobrain.connect.placement`: a folder
    several agents read or share); ``keep_unwanted`` removes nothing (a registry is broken:
    what it would say is unknown). A wanted skill whose folder is missing is reported and not
    linked (an old link to it is removed)."""
    check_skills_dir(skills_dir)
    real_dir = os.path.realpath(skills_dir)
    relative = real_dir.startswith(str(root) + os.sep)
    actions: list[Action] = []
    present = {}
    if skills_dir.is_dir():
        try:
            with os.scandir(skills_dir) as entries:
                present = {e.name: e for e in entries}
        except OSError as exc:
            raise InputFileError(
                f"{skills_dir}: cannot read the skills folder ({exc.strerror or exc})",
                hint="check its permissions",
            ) from exc
    targets = {}
    for name, folder in wanted.items():
        if os.path.isdir(folder):
            targets[name] = str(folder)
        else:
            actions.append(
                Action(
                    "link",
                    SKIP,
                    skills_dir / name,
                    name,
                    problem=True,
                    reason=f"skill folder {shown(folder, root)} is missing",
                    root=place,
                )
            )
    for name, entry in present.items():
        path = skills_dir / name
        if not entry.is_symlink():
            if name in targets:
                reason = _real_reason(entry)
                actions.append(Action("link", SKIP, path, name, reason=reason, root=place))
            continue
        text = os.readlink(entry.path)
        ours = owned.get(name) == text
        if name in targets:
            want = targets[name]
            if os.path.normpath(os.path.join(real_dir, text)) == want:
                actions.append(Action("link", KEEP, path, name, target=text, root=place))
            elif ours:
                new = _link_text(want, real_dir, relative)
                actions.append(
                    Action(
                        "link", REPLACE, path, name, target=new, reason=f"was {text}", root=place
                    )
                )
            else:
                reason = f"foreign symlink exists (→ {text})"
                actions.append(Action("link", SKIP, path, name, reason=reason, root=place))
        elif ours and not keep_unwanted:
            actions.append(Action("link", REMOVE, path, name, target=text, root=place))
    for name, want in targets.items():
        if name not in present:
            new = _link_text(want, real_dir, relative)
            actions.append(Action("link", CREATE, skills_dir / name, name, target=new, root=place))
    return sorted(actions, key=lambda a: a.name)


def _real_reason(entry: os.DirEntry[str]) -> str:
    if entry.is_dir() and os.path.exists(os.path.join(entry.path, INSTALL_RECORD)):
        return "an external skill installed by the fetcher is in the way"
    return "real path exists"


def _link_text(target: str, real_dir: str, relative: bool) -> str:
    """Relative inside the repository (it survives moving the clone), absolute outside."""
    return os.path.relpath(target, real_dir) if relative else target


def read_existing(path: Path) -> str | None:
    """The current text of a file we may rewrite (None when absent); unreadable → InputFileError."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_symlink() or not path.is_file():
        raise InputFileError(f"{path}: expected a regular file")
    return read_text(path)


def plan_file(path: Path, content: str | None, *, root: Path) -> Action | None:
    """A generated file (inside ``root``): written when wanted and ours (or absent), removed
    when not wanted and ours; a file of the user's with that name is never touched. None:
    absent and not wanted."""
    try:
        current = read_existing(path)
    except InputFileError as exc:
        return Action("file", SKIP, path, reason=exc.message, root=root)
    if current is None:
        if content is None:
            return None
        return Action("file", CREATE, path, content=content, root=root)
    if not is_generated(current):
        reason = "not generated by connect-agent; kept as is"
        return Action("file", SKIP, path, reason=reason, root=root)
    bash = TAKEN_OVER if is_bash_generated(current) else ""
    if content is None:
        return Action("file", REMOVE, path, reason=bash or "nothing to list", root=root)
    if current == content:
        return Action("file", KEEP, path, root=root)
    return Action("file", REPLACE, path, content=content, reason=bash, root=root)


def plan_block(
    path: Path, body: str | None, *, root: Path, generated: tuple[str, ...] = ()
) -> Action | None:
    """Our marked block in a file we share with the user (CLAUDE.md, USER.md), inside
    ``root``; None when the block is neither there nor wanted. A file the bash implementation
    generated with only ``@`` imports loses its imports of our ``generated`` files (the block
    imports those now) and keeps the others."""
    try:
        current = read_existing(path)
        taken = without_bash_imports(current, list(generated))
        new = splice_block(taken, body)
    except InputFileError as exc:
        return Action("block", SKIP, path, reason=exc.message, root=root)
    except BlockError as exc:
        return Action("block", SKIP, path, reason=f"{exc}; fix the markers by hand", root=root)
    if new == current:
        return Action("block", KEEP, path, root=root) if body is not None else None
    bash = TAKEN_OVER if taken != current else ""
    if new is None:
        return Action("block", REMOVE, path, reason=bash or "nothing to list", root=root)
    op = CREATE if current is None else REPLACE
    return Action("block", op, path, content=new, reason=bash, root=root)


def writable_problems(actions: list[Action]) -> list[str]:
    """Folders that changes would write into but cannot be written (checked before any write,
    so a connect that cannot finish does not start)."""
    problems: list[str] = []
    seen: set[Path] = set()
    for action in actions:
        if not action.changes:
            continue
        folder = action.path.parent
        if folder in seen:
            continue
        seen.add(folder)
        probe = folder
        while not probe.exists() and not probe.is_symlink():
            probe = probe.parent
        if not probe.is_dir():
            problems.append(f"{folder}: cannot create it, {probe} is not a folder")
        elif not os.access(probe, os.W_OK | os.X_OK):
            problems.append(f"{probe}: not writable (needed for {action.path.name})")
    return problems


def check_confined(actions: list[Action]) -> None:
    """Refuse the whole plan (UnsafePath, exit 2) when any change would go through a link
    leading outside its root: a committed ``.exobrain.json`` or generated file that is such a
    link is named before anything is written. A file is checked itself (a link staying inside
    is written through); a link, a hook or a removal only through its folder."""
    problems = []
    for action in actions:
        if not action.changes:
            continue
        whole = action.kind in ("file", "block", "entry", "connection") and action.op != REMOVE
        try:
            resolve_inside(action.root, action.path if whole else action.path.parent)
        except UnsafePath as exc:
            problems.append(exc.message)
    if problems:
        raise UnsafePath(
            "\n  ".join(dict.fromkeys(problems)),
            hint="remove the links named above (or make them point inside), then rerun; "
            "nothing was changed",
        )


def apply(actions: list[Action]) -> int:
    """Carry out the changes; returns how many were made. Each step is atomic (links and files
    are swapped in by rename); the confinement and writable checks run first."""
    check_confined(actions)
    problems = writable_problems(actions)
    if problems:
        raise OperationFailed(
            "cannot write:\n  " + "\n  ".join(problems),
            hint="fix the permissions or the path, then rerun; nothing was changed",
        )
    done = 0
    for action in actions:
        if not action.changes:
            continue
        try:
            _apply_one(action)
        except OSError as exc:
            raise OperationFailed(
                f"{action.path}: {exc.strerror or exc} (after {done} change(s) of this run)",
                hint="fix the cause and rerun; finished changes stay valid",
            ) from exc
        done += 1
    return done


def _apply_one(action: Action) -> None:
    path = make_folders(action.root, action.path.parent) / action.path.name
    if action.op == REMOVE:
        path.unlink()
        return
    if action.kind == "link" and action.op == CREATE:
        os.symlink(action.target, path)  # fails rather than clobber something that appeared
        return
    if action.kind == "link":
        temp = path.with_name(f".{path.name}.exobrain-tmp")
        if temp.is_symlink():
            temp.unlink()
        os.symlink(action.target, temp)
        os.replace(temp, path)
        return
    if action.aside is not None:
        os.rename(path, action.aside)
    # generated files and hooks are rebuilt by every run; a file the user shares with us
    # (a marked block, our entries in a settings file) and the connection file are written
    # durably
    durable = action.kind in ("block", "entry", "connection")
    atomic_write_text(path, action.content or "", root=action.root, durable=durable)
    if action.executable:
        os.chmod(path, 0o755)
