from exobrain.model import Identity, link_names
from exobrain.registry.entries import make_entry
from exobrain.resolve import resolve


def entries(scope, *raws):
    return [make_entry(raw, scope, i) for i, raw in enumerate(raws)]


def tiers(rows):
    return {r.identity: r.tier for r in rows}


ME = frozenset({"alice"})


def test_declaration_contributes_only_when_forced_or_owned():
    rows = resolve(
        entries(
            "global",
            {"name": "a", "owner": "bob", "tier": "always"},
            {"name": "b", "owner": "bob", "tier": "optional", "force": True},
            {"name": "c", "owner": "alice", "tier": "unlisted"},
        ),
        ME,
    )
    assert tiers(rows) == {
        Identity("global", "a"): "off",
        Identity("global", "b"): "optional",
        Identity("global", "c"): "unlisted",
    }


def test_deepest_wins_and_override_off_shadows_forced():
    chain = entries(
        "global", {"name": "a", "owner": "bob", "tier": "always", "force": True}
    ) + entries("people/alice", {"name": "a", "from": "global", "tier": "off"})
    assert tiers(resolve(chain, ME)) == {Identity("global", "a"): "off"}


def test_later_entry_wins_within_one_file():
    chain = entries(
        "people/alice",
        {"name": "a", "from": "global", "tier": "always"},
        {"name": "a", "from": "global", "tier": "unlisted"},
    )
    assert tiers(resolve(chain, ME)) == {Identity("global", "a"): "unlisted"}


def test_group_always_person_unlisted():
    chain = entries(
        "groups/g", {"name": "t", "owner": "g", "tier": "always", "force": True}
    ) + entries("people/alice", {"name": "t", "from": "groups/g", "tier": "unlisted"})
    assert tiers(resolve(chain, ME)) == {Identity("groups/g", "t"): "unlisted"}


def test_agent_filtering_happens_before_contributions():
    chain = entries(
        "global",
        {"name": "a", "owner": "x", "tier": "always", "force": True, "agent": "claude"},
        {"name": "b", "owner": "x", "tier": "always", "force": True, "skipAgents": ["codex"]},
    ) + entries("people/alice", {"name": "a", "from": "global", "tier": "always"})
    assert tiers(resolve(chain, ME, "codex")) == {
        Identity("global", "a"): "off",
        Identity("global", "b"): "off",
    }
    assert tiers(resolve(chain, ME, "claude")) == {
        Identity("global", "a"): "always",
        Identity("global", "b"): "always",
    }


def test_filtered_override_contributes_nothing():
    chain = entries(
        "global", {"name": "a", "owner": "x", "tier": "optional", "force": True}
    ) + entries("people/alice", {"name": "a", "from": "global", "tier": "off", "agent": "codex"})
    assert tiers(resolve(chain, ME, "claude")) == {Identity("global", "a"): "optional"}
    assert tiers(resolve(chain, ME, "codex")) == {Identity("global", "a"): "off"}


def test_same_name_two_homes_are_two_skills_and_external_identity_has_owner():
    chain = entries(
        "global",
        {"name": "a", "owner": "alice", "tier": "always"},
        {
            "name": "a",
            "owner": "anthropic",
            "tier": "optional",
            "force": True,
            "source": {"repo": "https://x/y", "path": "a", "ref": "main"},
        },
    ) + entries("groups/g", {"name": "a", "owner": "alice", "tier": "always"})
    rows = resolve(chain, ME)
    assert tiers(rows) == {
        Identity("global", "a"): "always",
        Identity("groups/g", "a"): "always",
        Identity("external", "a", "anthropic"): "optional",
    }
    # one name from three homes: each folder is told apart by its home; a unique one is plain
    assert link_names(r.identity for r in rows) == {
        Identity("global", "a"): "a.global",
        Identity("groups/g", "a"): "a.groups__g",
        Identity("external", "a", "anthropic"): "a.anthropic",
    }
    assert link_names([Identity("groups/g", "b")]) == {Identity("groups/g", "b"): "b"}


def test_override_of_declaration_outside_chain_resolves_with_its_home():
    outside = {
        Identity("groups/other", "t"): make_entry(
            {"name": "t", "owner": "zed", "tier": "optional"}, "groups/other", 0
        )
    }
    rows = resolve(
        entries("people/alice", {"name": "t", "from": "groups/other", "tier": "always"}),
        ME,
        None,
        outside,
    )
    assert [(r.home, r.tier, r.owner) for r in rows] == [("groups/other", "always", "zed")]


def test_lifecycle_archived_off_draft_owner_only_deprecated_flagged():
    chain = entries(
        "global",
        {"name": "arch", "owner": "x", "tier": "always", "force": True, "lifecycle": "archived"},
        {"name": "mine", "owner": "alice", "tier": "always", "lifecycle": "draft"},
        {"name": "theirs", "owner": "bob", "tier": "always", "force": True, "lifecycle": "draft"},
        {"name": "old", "owner": "x", "tier": "optional", "force": True, "lifecycle": "deprecated"},
    )
    rows = {r.name: r for r in resolve(chain, ME)}
    assert (rows["arch"].tier, rows["arch"].note) == ("off", "archived")
    assert rows["mine"].tier == "always"
    assert (rows["theirs"].tier, rows["theirs"].note) == ("off", "draft: owner only")
    assert (rows["old"].tier, rows["old"].note) == ("optional", "deprecated")


def test_nothing_contributes_means_off_with_no_decider():
    rows = resolve(entries("global", {"name": "a", "owner": "bob", "tier": "always"}), ME)
    assert rows[0].tier == "off" and rows[0].declared_by == "-"
