"""The same files under two names: equal content hashes are one answer in search and the MCP
search, and the site says "same content" (an import of one bundle's pdf skill into two scopes
is the usual way to get there)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from exobrain.cli.umbrella import main
from tests.support.helpers import exobrain, skill_md

TEXT = skill_md("pdf", "Use pdf to fill and merge PDF forms.", body="# pdf\n\nForms.\n")


def twins(tmp_path):
    registries = {
        "global": [{"name": "pdf", "owner": "ops", "tier": "optional", "force": True}],
        "people/alice": [{"name": "pdf", "owner": "alice", "tier": "optional"}],
    }
    return exobrain(
        tmp_path / "repo",
        registries,
        scopes=["people/alice"],
        skills={"global/pdf": TEXT, "people/alice/pdf": TEXT},
        connection={"connected_scopes": ["people/alice"], "person": "alice"},
    )


def test_search_folds_skills_of_equal_content(tmp_path):
    root = twins(tmp_path)
    done = CliRunner().invoke(
        main, ["search", "merge PDF forms", "--lexical", "--json", "--repo", str(root)]
    )
    assert done.exit_code == 0, done.output
    hits = json.loads(done.stdout)["hits"]
    assert len(hits) == 1
    assert len(hits[0]["same_content"]) == 1
    assert {hits[0]["ref"], *hits[0]["same_content"]} == {
        "skill:pdf@global",
        "skill:pdf@people/alice",
    }
    text = CliRunner().invoke(main, ["search", "merge PDF forms", "--lexical", "--repo", str(root)])
    assert "same content as: skill:pdf@" in text.stdout


def test_the_mcp_search_folds_them_too(tmp_path):
    from exobrain.mcp.worker import Exobrain

    answer = Exobrain(twins(tmp_path)).call("search", {"query": "merge PDF forms"})
    assert len(answer["hits"]) == 1 and answer["hits"][0]["same_content"]


def test_the_site_marks_them(tmp_path):
    root = twins(tmp_path)
    out = tmp_path / "site"
    done = CliRunner().invoke(main, ["site", "-o", str(out), "--all-scopes", "--repo", str(root)])
    assert done.exit_code == 0, done.output
    assert "same content" in (out / "index.html").read_text()
    page = next((out / "skills").rglob("pdf.html")).read_text()
    assert "Same content as" in page
