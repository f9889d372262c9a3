"""selftest runs only a test suite this machine trusts (issue 40, item 3).

The exobrain-tests skill tells every member to run ``exobrain selftest`` after pulling, and its
suite is the repository's own code: a committed ``skills/x/tests/test_x.py`` (or a
``conftest.py``) ran on each of them. Now the suite runs only with the exact content the
member trusted (``exobrain trust --suite``); anything else is skipped, or failed when asked
for, with what to read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.support.helpers import build_tree, git
from tests.support.hostile import Outcome, invoke

CONFIG = '[tool.pytest.ini_options]\ntestpaths = ["skills"]\n'


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def plant_test(root: Path, marker: Path) -> str:
    """A committed test of the hello skill that writes ``marker`` when it runs."""
    build_tree(
        root,
        {
            "pyproject.toml": CONFIG,
            "skills/hello/tests/test_hello.py": (
                "from pathlib import Path\n\n\ndef test_hello():\n"
                f"    Path({str(marker)!r}).write_text('ran')\n"
            ),
        },
    )
    return commit(root, "a test for hello")


def suite_check(root: Path, *args: str) -> tuple[Outcome, dict]:
    result = invoke(root, ["exobrain", "selftest", "--json", *args])
    checks = {c["name"]: c for c in json.loads(result.out)["checks"]}
    return result, checks["test-suite"]


def test_a_committed_test_does_not_run_when_a_member_runs_selftest(sandbox):
    marker = sandbox.victim / "pwned"
    plant_test(sandbox.root, marker)
    _, suite = suite_check(sandbox.root)
    assert not marker.exists()
    assert suite["status"] == "skip", suite
    assert suite["detail"] == (
        "not run: the test suite is the repository's own code, never trusted on this machine"
    )
    assert suite["problems"] == [
        "read it first: the tests and code under skills (and the files at the root)"
    ]
    assert (
        "exobrain trust --suite" in suite["fix"]
        and "never trusts code on its own" in (suite["fix"])
    )
    for asked in (["--full"], ["--suite", "skills"]):  # asked for: a failure, still not run
        result, suite = suite_check(sandbox.root, *asked)
        assert result.code == 1 and suite["status"] == "fail", suite
        assert not marker.exists()


@pytest.mark.slow
def test_a_trusted_suite_runs_and_a_pulled_change_waits_for_trust_again(sandbox):
    root, ran = sandbox.root, sandbox.scratch / "ran"
    trusted_at = plant_test(root, ran)
    trusted = invoke(root, ["exobrain", "trust", "--suite"])
    assert trusted.code == 0 and "trusted  the test suite of" in trusted.out
    _, suite = suite_check(root)
    assert suite["status"] == "pass" and ran.read_text() == "ran", suite
    ran.unlink()
    marker = sandbox.victim / "pwned"
    build_tree(root, {"conftest.py": f"open({str(marker)!r}, 'w').write('x')\n"})
    commit(root, "a helpful conftest")  # what the next pull brings
    _, suite = suite_check(root)
    assert suite["status"] == "skip" and "changed since it was trusted on" in suite["detail"]
    assert suite["problems"] == [
        f"read it first: git diff {trusted_at[:12]} -- skills (and any file at the root)"
    ]
    result, suite = suite_check(root, "--full")
    assert result.code == 1 and suite["status"] == "fail"
    assert not marker.exists() and not ran.exists()
    check = invoke(root, ["exobrain", "trust", "--suite", "--check"])
    assert check.code == 1 and check.out.startswith("changed  the test suite of")
    listed = invoke(root, ["exobrain", "trust", "--list"])
    assert "(its test suite)" in listed.out


def test_an_edit_below_a_test_path_or_in_the_package_is_a_change(sandbox):
    root = sandbox.root
    plant_test(root, sandbox.scratch / "ran")
    build_tree(root, {"scripts/exobrain/__init__.py": "", "people/alice/notes.md": "x\n"})
    assert invoke(root, ["exobrain", "trust", "--suite"]).code == 0
    assert invoke(root, ["exobrain", "trust", "--suite", "--check"]).code == 0
    (root / "people/alice/notes.md").write_text("a scope's files are not the suite\n")
    assert invoke(root, ["exobrain", "trust", "--suite", "--check"]).code == 0
    for path in ("scripts/exobrain/__init__.py", "skills/hello/tests/helper.py"):
        (root / path).write_text("import os\n")  # untracked or changed: both count
        assert invoke(root, ["exobrain", "trust", "--suite", "--check"]).code == 1, path
        assert invoke(root, ["exobrain", "trust", "--suite"]).code == 0


def test_a_link_leading_out_of_the_repository_cannot_be_trusted(sandbox):
    root = sandbox.root
    plant_test(root, sandbox.scratch / "ran")
    outside = sandbox.scratch / "elsewhere.py"
    outside.write_text("def test_x():\n    pass\n")
    os.symlink(outside, root / "skills/hello/tests/test_link.py")
    refused = invoke(root, ["exobrain", "trust", "--suite"])
    assert refused.code == 2 and "cannot be trusted" in refused.err
    assert "skills/hello/tests/test_link.py is a link to" in refused.err
    result, suite = suite_check(root, "--full")
    assert result.code == 1 and suite["detail"] == "the test suite cannot be trusted"
