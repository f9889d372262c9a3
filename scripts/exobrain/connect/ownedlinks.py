"""Which links in a skills folder are ours: the folder's ownership record, the links an
earlier version made before the record existed (adopted once), and the record written again
after a plan was applied.

The linker's plan (:func:`exobrain.connect.linker.plan_links`) is handed what this finds, so
the linker itself never reads or writes the record.
"""

from __future__ import annotations

import os
from pathlib import Path

from exobrain.connect.linker import CREATE, REPLACE, Action
from exobrain.model import GLOBAL, Identity
from exobrain.paths import owned_records
from exobrain.util import ownership


def skill_identity(path: str, root: str) -> Identity | None:
    """The in-tree skill whose folder is exactly ``path`` (``<root>[/<scope>]/skills/<name>``)."""
    if not path.startswith(root + os.sep):
        return None
    parts = path[len(root) + 1 :].split(os.sep)
    if len(parts) < 2 or parts[-2] != "skills" or any(p.startswith(".") for p in parts):
        return None
    return Identity("/".join(parts[:-2]) or GLOBAL, parts[-1])


def legacy_links(skills_dir: Path, root: Path) -> dict[str, str]:
    """``{name: link text}`` of the links an earlier version of connect-agent made here, before
    the ownership record existed: a link whose text points straight at an in-tree skill folder
    of this repository (no other link followed) and whose name is one the resolver gives that
    skill (``tidy``, or told apart ``tidy.groups__acme``). Adopted once, on the first run with a
    record; a user's ``my-alias`` or a link reaching the repository through another folder
    never is."""
    real_dir = os.path.realpath(skills_dir)
    adopted: dict[str, str] = {}
    try:
        with os.scandir(skills_dir) as entries:
            links = [e for e in entries if e.is_symlink()]
    except OSError:
        return adopted
    for entry in links:
        text = os.readlink(entry.path)
        identity = skill_identity(os.path.normpath(os.path.join(real_dir, text)), str(root))
        if identity is not None and entry.name in (identity.name, identity.told_apart):
            adopted[entry.name] = text
    return adopted


def claimed_links(skills_dir: Path, root: Path) -> dict[str, str]:
    """``{name: link text}`` of the links the exobrain at ``root`` made in ``skills_dir``: its
    ownership record, or (no record yet) the :func:`legacy_links` it adopts."""
    mine = ownership.load(owned_records(), skills_dir).mine(ownership.LINKS, root)
    return legacy_links(skills_dir, root) if mine is None else mine


def record_links(
    skills_dir: Path, root: Path, claimed: dict[str, str], actions: list[Action]
) -> None:
    """Write down which links are ours after ``actions`` (written only when that changed; the
    first run also records the links it adopted)."""
    now = owned_now(skills_dir, claimed, actions)
    ownership.record(owned_records(), skills_dir, ownership.LINKS, root, now)


def owned_now(skills_dir: Path, claimed: dict[str, str], actions: list[Action]) -> dict[str, str]:
    """The links of ours after ``actions`` were applied: what we owned or just made, as long
    as the disk still holds that exact link (a link the user removed or changed is no longer
    ours to track)."""
    made = {a.name: a.target for a in actions if a.kind == "link" and a.op in (CREATE, REPLACE)}
    owned = {}
    for name, text in {**claimed, **made}.items():
        try:
            if os.readlink(skills_dir / name) == text:
                owned[name] = text
        except OSError:
            continue
    return owned
