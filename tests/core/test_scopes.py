import json
import os
from pathlib import Path

import pytest

from exobrain.errors import InputFileError, UsageError
from exobrain.scan import scan_scopes
from exobrain.scopes import (
    Connection,
    ScopeConfig,
    build_chain,
    check_scope_path,
    load_scope_config,
    read_connection,
    self_ids,
    today_form,
    write_connection,
)
from tests.support.helpers import build_tree, exobrain


def flag(root: Path, *scopes: str) -> None:
    for scope in scopes:
        build_tree(root, {f"{scope}/AGENTS.md": "x"})


def test_chain_order_ancestors_first_then_type_depth_path(tmp_path):
    flag(
        tmp_path,
        "seed",
        "groups/acme",
        "groups/zeta",
        "people/alice",
        "people/alice/hosts/laptop",
        "teams/red",
    )
    chain = build_chain(
        tmp_path,
        ["people/alice/hosts/laptop", "groups/zeta", "teams/red", "groups/acme"],
        ScopeConfig(),
    )
    assert chain.paths == [
        "global",
        "seed",
        "groups/acme",
        "groups/zeta",
        "teams/red",
        "people/alice",
        "people/alice/hosts/laptop",
    ]


def test_ancestor_is_pulled_before_a_descendant_of_lower_rank(tmp_path):
    # a group nested under a person: the person (its ancestor) must come first
    flag(tmp_path, "people/alice", "people/alice/groups/club", "groups/acme")
    chain = build_chain(tmp_path, ["people/alice/groups/club", "groups/acme"], ScopeConfig())
    assert chain.paths == ["global", "groups/acme", "people/alice", "people/alice/groups/club"]


def test_missing_connected_scope_is_warned_and_skipped(tmp_path):
    flag(tmp_path, "people/alice")
    chain = build_chain(tmp_path, ["people/alice", "people/ghost"], ScopeConfig())
    assert chain.paths == ["global", "people/alice"]
    assert any("people/ghost" in w for w in chain.warnings)


def test_a_removed_host_drops_only_itself(tmp_path):
    """Issue 17: the host folder is gone; the person scope above it stays connected."""
    flag(tmp_path, "groups/acme", "people/alice")
    chain = build_chain(tmp_path, ["groups/acme", "people/alice/hosts/laptop"], ScopeConfig())
    assert chain.paths == ["global", "groups/acme", "people/alice"]
    assert chain.warnings == [
        ".exobrain.json: connected scope 'people/alice/hosts/laptop' does not exist (no "
        "people/alice/hosts/laptop/AGENTS.md); skipped; still connected: people/alice"
    ]


def test_no_seed_without_agents_md(tmp_path):
    (tmp_path / "seed").mkdir()
    assert build_chain(tmp_path, [], ScopeConfig()).paths == ["global"]


def test_discovery_finds_nested_scopes_and_ignores_unflagged(tmp_path):
    flag(tmp_path, "people/bob", "people/bob/hosts/h1", "groups/acme")
    (tmp_path / "people/carol").mkdir()  # no AGENTS.md: not a scope
    found = [s.path for s in scan_scopes(tmp_path, ScopeConfig()).scopes]
    assert found == ["global", "groups/acme", "people/bob", "people/bob/hosts/h1"]


def test_scopes_json_changes_collections_and_missing_file_means_defaults(tmp_path):
    assert load_scope_config(tmp_path) == ScopeConfig()
    build_tree(
        tmp_path,
        {
            "scopes.json": {
                "collections": [
                    {"folder": "labs", "type": "group"},
                    {"folder": "people", "type": "person"},
                ]
            }
        },
    )
    flag(tmp_path, "labs/x", "groups/acme")
    config = load_scope_config(tmp_path)
    assert [s.path for s in scan_scopes(tmp_path, config).scopes] == ["global", "labs/x"]


def test_broken_scopes_json_names_the_entry(tmp_path):
    build_tree(tmp_path, {"scopes.json": {"collections": [{"folder": "a/b", "type": "group"}]}})
    with pytest.raises(InputFileError, match=r"collections\[0\]"):
        load_scope_config(tmp_path)


def test_connection_round_trip_keeps_unknown_keys(tmp_path):
    build_tree(
        tmp_path,
        {
            ".exobrain.json": {
                "zz": 1,
                "connected_scopes": ["people/a"],
                "agents": ["claude"],
                "instances": ["../x"],
            }
        },
    )
    conn = read_connection(tmp_path)
    conn.agents.append("codex")
    write_connection(tmp_path, conn)
    text = (tmp_path / ".exobrain.json").read_text()
    assert list(json.loads(text)) == ["zz", "connected_scopes", "agents", "instances"]
    assert read_connection(tmp_path).agents == ["claude", "codex"]


