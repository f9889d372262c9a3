"""A repository with scopes alice can and cannot see, for visibility tests."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.helpers import build_tree, exobrain, git, skill_md


def zebra(name: str) -> str:
    return skill_md(name, f"Use {name} to groom a zebra herd.", body=f"# {name}\n\nZebra care.\n")


def knowledge(title: str) -> str:
    return f"---\ntitle: {title}\ntags: [zebra]\n---\n# {title}\n\nNotes about zebra herds.\n"


def build(root: Path) -> Path:
    """alice is connected to groups/acme and people/alice; groups/other and people/bob are
    outside her chain; bob keeps private things under people/bob/local/."""
    scopes = ["groups/acme", "groups/other", "people/alice", "people/bob"]
    registries = {
        "global": [{"name": "shared-tidy", "owner": "ops", "tier": "always", "force": True}],
        "groups/acme": [
            {"name": "acme-deploy", "owner": "ops", "tier": "optional", "force": True},
            {"name": "acme-notes", "owner": "bob", "tier": "optional"},
            {"name": "bob-secret", "from": "people/bob", "tier": "off"},
        ],
        "groups/other": [
            {"name": "other-deploy", "owner": "ops", "tier": "optional", "force": True}
        ],
        "people/alice": [
            {"name": "alice-notes", "owner": "alice", "tier": "always"},
            {"name": "bob-shared", "from": "people/bob", "tier": "optional"},
        ],
        "people/bob": [
            {"name": "bob-secret", "owner": "bob", "tier": "always"},
            {"name": "bob-shared", "owner": "bob", "tier": "always"},
        ],
    }
    skills = {
        f"{home}/{name}": zebra(name)
        for home, names in (
            ("global", ["shared-tidy"]),
            ("groups/acme", ["acme-deploy", "acme-notes"]),
            ("groups/other", ["other-deploy"]),
            ("people/alice", ["alice-notes"]),
            ("people/bob", ["bob-secret", "bob-shared"]),
        )
        for name in names
    }
    exobrain(
        root,
        registries,
        scopes=scopes,
        skills=skills,
        connection={"connected_scopes": ["groups/acme", "people/alice"], "person": "alice"},
        commit=False,
    )
    build_tree(
        root,
        {
            "knowledge/guide.md": knowledge("Zebra guide"),
            "groups/other/knowledge/other-plan.md": knowledge("Other zebra plan"),
            "people/alice/knowledge/local/alice-private.md": knowledge("Alice zebra diary"),
            "people/bob/knowledge/bob-plan.md": knowledge("Bob zebra plan"),
            "people/bob/local/knowledge/bob-diary.md": knowledge("Bob zebra diary"),
            "people/bob/local/skills/bob-private/SKILL.md": zebra("bob-private"),
            "people/bob/local/skills.json": {
                "skills": [{"name": "bob-private", "owner": "bob", "tier": "always"}]
            },
        },
    )
    os.symlink("../people/bob/local", root / "knowledge" / "leak")
    os.symlink("../people/bob/knowledge/bob-plan.md", root / "knowledge" / "leak-plan.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "scopes")
    return root


#: What alice does not see through her chain (bob-shared is bob's too, but she opted into it).
PRIVATE_MARKERS = ("bob-secret", "bob-private", "bob-plan", "bob-diary", "bob-new")
#: What nobody but bob ever sees, --all-scopes included: his local/ folder.
LOCAL_MARKERS = ("bob-private", "bob-diary")
