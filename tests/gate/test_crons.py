"""crons.json: cron expressions, the schema, skills-validate findings and `exobrain crons`."""

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.cli.validate import main as validate
from exobrain.gate.crons import parse_schedule, schedule_problem
from tests.support import ROOT
from tests.support.helpers import build_tree, exobrain


@pytest.mark.parametrize(
    "expression,expected",
    [
        ("* * * * *", (60, 24, 31, 12, 7)),
        ("*/15 9-17 * * mon-fri", (4, 9, 31, 12, 5)),
        ("0,30 6 1,15 jan,JUL sun", (2, 1, 2, 2, 1)),
        ("5 0 * * 7", (1, 1, 31, 12, 1)),  # 7 is Sunday, like 0
        ("0 0 * * 0,7", (1, 1, 31, 12, 1)),
        ("10-50/20 */6 2-30/7 feb-dec/3 1-5", (3, 4, 5, 4, 5)),
        ("  0\t3  *  *  * ", (1, 1, 31, 12, 7)),
    ],
)
def test_valid_schedules(expression, expected):
    assert tuple(len(values) for values in parse_schedule(expression)) == expected


def test_values_are_expanded():
    minute, hour, _day, month, weekday = parse_schedule("10-50/20 */6 * jun sat,sun")
    assert minute == {10, 30, 50} and hour == {0, 6, 12, 18}
    assert month == {6} and weekday == {0, 6}


@pytest.mark.parametrize(
    "expression,needle",
    [
        ("60 * * * *", "minute 60 is outside 0-59"),
        ("0 24 * * *", "hour 24 is outside 0-23"),
        ("0 0 0 * *", "day of month 0 is outside 1-31"),
        ("0 0 32 * *", "day of month 32 is outside 1-31"),
        ("0 0 * 13 *", "month 13 is outside 1-12"),
        ("0 0 * * 8", "day of week 8 is outside 0-7"),
        ("0 0 * foo *", "month 'foo' is neither a number nor one of jan"),
        ("0 0 * * monday", "day of week 'monday'"),
        ("mon 0 * * *", "minute 'mon' is not a number"),
        ("5-1 * * * *", "range '5-1' goes backwards"),
        ("*/0 * * * *", "step 0 must be between 1 and 60"),
        ("*/61 * * * *", "step 61 must be between 1 and 60"),
        ("5/15 * * * *", "a step needs '*' or a range before it (e.g. 5-59/15)"),
        ("1,,2 * * * *", "minute '' is not a value"),
        ("* * * *", "expected 5 fields"),
        ("* * * * * *", "expected 5 fields"),
        ("@daily", "nicknames such as @daily are not accepted"),
        ("*-5 * * * *", "is not a value"),
    ],
)
def test_invalid_schedules(expression, needle):
    problem = schedule_problem(expression)
    assert problem is not None and needle in problem, problem


def run_validate(root):
    result = CliRunner().invoke(validate, ["--repo", str(root), "--json"])
    return result.exit_code, json.loads(result.stdout)


def crons_repo(tmp_path, jobs, raw=None):
    root = exobrain(
        tmp_path / "exo",
        registries={"global": [{"name": "tidy", "owner": "ann", "tier": "optional"}]},
        skills={"global/tidy": None},
    )
    build_tree(root, {"crons.json": raw if raw is not None else {"jobs": jobs}})
    return root


def test_invalid_schedule_is_a_skills_validate_error(tmp_path):
    root = crons_repo(
        tmp_path,
        [
            {"name": "fine", "schedule": "0 3 * * *", "command": "tidy", "skill": "tidy"},
            {"name": "broken", "schedule": "0 3 * * 9", "command": "tidy", "skill": "tidy"},
        ],
    )
    code, data = run_validate(root)
    assert code == 2
    [finding] = data["findings"]
    assert finding["code"] == "crons-schema" and finding["file"] == "crons.json"
    assert finding["entry"] == "#1 broken" and finding["line"] == 9
    assert "schedule '0 3 * * 9': day of week 9 is outside 0-7" in finding["message"]
    text = CliRunner().invoke(validate, ["--repo", str(root)]).stdout
    assert "crons.json:9 #1 broken: schedule" in text


