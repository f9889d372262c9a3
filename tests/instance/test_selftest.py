"""exobrain selftest: each check passes on a fresh instance and fails, with its fix, when the
thing it guards is broken."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_main
from exobrain.instance.create import create_instance
from exobrain.instance.selftest import CHECKS
from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain, git, skill_md


def cli(*args):
    return CliRunner().invoke(exobrain_main, list(args), catch_exceptions=False)


def selftest(repo: Path, *args: str) -> tuple[int, dict[str, dict]]:
    result = cli("selftest", "--json", "--repo", str(repo), *args)
    data = json.loads(result.output)
    assert data["exit_code"] == result.exit_code
    assert [c["name"] for c in data["checks"]] == list(CHECKS)
    return result.exit_code, {c["name"]: c for c in data["checks"]}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """One rendered instance per module; tests that break things work on a copy."""
    return create_instance(
        ROOT, tmp_path_factory.mktemp("pristine") / "inst", person="ann", host="pc"
    ).root


@pytest.fixture
def instance(pristine, tmp_path):
    import shutil

    copy = tmp_path / "inst"
    shutil.copytree(pristine, copy, symlinks=True)
    return copy


def trusted(repo: Path) -> None:
    """Trust the suite of ``repo`` as it is now (what a person does after reading it)."""
    result = cli("trust", "--suite", "--repo", str(repo))
    assert result.exit_code == 0, result.output


def statuses(checks):
    return {name: check["status"] for name, check in checks.items()}


def test_a_fresh_instance_passes(instance):
    code, checks = selftest(instance, "--no-suite")
    assert code == 0, checks
    assert statuses(checks) == {
        "schemas": "pass",
        "skills-validate": "pass",
        "locks": "pass",
        "docs": "pass",
        "agents": "skip",
        "git-hooks": "pass",
        "test-suite": "skip",
    }
    assert checks["git-hooks"]["detail"] == "pre-commit installed"


def test_schemas_missing_or_unresolved(instance):
    (instance / "scripts/exobrain/schemas/crons.schema.json").unlink()
    registry = json.loads((instance / "skills.json").read_text())
    registry["$schema"] = "schemas/skills.schema.json"
    (instance / "skills.json").write_text(json.dumps(registry))
    code, checks = selftest(instance, "--no-suite")
    assert code == 1 and checks["schemas"]["status"] == "fail"
    assert checks["schemas"]["problems"] == [
        "scripts/exobrain/schemas/crons.schema.json is missing",
        "skills.json: $schema 'schemas/skills.schema.json' does not exist",
        "crons.json: $schema 'scripts/exobrain/schemas/crons.schema.json' does not exist",
    ]
    (instance / "skills.schema.json").write_text('{"type": 5}')
    _, checks = selftest(instance, "--no-suite")
    assert "skills.schema.json: not a valid JSON Schema" in checks["schemas"]["problems"][0]


def test_a_skill_changed_without_a_bump_fails_validate_and_locks(instance):
    with open(instance / "skills/exobrain/SKILL.md", "a") as handle:
        handle.write("\nAn edit without a version bump.\n")
    code, checks = selftest(instance, "--no-suite")
    assert code == 1
    assert checks["skills-validate"]["status"] == "fail"
    assert any("version_bumped" in p for p in checks["skills-validate"]["problems"])
    assert checks["locks"]["status"] == "fail"
    assert checks["locks"]["problems"][0].startswith("skill:exobrain@global: content changed")
    assert "--bump patch" in checks["locks"]["fix"]


def test_docs_naming_what_does_not_exist(instance):
    build_tree(
        instance,
        {
            "knowledge/exobrain/extra.md": "# Extra\n\nRun `skills-frobnicate --all`, then "
            "`exobrain fly NOW`, and read `scripts/exobrain/nothing.py`.\n"
        },
    )
    code, checks = selftest(instance, "--no-suite")
    assert code == 1 and checks["docs"]["status"] == "fail"
    assert checks["docs"]["problems"] == [
        "knowledge/exobrain/extra.md: `skills-frobnicate --all`: no command 'skills-frobnicate'",
        "knowledge/exobrain/extra.md: `exobrain fly NOW`: exobrain has no verb 'fly'",
        "knowledge/exobrain/extra.md: `scripts/exobrain/nothing.py` does not exist",
    ]


def test_a_missing_pre_commit_hook(instance):
    hooks = Path(git(instance, "rev-parse", "--git-path", "hooks").strip())
    (instance / hooks / "pre-commit").unlink()
    code, checks = selftest(instance, "--no-suite")
    assert code == 1 and checks["git-hooks"]["status"] == "fail"
    assert checks["git-hooks"]["problems"] == ["pre-commit: not installed"]
    assert checks["git-hooks"]["fix"] == "pre-commit install"


def test_the_suite_runs_the_instances_own_package(instance):
    build_tree(
        instance,
        {
            "tests/test_where.py": (
                "from pathlib import Path\nimport exobrain\n\n"
                "def test_the_package_is_this_instances():\n"
                "    here = Path(__file__).resolve().parents[1]\n"
                "    assert Path(exobrain.__file__).resolve().is_relative_to(here)\n"
            )
        },
    )
    trusted(instance)
    code, checks = selftest(
        instance, "--suite", "tests/test_where.py", "--suite", "tests/cli/test_docs.py"
    )
    assert code == 0, checks["test-suite"]
    assert checks["test-suite"]["detail"].startswith(
        "pytest -x tests/test_where.py tests/cli/test_docs.py: "
    )
    assert "passed" in checks["test-suite"]["detail"]


def test_a_failing_suite_shows_the_failure(instance):
    build_tree(instance, {"tests/test_broken.py": "def test_broken():\n    assert 1 == 2\n"})
    trusted(instance)
    code, checks = selftest(instance, "--suite", "tests/test_broken.py")
    assert code == 1 and checks["test-suite"]["status"] == "fail"
    assert "1 failed" in checks["test-suite"]["detail"]
    assert any("assert 1 == 2" in line for line in checks["test-suite"]["problems"])
    code, checks = selftest(instance, "--suite", "tests/nothing.py")
    assert checks["test-suite"]["detail"] == "no such test path: tests/nothing.py"


def test_a_parallel_suite_needs_pytest_xdist(instance, monkeypatch, tmp_path):
    """The instance's addopts run its suite with -n: without pytest-xdist pytest could not even
    start, so the check names what to install instead of ending on pytest's usage error."""
    import importlib.util

    from exobrain.instance.selftest import runs_in_parallel

    assert runs_in_parallel(instance)
    for addopts, parallel in (
        ('"-q"', False),
        ('["-q", "-n", "2"]', True),
        ('"--dist load"', True),
    ):
        build_tree(
            tmp_path, {"pyproject.toml": f"[tool.pytest.ini_options]\naddopts = {addopts}\n"}
        )
        assert runs_in_parallel(tmp_path) is parallel, addopts
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "xdist" else real(name, *a)
    )
    trusted(instance)
    code, checks = selftest(instance, "--suite", "tests/cli/test_docs.py")
    assert code == 1 and checks["test-suite"]["status"] == "fail"
    assert checks["test-suite"]["detail"].startswith("pytest-xdist is not installed")
    assert checks["test-suite"]["fix"] == "pip install -e '.[test]' (or pass --no-suite)"


