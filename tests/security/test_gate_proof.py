"""What the authoring gate counts as proof (issue 40, low item): a Markdown guide named like a
test (``references/test_selection_guide.md``) was counted as test proof, so a new shared skill
passed the gate with prose about tests and no test at all."""

from __future__ import annotations

import json

from tests.support.helpers import build_tree, git, skill_md
from tests.support.hostile import invoke


def test_a_document_named_like_a_test_is_not_proof(sandbox):
    root = sandbox.root
    build_tree(
        root,
        {
            "skills/pick/SKILL.md": skill_md("pick"),
            "skills/pick/references/test_selection_guide.md": "# Choosing tests\n\nRead me.\n",
            "skills/pick/tests/README.md": "The tests will live here.\n",
        },
    )
    git(root, "add", "-A")
    result = invoke(root, ["authoring-review", "--base", "main"])
    assert result.code == 1, result.text
    assert "pick (global)" in result.out
    assert (
        "not proof: skills/pick/references/test_selection_guide.md: a document, not a test"
        in result.out
    )
    data = json.loads(invoke(root, ["authoring-review", "--base", "main", "--json"]).out)
    (pick,) = data["new_shared_skills"]
    assert pick["proven"] is False and pick["proof"] == []
    build_tree(root, {"skills/pick/tests/test_pick.sh": "#!/bin/sh\ntest -f SKILL.md\n"})
    git(root, "add", "-A")
    proven = json.loads(invoke(root, ["authoring-review", "--base", "main", "--json"]).out)
    assert proven["new_shared_skills"][0]["proof"] == ["skills/pick/tests/test_pick.sh"]