@pytest.mark.parametrize(
    "job,needle",
    [
        ({"name": "a", "schedule": "0 3 * * *"}, "a job needs name, schedule and command"),
        ({"name": "a", "schedule": "0 3 * *", "command": "x"}, "a 5-field cron expression"),
        ({"name": "a b", "schedule": "0 3 * * *", "command": "x"}, "a job name"),
        ({"name": "a", "schedule": "0 3 * * *", "command": "x\ny"}, "on one line"),
        ({"name": "a", "schedule": "0 3 * * *", "command": "x", "skill": "Tidy"}, "the skill"),
        ({"name": "a", "schedule": "0 3 * * *", "command": "x", "when": 1}, "no other keys"),
        ({"name": "a", "schedule": "0 3 * * *", "command": "x", "skill": "t@groups/../x"}, "'..'"),
    ],
)
def test_schema_problems(tmp_path, job, needle):
    code, data = run_validate(crons_repo(tmp_path, [job]))
    assert code == 2 and any(needle in f["message"] for f in data["findings"]), data


def test_file_level_problems(tmp_path):
    code, data = run_validate(crons_repo(tmp_path, None, raw='{"jobs": [}'))
    assert code == 2 and data["findings"][0]["code"] == "crons-json"
    assert data["findings"][0]["line"] == 1
    code, data = run_validate(crons_repo(tmp_path / "b", None, raw={"tasks": []}))
    assert code == 2 and data["findings"][0]["code"] == "crons-schema"


def test_duplicate_names_and_unknown_skills(tmp_path):
    root = crons_repo(
        tmp_path,
        [
            {"name": "a", "schedule": "0 3 * * *", "command": "x", "skill": "tidy@global"},
            {"name": "a", "schedule": "0 4 * * *", "command": "y"},
            {"name": "b", "schedule": "0 4 * * *", "command": "y", "skill": "nosuch"},
            {"name": "c", "schedule": "0 4 * * *", "command": "y", "skill": "tidy@groups/x"},
        ],
    )
    code, data = run_validate(root)
    got = sorted((f["code"], f["entry"], f["bad_input"]) for f in data["findings"])
    assert got == [
        ("crons-schema", "#1 a", True),
        ("crons-unknown-skill", "#2 b", False),
        ("crons-unknown-skill", "#3 c", False),
    ]
    assert code == 2


def test_unknown_skill_alone_exits_1(tmp_path):
    root = crons_repo(
        tmp_path, [{"name": "b", "schedule": "0 4 * * *", "command": "y", "skill": "nosuch"}]
    )
    assert run_validate(root)[0] == 1


def test_the_repositorys_own_crons_json_is_valid():
    data = json.loads((ROOT / "crons.json").read_text())
    seed_only = ["seed-tests"] if (ROOT / "seed" / "AGENTS.md").is_file() else []  # instance
    assert [job["name"] for job in data["jobs"]] == [
        "signals-sweep",
        "reimport",
        "selftest",
        *seed_only,
    ]
    _code, found = run_validate(ROOT)
    assert not [f for f in found["findings"] if f["file"] == "crons.json"]