def test_an_exobrain_without_a_suite_or_docs_skips_them(tmp_path):
    root = exobrain(tmp_path / "exo", registries={"global": []})
    code, checks = selftest(root)
    assert code == 1 and [n for n, c in checks.items() if c["status"] == "fail"] == ["schemas"]
    assert checks["test-suite"]["detail"] == "no test suite here"
    assert checks["docs"]["status"] == "skip"
    assert checks["git-hooks"]["status"] == "skip"
    assert checks["schemas"]["status"] == "fail"  # no skills.schema.json at all


def test_a_check_that_crashes_is_a_failed_check(instance, monkeypatch):
    import exobrain.instance.selftest as selftest_module

    def boom(ws):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(selftest_module, "check_locks", boom)
    code, checks = selftest(instance, "--no-suite")
    assert code == 1
    assert checks["locks"]["problems"] == ["RuntimeError: disk on fire"]


def test_text_output_and_usage_errors(instance):
    result = cli("selftest", "--no-suite", "--repo", str(instance))
    lines = result.output.splitlines()
    assert lines[0].startswith("PASS  schemas ")
    assert lines[-1] == "selftest: 5 passed, 0 failed, 2 skipped"
    bad = cli("selftest", "--no-suite", "--suite", "tests", "--repo", str(instance))
    assert bad.exit_code == 2 and "exclude each other" in bad.output


