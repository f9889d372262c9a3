"""Hints and labels true to what the user typed: the next step after ``exobrain scope new`` is
the connect-agent command the docs use, the site's title is an option defaulting to the
repository's own name, and the site's search counts only skills that match the query."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main
from tests.support.helpers import exobrain, git, skill_md


@pytest.mark.parametrize(
    "path, flags",
    [
        ("people/dana", "--person dana"),
        ("people/dana/hosts/lap1", "--person dana --host lap1"),
        ("groups/acme", "--group acme"),
        ("teams/ops", "--scope teams/ops"),
    ],
)
def test_scope_new_suggests_the_connect_command_the_docs_use(tmp_path, path, flags):
    root = exobrain(tmp_path / "repo", scopes=["people/dana"] if "hosts" in path else [])
    done = CliRunner().invoke(main, ["scope", "new", path, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    assert f"then connect-agent AGENT {flags}" in done.stdout


def site_of(tmp_path, *extra):
    root = exobrain(
        tmp_path / "repo",
        {
            "global": [
                {"name": n, "owner": "ops", "tier": "optional", "force": True}
                for n in ("pdf", "tidy", "deploy")
            ]
        },
        skills={
            "global/pdf": skill_md("pdf", "Use pdf to fill and merge PDF forms at home."),
            "global/tidy": skill_md("tidy", "Use tidy to format a repository's code at home."),
            "global/deploy": skill_md("deploy", "Use deploy to ship a service to production."),
        },
    )
    git(root, "remote", "add", "origin", "https://example.com/acme/team-skills.git")
    out = tmp_path / "site"
    done = CliRunner().invoke(main, ["site", "-o", str(out), "--repo", str(root), *extra])
    assert done.exit_code == 0, done.output
    return out


def test_the_site_title_is_the_repository_name_or_the_option(tmp_path):
    assert "<title>team-skills skills" in (site_of(tmp_path) / "index.html").read_text()
    titled = site_of(tmp_path / "b", "--title", "Acme know-how")
    assert "<title>Acme know-how" in (titled / "index.html").read_text()


def test_the_site_search_counts_only_what_matches(tmp_path):
    from exobrain.site.searchindex import rank

    out = site_of(tmp_path)
    script = (out / "search-index.js").read_text()
    index = json.loads(script.split("=", 1)[1].rstrip(";\n"))
    assert [ref for ref, _ in rank(index, "merge pdf forms")] == ["pdf@global"]
    assert rank(index, "bake sourdough bread at home") == []  # "home" alone is no match
