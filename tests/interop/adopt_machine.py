"""A machine prepared as the other installers leave it, from the records they really wrote
(tests/fixtures/adopt/): the upstream repository they installed from (a local bare repository
that git's insteadOf puts behind the GitHub and ssh URLs of the records, as when they were
made), the installed folders in the agents' folders, and the tools' lock files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.support.helpers import exobrain
from tests.support.upstream import Upstream

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "adopt"
VERCEL = FIXTURES / "vercel-skills-1.5.18"
GITHUB_URL = "https://github.com/acme/skills"
SSH_URL = "ssh://git.example.test/acme/skills.git"


def upstream_files() -> dict[str, str]:
    files = {}
    for path in sorted((FIXTURES / "upstream-skills").rglob("*")):
        if path.is_file():
            rel = path.relative_to(FIXTURES / "upstream-skills").as_posix()
            files[f"skills/{rel}"] = path.read_text(encoding="utf-8")
    return files


def upstream(base: Path) -> Upstream:
    """The repository the records point at, tagged v1.0, behind their URLs."""
    up = Upstream(base, upstream_files(), name="acme")
    up.tag("v1.0")
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    with config.open("a", encoding="utf-8") as out:
        out.write(f'[url "{up.url}"]\n')
        for url in (GITHUB_URL + ".git", GITHUB_URL, SSH_URL):
            out.write(f"\tinsteadOf = {url}\n")
    return up


def brain(base: Path) -> Path:
    """alice's exobrain, connected with claude and codex, local sources allowed (the
    upstream is a local repository behind its public URLs)."""
    return exobrain(
        base / "brain",
        {"global": [], "people/alice": []},
        scopes=["people/alice"],
        connection={
            "connected_scopes": ["people/alice"],
            "person": "alice",
            "agents": ["claude", "codex"],
            "external_skills": {"allow_local": True},
        },
    )


def install_project(root: Path, up: Upstream, base: Path) -> dict[str, Path]:
    """What the tools installed in the project: vercel's three (pdf-tools at v1.0 for Claude
    Code, release-notes from the ssh URL for Codex, notes-helper from a local folder) with
    its skills-lock.json, and gh's commit-style (pinned to v1.0) for Copilot."""
    local = base / "mine" / "notes-helper"
    shutil.copytree(FIXTURES / "local-skill" / "notes-helper", local)
    skills = FIXTURES / "upstream-skills"
    placed = {
        "pdf-tools": root / ".claude/skills/pdf-tools",
        "release-notes": root / ".agents/skills/release-notes",
        "notes-helper": root / ".claude/skills/notes-helper",
        "commit-style": root / ".github/skills/commit-style",
    }
    shutil.copytree(skills / "pdf-tools", placed["pdf-tools"])
    shutil.copytree(skills / "release-notes", placed["release-notes"])
    shutil.copytree(local, placed["notes-helper"])
    shutil.copytree(FIXTURES / "gh-skill" / "commit-style", placed["commit-style"])
    lock = (VERCEL / "skills-lock.json").read_text(encoding="utf-8")
    (root / "skills-lock.json").write_text(lock.replace("{LOCAL_SKILL}", str(local)))
    return placed


def install_user(home: Path) -> dict[str, Path]:
    """What vercel's tool installed at user level (-g): release-notes for Claude Code,
    pdf-tools into ~/.agents/skills, and its ~/.agents/.skill-lock.json."""
    skills = FIXTURES / "upstream-skills"
    placed = {
        "release-notes": home / ".claude/skills/release-notes",
        "pdf-tools": home / ".agents/skills/pdf-tools",
    }
    for name, target in placed.items():
        shutil.copytree(skills / name, target)
    shutil.copy(VERCEL / "user-skill-lock.json", home / ".agents" / ".skill-lock.json")
    return placed


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under ``folders`` (links as their targets): what the other tools own."""
    found: dict[str, bytes] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink():
                found[str(path)] = os.readlink(path).encode()
            elif path.is_file():
                found[str(path)] = path.read_bytes()
    return found


def marketplace(base: Path, home: Path) -> tuple[Upstream, Path]:
    """A Claude Code marketplace (github acme/tools, behind a local repository) whose plugin
    docs-kit Claude Code installed for the user at the marketplace's head commit: the
    checkout, the plugin cache and the two records. Returns the repository and the installed
    skill folder."""
    source = FIXTURES / "claude-code" / "marketplace"
    files = {
        p.relative_to(source).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(source.rglob("*"))
        if p.is_file()
    }
    up = Upstream(base, files, name="tools")
    config = Path(os.environ["GIT_CONFIG_GLOBAL"])
    with config.open("a", encoding="utf-8") as out:
        out.write(f'[url "{up.url}"]\n\tinsteadOf = https://github.com/acme/tools\n')
    plugins = home / ".claude" / "plugins"
    shutil.copytree(source, plugins / "marketplaces" / "acme-tools")
    cache = plugins / "cache" / "acme-tools" / "docs-kit" / "1.0.0"
    shutil.copytree(source / "plugins" / "docs-kit", cache)
    for name in ("installed_plugins.json", "known_marketplaces.json"):
        text = (FIXTURES / "claude-code" / name).read_text(encoding="utf-8")
        text = text.replace("{CLAUDE_HOME}", str(home / ".claude")).replace("{COMMIT}", up.head())
        (plugins / name).write_text(text, encoding="utf-8")
    return up, cache / "skills" / "changelog"
