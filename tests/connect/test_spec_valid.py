"""What the agents read passes the Agent Skills reference checker (``agentskills validate``,
the ``skills_ref`` package): every folder connect-agent links or installs for Claude Code, Codex
and Gemini CLI, and every skill the optional index points to, for the repository's own skills
and for the committed real samples once imported. Two things made it fail before: link names
told apart by home on every link (``tidy.groups__acme``: folder name ≠ ``name``) and the
toolkit's own fields at the top of the frontmatter (``version``, ``schema_version``,
``source``)."""

import os
import re
import shutil

import skills_ref
from click.testing import CliRunner

from exobrain.cli.connect import main as connect
from exobrain.cli.umbrella import main as exobrain_cli
from tests.support import FIXTURES, ROOT
from tests.support.bundles import target_repo
from tests.support.helpers import exobrain, git

AGENTS = ("claude", "codex", "gemini")
OWN = sorted(p.parent.name for p in (ROOT / "skills").glob("*/SKILL.md"))


def read_by_agents(root):
    """Every skill folder the three agents are given: their links and installs, and the
    folders of the SKILL.md files their optional indexes list."""
    folders = []
    for skills in (".claude/skills", ".agents/skills", ".gemini/skills"):
        place = root / skills
        if place.is_dir():
            folders += [place / name for name in sorted(os.listdir(place))]
    for index in (".claude/optional-skills.md", ".gemini/optional-skills.md"):
        path = root / index
        if path.is_file():
            for rel in re.findall(r"^\| [^|]+ \| ([^|]+)/SKILL\.md \|", path.read_text(), re.M):
                folders.append(root / rel.strip())
    return folders


def connected(root, *args):
    for agent in AGENTS:
        result = CliRunner().invoke(connect, [agent, "--repo", str(root), *args])
        assert result.exit_code == 0, result.output
        assert "told apart" not in result.output, result.output
    return read_by_agents(root)


def test_the_repositorys_own_skills_pass_as_the_agents_read_them(tmp_path):
    root = exobrain(
        tmp_path / "x",
        registries={
            "global": [{"name": n, "owner": "o", "tier": "always", "force": True} for n in OWN]
        },
        commit=False,
    )
    for name in OWN:
        shutil.copytree(ROOT / "skills" / name, root / "skills" / name)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "own skills")
    folders = connected(root)
    assert {f.name for f in folders} == set(OWN)
    assert len(folders) == 2 * len(OWN)  # Claude's folder and the shared .agents/skills
    for folder in folders:
        assert skills_ref.validate(folder) == [], folder
    for folder in sorted((ROOT / "seed/skills").iterdir()):
        assert skills_ref.validate(folder) == [], folder


def test_imported_real_samples_pass_as_the_agents_read_them(tmp_path):
    root = target_repo(tmp_path)
    for bundle in ("anthropics", "kdense"):
        result = CliRunner().invoke(
            exobrain_cli,
            ["import", str(FIXTURES / "bundles" / bundle), "--all", "--repo", str(root)],
        )
        assert result.exit_code == 0, result.output
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "samples")
    folders = connected(root)
    assert len(folders) >= 8  # the two anthropics skills and the six of K-Dense, indexed
    for folder in folders:
        assert skills_ref.validate(folder) == [], folder
