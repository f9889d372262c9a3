"""What search and the substrate verbs show: the chain by default, with --all-scopes every
declaration the catalog (skills-status --all) lists, never a private local/ folder of someone
else (tested by trying)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from tests.support.helpers import build_tree, git
from tests.support.visibility_repo import LOCAL_MARKERS, PRIVATE_MARKERS, build, zebra


@pytest.fixture
def root(tmp_path):
    return build(tmp_path / "repo")


def run(root, *args):
    result = CliRunner().invoke(main, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


def search_refs(root, *args):
    code, out = run(root, "search", "zebra", "--json", "--lexical", "-k", "50", *args)
    assert code == 0, out
    return {h["ref"] for h in json.loads(out)["hits"]}


def test_default_search_sees_the_chain_only(root):
    assert search_refs(root) == {
        "skill:shared-tidy@global",
        "skill:acme-deploy@groups/acme",
        "skill:acme-notes@groups/acme",
        "skill:alice-notes@people/alice",
        "skill:bob-shared@people/bob",
    }  # opted in by alice


def test_all_scopes_sees_what_the_catalog_sees_but_never_a_local_folder(root):
    from exobrain.cli.status import main as status

    refs = search_refs(root, "--all-scopes")
    catalog = CliRunner().invoke(status, ["--all", "--json", "--repo", str(root)]).stdout
    declared = {f"skill:{row['name']}@{row['scope']}" for row in json.loads(catalog)["skills"]}
    assert refs == declared  # the repository is readable by its members: the same skills
    assert {"skill:other-deploy@groups/other", "skill:bob-secret@people/bob"} <= refs
    knowledge = search_refs(root, "--all-scopes", "--types", "skill,knowledge")
    assert "knowledge:other-plan@groups/other" in knowledge
    assert "knowledge:guide@global" in knowledge
    assert "knowledge:bob-plan@people/bob" in knowledge
    assert "knowledge:local/alice-private@people/alice" in knowledge  # her own local/
    assert not any(m in ref for ref in knowledge for m in LOCAL_MARKERS)


def test_quality_follows_the_visibility_of_search(root):
    def listed(*args):
        code, out = run(root, "quality", "--json", *args)
        assert code == 0, out
        return {row["skill"] for row in json.loads(out)["skills"]}

    assert listed() == search_refs(root)
    assert listed("--all-scopes") == search_refs(root, "--all-scopes")
    code, out = run(root, "quality", "skill:other-deploy@groups/other")
    assert code == 2 and "--all-scopes" in out
    assert run(root, "quality", "skill:other-deploy@groups/other", "--all-scopes")[0] == 0


def test_search_hits_say_how_to_opt_in(root):
    _, out = run(root, "search", "zebra", "--json", "--lexical", "-k", "50", "--all-scopes")
    hits = {h["name"]: h for h in json.loads(out)["hits"]}
    assert hits["acme-notes"]["tier"] == "off"
    assert hits["acme-notes"]["opt_in"] == (
        "skills-promote acme-notes --from groups/acme --to optional"
    )
    assert hits["other-deploy"]["opt_in"].startswith("skills-promote other-deploy")
    assert "opt_in" not in hits["shared-tidy"] and hits["shared-tidy"]["tier"] == "always"
    _code, text = run(root, "search", "zebra", "--lexical", "-k", "50")
    assert "opt in: skills-promote acme-notes --from groups/acme --to optional" in text


@pytest.mark.parametrize(
    "args",
    [
        ["get", "skill:bob-private"],
        ["get", "knowledge:local/knowledge/bob-diary@people/bob"],
        ["get", "knowledge:leak/knowledge/bob-diary"],
        ["get", "knowledge:leak-plan"],
        ["get", "knowledge:../people/bob/knowledge/bob-plan"],
        ["get", "knowledge:../../people/bob/local/knowledge/bob-diary@global"],
    ],
)
def test_substrate_verbs_refuse_what_is_private(root, args):
    code, out = run(root, *args)
    assert code == 2, out
    assert "Zebra care" not in out and "Notes about zebra" not in out


@pytest.mark.parametrize(
    "args",
    [
        ["get", "skill:bob-secret@people/bob"],
        ["get", "skill:bob-secret"],
        ["get", "knowledge:bob-plan@people/bob"],
        ["get", "knowledge:bob-plan"],
        ["get", "skill:other-deploy@groups/other"],
        ["links", "skill:bob-secret@people/bob"],
        ["links", "knowledge:bob-plan@people/bob"],
    ],
)
def test_substrate_verbs_read_what_lies_outside_the_chain(root, args):
    """Every member can read every scope (only local/ folders are private): what search
    --all-scopes lists, get and links read."""
    code, out = run(root, *args)
    assert code == 0, out


def test_list_and_discover_never_show_private_artifacts(root):
    code, out = run(root, "list", "--json")
    assert code == 0, out
    refs = {row["ref"] for row in json.loads(out)}
    assert "knowledge:guide@global" in refs and "skill:acme-deploy@groups/acme" in refs
    assert not any(m in ref for ref in refs for m in PRIVATE_MARKERS)
    assert "skill:other-deploy@groups/other" not in refs
    assert "knowledge:leak-plan@global" not in refs  # symlinks are not followed
    code, out = run(root, "list", "--json", "--filter", '{"in": ["bob", {"var": "ref"}]}')
    assert [row["ref"] for row in json.loads(out)] == ["skill:bob-shared@people/bob"]
    code, out = run(
        root,
        "discover",
        "--task",
        "groom the zebra herd",
        "--format",
        "json",
        "-k",
        "20",
        "--lexical",
    )
    assert code == 0, out
    assert not any(m in out for m in PRIVATE_MARKERS)


def test_events_never_report_private_changes(root):
    base = git(root, "rev-parse", "HEAD").strip()
    build_tree(
        root,
        {
            "people/bob/skills/bob-new/SKILL.md": zebra("bob-new"),
            "people/bob/skills.json": {
                "skills": [
                    {
                        "name": "bob-secret",
                        "owner": "bob",
                        "tier": "always",
                        "lifecycle": "deprecated",
                    },
                    {"name": "bob-new", "owner": "bob", "tier": "always"},
                ]
            },
            "people/bob/knowledge/bob-plan.md": "changed\n",
            "people/bob/local/knowledge/bob-diary.md": "changed\n",
            "groups/other/knowledge/other-plan.md": "changed\n",
            "knowledge/guide.md": "changed\n",
            "signals/bob/laptop.jsonl": "\n".join(
                json.dumps(
                    {
                        "ts": "2026-01-02T00:00:00.000Z",
                        "skill": ref,
                        "kind": "vote",
                        "value": 1,
                        "by": "bob",
                    }
                )
                for ref in ("skill:bob-secret@people/bob", "skill:shared-tidy@global")
            )
            + "\n",
        },
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "private and public changes")
    code, out = run(root, "events", "--since", base, "--json")
    assert code == 0, out
    events = json.loads(out)["events"]
    assert [(e["type"], e["ref"]) for e in events] == [
        ("knowledge.updated", "knowledge:guide@global"),
        ("signal", "skill:shared-tidy@global"),
    ]
