"""exobrain import from git repositories, through the fetcher's cache, with a local bare
repository served over file:// as the remote."""

import json

import pytest
from click.testing import CliRunner

from exobrain.cli.umbrella import main as exobrain_cli
from exobrain.skillmd import read_skill
from exobrain.util.dirhash import content_hash
from tests.support.bundles import lock_of, snapshot, target_repo
from tests.support.upstream import Upstream, two_skills


def run(root, *args):
    result = CliRunner().invoke(exobrain_cli, [*args, "--repo", str(root)])
    return result.exit_code, result.stdout + result.stderr


@pytest.fixture
def up(tmp_path):
    return Upstream(tmp_path, two_skills())


def test_local_repositories_need_allow_local(tmp_path, up):
    root = target_repo(tmp_path)
    before = snapshot(root)
    code, out = run(root, "import", up.url, "--path", "skills", "--all")
    assert code == 1 and "local sources are off by default" in out
    assert snapshot(root) == before


def test_import_from_git_records_the_commit_and_updates_from_it(tmp_path, up, isolated_home):
    root = target_repo(tmp_path)
    code, out = run(
        root, "import", up.url, "--path", "skills", "--ref", "main", "--all", "--allow-local"
    )
    assert code == 0, out
    folder = root / "people/al/skills/pdf"
    assert (folder / "scripts/fill.py").read_text() == "print('fill')\n"
    assert not (root / "people/al/skills/other").exists()
    meta = read_skill(folder / "SKILL.md").meta
    assert meta["source_url"] == "local:up.git/skills/pdf"  # a file:// repository
    record = lock_of(root, "people/al")["pdf"]["upstream"]
    assert record == {
        **record,
        "kind": "git",
        "url": "local",  # a file:// repository: only this machine knows where
        "base": "skills",
        "path": "skills/pdf",
        "ref": "main",
        "commit": up.head(),
        "hash": content_hash(up.work / "skills/pdf"),
    }
    caches = list((isolated_home / ".cache/exobrain/git").glob("*.git"))
    assert len(caches) == 1  # one cached partial clone serves the whole import
    # unchanged upstream: nothing; a new commit touching pdf: pdf updated, doc untouched
    before = snapshot(root)
    assert "up to date" in run(root, "import", "--update", "pdf", "--allow-local")[1]
    assert snapshot(root) == before
    new_head = up.commit({"skills/pdf/scripts/fill.py": "print('fill v2')\n"})
    code, out = run(root, "import", "--update", "pdf", "--allow-local")
    assert code == 0 and "0.1.0 → 0.1.1" in out
    assert (folder / "scripts/fill.py").read_text() == "print('fill v2')\n"
    assert lock_of(root, "people/al")["pdf"]["upstream"]["commit"] == new_head
    assert "up to date" in run(root, "import", "--update", "doc", "--allow-local")[1]


def test_repository_setting_allows_local_and_pins_a_commit(tmp_path, up):
    first = up.head()
    up.commit({"skills/doc/extra.md": "later\n"})
    root = target_repo(tmp_path, external_skills={"allow_local": True})
    code, out = run(root, "import", up.url, "--path", "skills/doc", "--ref", first)
    assert code == 0, out
    assert not (root / "people/al/skills/doc/extra.md").exists()
    assert lock_of(root, "people/al")["doc"]["upstream"]["commit"] == first
    code, out = run(
        root, "import", up.url, "--path", "skills/doc", "--ref", "nope", "--name", "doc2"
    )
    assert code == 1 and "no branch or tag 'nope'" in out
    data = json.loads(
        CliRunner()
        .invoke(
            exobrain_cli,
            [
                "import",
                up.url,
                "--path",
                "skills/doc",
                "--name",
                "doc-head",
                "--json",
                "--repo",
                str(root),
            ],
        )
        .stdout
    )
    assert data["skills"][0]["status"] == "imported"
    assert (root / "people/al/skills/doc-head/extra.md").exists()  # HEAD by default


def test_an_import_from_a_local_checkout_records_its_remote_and_commit(tmp_path):
    """Provenance that travels: a local clone of a shared repository is recorded as that
    repository at the clone's commit (no machine path in the committed lock); a folder with
    no shared remote is recorded as it is, with a note saying a colleague cannot update it."""
    import json

    from click.testing import CliRunner

    from exobrain.cli.umbrella import main
    from tests.support.helpers import build_tree, exobrain, git, skill_md

    root = exobrain(tmp_path / "repo", scopes=["people/dana"])
    clone = tmp_path / "checkout"
    build_tree(clone, {"skills/pdf/SKILL.md": skill_md("pdf", "Use pdf to merge PDF forms.")})
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "pdf")
    git(clone, "remote", "add", "origin", "https://example.com/acme/skills.git")
    head = git(clone, "rev-parse", "HEAD").strip()
    args = ["import", str(clone / "skills/pdf"), "--into", "people/dana", "--owner", "dana"]
    done = CliRunner().invoke(main, [*args, "--repo", str(root)])
    assert done.exit_code == 0, done.output
    lock = json.loads((root / "people/dana/skills.lock.json").read_text())
    upstream = lock["skills"]["pdf"]["upstream"]
    assert (upstream["kind"], upstream["url"], upstream["path"], upstream["commit"]) == (
        "git",
        "https://example.com/acme/skills.git",
        "skills/pdf",
        head,
    )
    assert str(tmp_path) not in (root / "people/dana/skills.lock.json").read_text()
    git(clone, "remote", "remove", "origin")
    again = CliRunner().invoke(
        main, [*args, "--name", "pdf2", "--repo", str(root)], catch_exceptions=False
    )
    assert again.exit_code == 0, again.output
    assert "a local source, which the lock does not name" in again.stdout
