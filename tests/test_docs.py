"""The README and the agent-facing docs stay true to the code."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).parents[1]


def console_scripts() -> list[str]:
    return list(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"])


def test_every_console_script_is_in_the_readme_commands_table():
    readme = (ROOT / "README.md").read_text()
    for script in console_scripts():
        assert re.search(rf"^\| `{re.escape(script)}[ `]", readme, re.M), script


def test_every_exobrain_verb_is_documented():
    from exobrain.cli.umbrella import VERBS
    readme = (ROOT / "README.md").read_text()
    for verb in VERBS:
        assert f"exobrain {verb}" in readme, verb


def test_quick_start_is_two_commands():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.strip().splitlines() if line.strip()]
    assert commands == ["pip install . && skills-status --all",
                        "pip install -e '.[test]' && pytest"]
    assert "pip install -e '.[test]' && pytest" in (ROOT / ".ci/run").read_text()


def test_file_map_paths_exist():
    text = (ROOT / "knowledge/exobrain/skills.md").read_text()
    section = text.split("## File map", 1)[1]
    for path in re.findall(r"^\| `([^`]+)` \|", section, re.M):
        if path == ".exobrain.json":  # per machine, gitignored
            continue
        assert (ROOT / path).exists(), path