def invoke(root, *args):
    result = CliRunner().invoke(exobrain_cli, ["crons", "--repo", str(root), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def test_crons_lists_jobs(tmp_path):
    root = crons_repo(
        tmp_path,
        [
            {"name": "nightly", "schedule": "0  3 * * *", "command": "tidy --all", "skill": "tidy"},
            {"name": "weekly", "schedule": "30 6 * * mon", "command": "report"},
        ],
    )
    result = invoke(root)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "SCHEDULE", "SKILL", "COMMAND"]
    assert lines[1].split() == ["nightly", "0", "3", "*", "*", "*", "tidy", "tidy", "--all"]
    assert lines[-1].startswith("2 job(s).")
    data = json.loads(invoke(root, "--json").stdout)
    assert [j["name"] for j in data["jobs"]] == ["nightly", "weekly"]
    assert data["jobs"][1]["skill"] is None


def test_crontab_lines_run_from_the_repo_and_escape_percent(tmp_path):
    root = crons_repo(
        tmp_path / "my repo",
        [{"name": "stamp", "schedule": "*/5 * * * *", "command": "date +%F > stamp.txt"}],
    )
    result = invoke(root, "--crontab")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"# exobrain jobs from {root / 'crons.json'}"
    assert lines[2] == "# stamp"
    path = shlex.quote(str(Path(sys.executable).parent))
    assert lines[3] == (
        f'*/5 * * * * cd {shlex.quote(str(root))} && export PATH={path}:"$PATH" '
        "&& date +\\%F > stamp.txt"
    )
    # the line really works: run its command the way cron would (after undoing the escape)
    command = lines[3].split(" ", 5)[5].replace("\\%", "%")
    subprocess.run(["sh", "-c", command], check=True)
    assert (root / "stamp.txt").read_text().strip()


def test_crontab_lines_run_with_the_bare_path_cron_gives(tmp_path):
    """cron runs a line with PATH=/usr/bin:/bin, where a pip-installed script is not found:
    the toolkit's own scripts are named by their absolute path, and their folder leads PATH."""
    root = crons_repo(
        tmp_path / "exo",
        [{"name": "list", "schedule": "0 * * * *", "command": "exobrain crons --json > jobs.json"}],
    )
    line = invoke(root, "--crontab").stdout.splitlines()[3]
    command = line.split(" ", 5)[5].replace("\\%", "%")
    script = shlex.quote(str(Path(sys.executable).parent / "exobrain"))
    assert command.endswith(f"&& {script} crons --json > jobs.json")
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads((root / "jobs.json").read_text())["jobs"][0]["name"] == "list"


def test_crons_without_file_and_with_problems(tmp_path):
    root = exobrain(tmp_path / "exo")
    result = invoke(root)
    assert result.exit_code == 0 and "nothing is scheduled" in result.stdout
    assert json.loads(invoke(root, "--json").stdout) == {
        "file": "crons.json",
        "exists": False,
        "jobs": [],
    }
    build_tree(
        root,
        {
            "crons.json": {
                "jobs": [
                    {"name": "ok", "schedule": "0 3 * * *", "command": "x"},
                    {"name": "bad", "schedule": "0 3 * * 9", "command": "x"},
                ]
            }
        },
    )
    result = invoke(root)
    assert result.exit_code == 2 and "ok" in result.stdout and "bad" not in result.stdout
    assert "error: crons.json:8 #1 bad: schedule '0 3 * * 9'" in result.stderr
    result = invoke(root, "--crontab")
    assert result.exit_code == 2 and result.stdout == ""
    assert invoke(root, "--crontab", "--json").exit_code == 2
    (root / "crons.json").write_text("{")
    result = invoke(root)
    assert result.exit_code == 2 and "crons.json:1:2: invalid JSON" in result.stderr


def test_umbrella_lists_the_verb():
    result = CliRunner().invoke(exobrain_cli, ["--help"])
    assert "crons" in result.output


def test_external_and_folder_homes_are_known(tmp_path):
    root = exobrain(
        tmp_path / "exo",
        scopes=["groups/acme"],
        registries={
            "global": [
                {
                    "name": "creator",
                    "owner": "anthropic",
                    "tier": "optional",
                    "source": {
                        "repo": "https://example.com/s.git",
                        "path": "creator",
                        "ref": "main",
                    },
                }
            ]
        },
        skills={"groups/acme/loose": None},
    )
    build_tree(
        root,
        {
            "crons.json": {
                "jobs": [
                    {
                        "name": "a",
                        "schedule": "0 3 * * *",
                        "command": "x",
                        "skill": "skill:creator@external/anthropic",
                    },
                    {
                        "name": "b",
                        "schedule": "0 3 * * *",
                        "command": "x",
                        "skill": "loose@groups/acme",
                    },
                    {
                        "name": "c",
                        "schedule": "0 3 * * *",
                        "command": "x",
                        "skill": "creator@global",
                    },
                ]
            }
        },
    )
    _code, data = run_validate(root)
    unknown = [f["entry"] for f in data["findings"] if f["code"] == "crons-unknown-skill"]
    assert unknown == ["#2 c"]


def test_table_on_a_terminal(tmp_path, monkeypatch):
    import exobrain.cli.crons as module

    monkeypatch.setattr(module, "stdout_is_terminal", lambda: True)
    root = crons_repo(
        tmp_path,
        [{"name": "nightly", "schedule": "0 3 * * *", "command": "tidy --all", "skill": "tidy"}],
    )
    result = invoke(root)
    assert result.exit_code == 0
    assert "nightly" in result.stdout and "NAME" in result.stdout and "1 job(s)" in result.stdout
