"""Voters that cost something (issue 40, item 7).

A ledger counts when its folder names a person of the repository, and a person scope is one
``AGENTS.md``: fifty ``people/fakeN/AGENTS.md`` with a ledger each were fifty votes, and
neither the gate nor validate said a word. Now the gate lists every person a change makes a
voter (review needed, exit 3), so a vote moves a score only once a reviewer has seen who added
its voter.
"""

from __future__ import annotations

import json
from pathlib import Path

from exobrain.signals.ledger import dump_line, make_signal
from tests.support.helpers import build_tree, git
from tests.support.hostile import invoke

HELLO = "skill:hello@global"


def staged(root: Path, files: dict[str, str]) -> None:
    build_tree(root, files)
    git(root, "add", "-A")


def vote(person: str) -> str:
    return dump_line(make_signal("vote", HELLO, -1, by=person, host="h"))


def review(root: Path) -> tuple[int, str, dict]:
    text = invoke(root, ["authoring-review", "--base", "main"])
    data = json.loads(invoke(root, ["authoring-review", "--base", "main", "--json"]).out)
    return text.code, text.out, data


def test_fifty_new_person_scopes_with_ledgers_are_listed_for_review(sandbox):
    root = sandbox.root
    files: dict[str, str] = {}
    for i in range(50):
        files[f"people/fake{i}/AGENTS.md"] = f"# fake{i}\n"
        files[f"signals/fake{i}/h.jsonl"] = vote(f"fake{i}")
    staged(root, files)
    code, out, data = review(root)
    assert code == 3, out
    assert "review needed — no new shared skills, 50 new voter(s) to read" in out
    assert "  new voter       fake7 (people/fake7, 1 ledger(s) added)" in out
    assert len(data["voters_to_review"]) == 50 and data["exit_code"] == 3
    assert {"person": "fake0", "scope": "people/fake0", "ledgers_added": 1} in data[
        "voters_to_review"
    ]


def test_a_voter_admitted_before_its_ledgers_is_listed_then(sandbox):
    root = sandbox.root
    staged(root, {"groups/acme/people/bo/AGENTS.md": "# bo\n"})  # nested: a person too
    code, out, data = review(root)
    assert code == 3 and "  new voter       bo (groups/acme/people/bo)" in out
    assert data["voters_to_review"] == [
        {"person": "bo", "scope": "groups/acme/people/bo", "ledgers_added": 0}
    ]
    git(root, "commit", "-q", "-m", "bo joins")  # on main now: reviewed and merged
    staged(root, {"signals/bo/h.jsonl": vote("bo"), "signals/alice/h.jsonl": vote("alice")})
    code, out, _ = review(root)
    assert code == 0 and "authoring-review: ok" in out  # known persons' ledgers: nothing to see


def test_a_collection_turned_into_persons_lists_each_of_its_scopes(sandbox):
    root = sandbox.root
    config = {"collections": [{"folder": "groups", "type": "person"}]}
    staged(root, {"scopes.json": config})
    code, out, data = review(root)
    assert code == 3 and "  new voter       acme (groups/acme)" in out
    assert [v["person"] for v in data["voters_to_review"]] == ["acme"]
