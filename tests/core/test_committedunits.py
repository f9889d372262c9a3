"""A committed repository's units and scopes, from what ``git ls-tree -r -z`` prints (pure:
the listing here is written by hand, in git's format)."""

from exobrain.scopes import ScopeConfig
from exobrain.sparse.units import LINK, registry_id, summarise, unit_files, unit_of
from exobrain.util.gitobjects import TreeEntry

BLOB, LINKED = "100644 blob", "120000 blob"
COLLECTIONS = {"groups", "people"}


def listing(*rows: tuple[str, str, str]) -> bytes:
    """``git ls-tree -r -z`` output for (mode and kind, blob id, path) rows."""
    return b"".join(f"{mode} {oid}\t{path}".encode() + b"\0" for mode, oid, path in rows)


def test_units_are_the_global_skills_seed_and_each_folder_of_a_collection():
    assert unit_of("skills/a/SKILL.md", COLLECTIONS) == "skills"
    assert unit_of("seed/skills.json", COLLECTIONS) == "seed"
    assert unit_of("people/ana/hosts/h1/skills.json", COLLECTIONS) == "people/ana"
    assert unit_of("people", COLLECTIONS) is None  # the collection itself is no unit
    assert unit_of("scripts/run", COLLECTIONS) is None and unit_of("README.md", COLLECTIONS) is None


def test_the_files_scopes_are_made_of_are_kept_by_unit_the_rest_left_out():
    out = listing(
        (BLOB, "a1", "people/ana/AGENTS.md"),
        (BLOB, "a2", "people/ana/skills.json"),
        (BLOB, "a3", "people/ana/skills/x/SKILL.md"),
        (BLOB, "a4", "people/ana/skills/x/scripts/run.py"),  # not what a scope is made of
        (LINKED, "a5", "people/ana/skills/y"),  # a link: kept, whatever its name
        (BLOB, "b1", "people/bo/skills.json"),  # a unit not asked for
        (BLOB, "c1", "README.md"),
    )
    assert unit_files(out, {"people/ana"}, COLLECTIONS) == {
        "people/ana": [
            ["100644", "a1", "people/ana/AGENTS.md"],
            ["100644", "a2", "people/ana/skills.json"],
            ["100644", "a3", "people/ana/skills/x/SKILL.md"],
            ["120000", "a5", "people/ana/skills/y"],
        ]
    }


def test_a_unit_summary_names_each_scope_its_registry_and_its_skills():
    out = listing(
        (BLOB, "f1", "people/ana/AGENTS.md"),
        (BLOB, "r1", "people/ana/skills.json"),
        (BLOB, "s1", "people/ana/skills/x/SKILL.md"),
        (LINKED, "l1", "people/ana/skills/y"),
        (LINKED, "l2", "people/ana/skills/z/SKILL.md"),
        (BLOB, "f2", "people/ana/hosts/h1/AGENTS.md"),
        (LINKED, "r2", "people/ana/hosts/h1/skills.json"),
        (BLOB, "s3", "people/ana/hosts/h1/skills/w/SKILL.md"),
        (BLOB, "s4", "people/ana/notes/skills/v/SKILL.md"),  # no scope there: not a skill
    )
    files = unit_files(out, {"people/ana"}, COLLECTIONS)["people/ana"]
    scopes = {s.path: s for s in summarise("people/ana", files, ScopeConfig())}
    assert set(scopes) == {"people/ana", "people/ana/hosts/h1"}
    ana, host = scopes["people/ana"], scopes["people/ana/hosts/h1"]
    assert (ana.type, ana.registry, ana.skills) == (
        "person",
        "r1",
        {"x": "s1", "y": LINK, "z": LINK},
    )
    assert (host.type, host.registry, host.skills) == ("host", LINK, {"w": "s3"})
    assert host.as_json() == ["people/ana/hosts/h1", "host", LINK, ["w"], ["s3"]]


def test_the_global_skills_unit_holds_the_global_scope():
    out = listing((BLOB, "g1", "skills/a/SKILL.md"), (BLOB, "g2", "skills/a/refs.md"))
    files = unit_files(out, {"skills"}, COLLECTIONS)["skills"]
    [scope] = summarise("skills", files, ScopeConfig())
    assert (scope.path, scope.registry, scope.skills) == ("global", None, {"a": "g1"})


def test_a_registry_entry_of_a_tree_is_the_id_of_its_blob_or_a_link():
    assert registry_id(TreeEntry("100644", "skills.json", "ab")) == "ab"
    assert registry_id(TreeEntry("120000", "skills.json", "ab")) == LINK
    assert registry_id(TreeEntry("40000", "skills.json", "ab")) is None  # a folder (raw mode)
    assert registry_id(None) is None
