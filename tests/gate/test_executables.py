"""The reading list of the authoring gate: executables new, changed or newly executable in
shared scopes (pure)."""

from exobrain.gate.executables import changed_executables, is_scope_hook, scope_of

SCOPES = {"global": "global", "groups/acme": "group", "people/al": "person"}
X, F = "100755", "100644"


def test_scope_hooks_and_executable_files_of_shared_scopes_are_listed():
    base = {
        "groups/acme/scripts/connect-agent": (F, "a1"),
        "skills/tidy/run.sh": (F, "b1"),
        "skills/tidy/same.sh": (X, "c1"),
    }
    now = {
        "groups/acme/scripts/connect-agent": (F, "a2"),  # a hook runs whatever its mode
        "groups/acme/scripts/connect-agent.claude": (F, "d1"),
        "skills/tidy/run.sh": (X, "b1"),
        "skills/tidy/same.sh": (X, "c1"),
        "skills/tidy/notes.md": (F, "e1"),
        "people/al/scripts/connect-agent": (X, "f1"),  # personal: imposes on no one
    }
    found = [(e.path, e.scope, e.change) for e in changed_executables(base, now, SCOPES)]
    assert found == [
        ("groups/acme/scripts/connect-agent", "groups/acme", "changed"),
        ("groups/acme/scripts/connect-agent.claude", "groups/acme", "new"),
        ("skills/tidy/run.sh", "global", "made executable"),
    ]


def test_where_a_file_belongs():
    assert scope_of("groups/acme/skills/x/run.sh", SCOPES) == "groups/acme"
    assert scope_of("groups/other/run.sh", SCOPES) == "global"
    assert is_scope_hook("scripts/connect-agent", SCOPES)
    assert not is_scope_hook("groups/acme/scripts/connect-agentx", SCOPES)
    assert not is_scope_hook("groups/nope/scripts/connect-agent", SCOPES)
