"""The README and the agent-facing docs stay true to the code."""

import re
import subprocess
import tomllib

from tests.support import ROOT


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
    assert commands == [
        "pip install . && skills-status --all",
        "pip install -e '.[test]' && pytest",
    ]
    assert "pip install -e '.[test]' && pytest" in (ROOT / ".ci/run").read_text()


def test_file_map_paths_exist():
    text = (ROOT / "knowledge/exobrain/skills.md").read_text()
    section = text.split("## File map", 1)[1]
    for path in re.findall(r"^\| `([^`]+)` \|", section, re.M):
        if path == ".exobrain.json":  # per machine, gitignored
            continue
        if path.startswith("seed/") and not (ROOT / "seed").is_dir():  # an instance
            continue
        assert (ROOT / path).exists(), path


def test_agent_docs_name_only_commands_verbs_and_paths_that_exist():
    from exobrain.cli.umbrella import VERBS
    from exobrain.instance import docfacts

    docs = sorted((ROOT / "knowledge" / "exobrain").glob("*.md"))
    assert {"skills.md", "scopes.md", "agents.md", "propagation.md"} <= {d.name for d in docs}
    programs = set(console_scripts())
    for doc in docs:
        text = doc.read_text(encoding="utf-8")
        assert docfacts.problems(ROOT, text, programs, set(VERBS)) == [], doc.name


def test_every_console_script_is_named_in_the_agent_docs():
    text = "".join(p.read_text() for p in (ROOT / "knowledge" / "exobrain").glob("*.md"))
    for script in console_scripts():
        assert f"`{script}" in text, script


def test_the_doc_checker_catches_what_is_wrong(tmp_path):
    from exobrain.instance import docfacts

    text = (
        "Run `skills-status --all`, `skills-statsu --all`, `exobrain show REF`, "
        "`exobrain VERB …`, `exobrain shwo REF`.\n\n```bash\nconnect-agent claude --relink\n"
        "```\nSee `scripts/exobrain/scopes.py`, `scripts/nope.py`, `seed/AGENTS.md`, "
        "`groups/acme`, `skills/<name>/`.\n\n## File map\n\n| file | what |\n|---|---|\n"
        "| `gone.json` | x |\n| `.exobrain.json` | per machine |\n"
    )
    (tmp_path / "scripts" / "exobrain").mkdir(parents=True)
    (tmp_path / "scripts" / "exobrain" / "scopes.py").write_text("")
    (tmp_path / ".gitignore").write_text("/.exobrain.json\n")  # per machine: not reported
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    found = docfacts.problems(tmp_path, text, {"skills-status"}, {"show"})
    assert found == [
        "`skills-statsu --all`: no command 'skills-statsu'",
        "`exobrain shwo REF`: exobrain has no verb 'shwo'",
        "`connect-agent claude --relink`: no command 'connect-agent'",
        "`gone.json` does not exist",
        "`scripts/nope.py` does not exist",
    ]
    (tmp_path / "seed").mkdir()  # in a seed, seed/ paths are checked too
    assert "`seed/AGENTS.md` does not exist" in docfacts.problems(tmp_path, text, set(), set())
