"""An exobrain holding one skill of each kind the resolver treats apart, all about zebras, for
the tests that every surface shows what the resolver decided (tests/search/test_one_truth.py).

alice is connected to her own scope only (global, people/alice). Every global skill is forced,
so it would reach her but for what makes it special:

* ``always-zebra`` — always: the plain case;
* ``claude-zebra`` — ``agent: claude``; ``skipcodex-zebra`` — ``skipAgents: [codex]``;
* ``off-zebra`` — alice set it ``off`` with an override;
* ``unlisted-zebra`` — unlisted: invocable by name, on no auto-loaded surface;
* ``old-zebra`` — superseded by ``new-zebra`` (``links.supersedes`` in new-zebra's SKILL.md);
* ``draft-zebra`` — bob's draft;
* ``outside-zebra`` — declared in groups/other, a scope alice is not connected to.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.helpers import exobrain, skill_md

#: every kind, and the one skill that reaches everyone plainly
KINDS = ("agent", "skipAgents", "off", "unlisted", "superseded", "draft", "out-of-chain")
SKILL_OF = {
    "agent": "claude-zebra",
    "skipAgents": "skipcodex-zebra",
    "off": "off-zebra",
    "unlisted": "unlisted-zebra",
    "superseded": "old-zebra",
    "draft": "draft-zebra",
    "out-of-chain": "outside-zebra",
}


def _skill(name: str, **extra: str) -> str:
    return skill_md(
        name,
        f"Use {name} to groom a zebra herd.",
        body=f"# {name}\n\nZebra care.\n",
        tags="[stripes]",
        **extra,
    )


def build(root: Path) -> Path:
    def forced(name: str, tier: str = "optional", **more: object) -> dict[str, object]:
        return {"name": name, "owner": "ops", "tier": tier, "force": True, **more}

    registries = {
        "global": [
            forced("always-zebra", "always"),
            forced("claude-zebra", agent="claude"),
            forced("skipcodex-zebra", skipAgents=["codex"]),
            forced("off-zebra"),
            forced("unlisted-zebra", "unlisted"),
            forced("old-zebra"),
            forced("new-zebra"),
            {**forced("draft-zebra"), "owner": "bob", "lifecycle": "draft"},
        ],
        "groups/other": [forced("outside-zebra")],
        "people/alice": [{"name": "off-zebra", "from": "global", "tier": "off"}],
    }
    skills = {f"global/{e['name']}": _skill(str(e["name"])) for e in registries["global"]}
    skills["global/new-zebra"] = _skill(
        "new-zebra", links="\n  supersedes:\n    - skill:old-zebra@global"
    )
    skills["groups/other/outside-zebra"] = _skill("outside-zebra")
    return exobrain(
        root,
        registries,
        scopes=["groups/other", "people/alice"],
        skills=skills,
        connection={"connected_scopes": ["people/alice"], "person": "alice"},
    )