def test_no_connection_file_is_guest(tmp_path):
    assert read_connection(tmp_path).is_guest


def test_self_ids_person_wins_over_folder_names(tmp_path):
    flag(tmp_path, "people/alice", "people/alice/hosts/h")
    chain = build_chain(tmp_path, ["people/alice/hosts/h"], ScopeConfig())
    assert self_ids(Connection(["people/alice/hosts/h"]), chain) == {"alice"}
    assert self_ids(Connection(["people/alice/hosts/h"], person="al"), chain) == {"al"}


@pytest.mark.parametrize("bad", ["../x", "people/../x", "people/a__b", "-x", "a/./b"])
def test_scope_paths_that_could_escape_are_refused(bad):
    with pytest.raises(UsageError):
        check_scope_path(bad)


def test_the_bash_scopes_json_form_means_the_same_as_today(tmp_path):
    """{"scopes": [{"type", "collection"}]}: listed collections first, the defaults it leaves
    out keep their types (the bash fallbacks)."""
    today = load_scope_config(tmp_path)
    build_tree(
        tmp_path,
        {
            "scopes.json": {
                "scopes": [
                    {"type": "group", "collection": "groups"},
                    {"type": "team", "collection": "teams"},
                    {"type": "person", "collection": "people"},
                    {"type": "host", "collection": "hosts"},
                ]
            }
        },
    )
    bash = load_scope_config(tmp_path)
    assert bash.collections == today.collections and bash.bash_era
    assert today_form(bash) == {
        "collections": [
            {"folder": "groups", "type": "group"},
            {"folder": "teams", "type": "team"},
            {"folder": "people", "type": "person"},
            {"folder": "hosts", "type": "host"},
        ]
    }
    build_tree(tmp_path, {"scopes.json": {"scopes": [{"type": "lab", "collection": "labs"}]}})
    assert load_scope_config(tmp_path).collections == (("labs", "lab"), *today.collections)
    build_tree(tmp_path, {"scopes.json": {"scopes": [{"type": "lab"}]}})
    with pytest.raises(InputFileError, match=r'scopes\[0\]: needs a plain "collection"'):
        load_scope_config(tmp_path)


def test_local_is_the_bash_private_scope_read_as_a_host_scope(tmp_path):
    flag(tmp_path, "local", "people/alex")
    config = ScopeConfig()
    assert [(s.path, s.type) for s in scan_scopes(tmp_path, config).scopes] == [
        ("global", "global"),
        ("people/alex", "person"),
        ("local", "host"),
    ]
    chain = build_chain(tmp_path, ["local", "people/alex"], config)
    assert chain.paths == ["global", "people/alex", "local"] and not chain.warnings


def test_bash_connection_forms_are_read_and_kept_on_rewrite(tmp_path):
    build_tree(
        tmp_path,
        {".exobrain.json": {"connected": ["people/a"], "person": ["a", "a-work"], "agents": []}},
    )
    conn = read_connection(tmp_path)
    assert (conn.connected_scopes, conn.person, conn.people) == (["people/a"], "a", ("a", "a-work"))
    assert self_ids(conn, build_chain(tmp_path, [], ScopeConfig())) == {"a", "a-work"}
    conn.agents.append("claude")
    write_connection(tmp_path, conn)
    assert json.loads((tmp_path / ".exobrain.json").read_text()) == {
        "connected": ["people/a"],
        "person": ["a", "a-work"],
        "agents": ["claude"],
    }
    build_tree(tmp_path, {".exobrain.json": {"person": ["a", 3]}})
    with pytest.raises(InputFileError, match="person must be an id or a list of ids"):
        read_connection(tmp_path)


def _aged(root, seconds: int = 10) -> None:
    past = os.stat(root).st_mtime_ns - seconds * 1_000_000_000
    for folder, _, _ in os.walk(root):
        os.utime(folder, ns=(past, past))


def test_a_watched_scan_knows_when_walking_again_would_differ(tmp_path):
    root = exobrain(tmp_path / "x", scopes=["groups/acme", "people/ann"])
    config = load_scope_config(root)
    assert not scan_scopes(root, config).still_valid()  # nothing watched: cannot tell
    assert not scan_scopes(root, config, watch=True).still_valid()  # just written: racy
    _aged(root)
    scan = scan_scopes(root, config, watch=True)
    assert scan.still_valid()
    (root / "people/bob").mkdir()  # a folder without AGENTS.md: people/ moved all the same
    assert not scan.still_valid()
    _aged(root)
    scan = scan_scopes(root, config, watch=True)
    (root / "people/ann/AGENTS.md").unlink()
    assert not scan.still_valid()
    _aged(root)
    scan = scan_scopes(root, config, watch=True)
    (root / "groups/acme/hosts").mkdir()  # a collection appearing inside a scope
    assert not scan.still_valid()