def test_connected_agents_must_match_the_plan(instance):
    from exobrain.cli.connect import main as connect_main

    build_tree(
        instance,
        {
            "people/ann/skills/notes/SKILL.md": skill_md("notes"),
            "people/ann/skills.json": {
                "skills": [{"name": "notes", "owner": "ann", "tier": "always"}]
            },
        },
    )
    result = CliRunner().invoke(
        connect_main, ["claude", "--person", "ann", "--host", "pc", "--repo", str(instance)]
    )
    assert result.exit_code == 0, result.output
    code, checks = selftest(instance, "--no-suite")
    assert code == 0, checks
    assert checks["agents"]["detail"] == "claude: links and indexes equal the plan"
    assert (
        checks["git-hooks"]["detail"] == "pre-commit, post-merge, post-rewrite, pre-push installed"
    )
    (instance / ".claude" / "skills" / "notes").unlink()
    (instance / ".claude" / "optional-skills.md").write_text("stale\n")
    code, checks = selftest(instance, "--no-suite")
    assert code == 1 and checks["agents"]["status"] == "fail"
    problems = "\n".join(checks["agents"]["problems"])
    assert "claude: would create link notes" in problems
    assert "optional-skills.md" in problems
    assert checks["agents"]["fix"] == "connect-agent claude --relink"


@pytest.mark.slow
def test_the_default_suite_is_its_quick_part_and_full_is_one_option_away(
    instance, tmp_path, monkeypatch
):
    """An instance's default selftest runs the skills' own proofs and the core tests (well
    under a minute); --full runs every configured path, as pytest alone would."""
    from exobrain.instance.selftest import quick_paths
    from exobrain.instance.suitetrust import configured_paths

    assert configured_paths(instance) == ["tests", "skills"]
    assert quick_paths(instance) == ["skills", "tests/core"]
    build_tree(tmp_path / "plain", {"pyproject.toml": "", "tests/test_a.py": ""})
    assert quick_paths(tmp_path / "plain") == ["tests"]  # nothing quicker: all of it
    build_tree(
        instance,
        {
            "skills/exobrain-tests/tests/test_quick.py": "def test_quick():\n    pass\n",
            "tests/cli/test_not_quick.py": "def test_slow():\n    raise SystemExit('ran')\n",
        },
    )
    trusted(instance)
    import subprocess

    seen: dict[str, list[str]] = {}
    real = subprocess.run

    def spy(argv, *args, **kwargs):
        if "pytest" in argv:
            seen[" ".join(argv)] = argv
            argv = [*argv[: argv.index("-p") + 2], "--co", "-q", *argv[argv.index("-p") + 2 :]]
        return real(argv, *args, **kwargs)

    with monkeypatch.context() as patch:  # only pytest collects: the paths are the point
        patch.setattr(subprocess, "run", spy)
        _, checks = selftest(instance)
        _, full = selftest(instance, "--full")
    assert checks["test-suite"]["detail"].startswith("pytest -x skills tests/core: ")
    assert full["test-suite"]["detail"].startswith("pytest -x: ")
    quick_argv, full_argv = seen.values()
    assert quick_argv[-2:] == ["skills", "tests/core"] and full_argv[-2:] == ["tests", "skills"]
    bad = cli("selftest", "--full", "--no-suite", "--repo", str(instance))
    assert bad.exit_code == 2 and "--no-suite and --full exclude each other" in bad.output
