"""The site builder without a browser: layout, safety, links, search, output folder, determinism."""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from benchmarks.site_data import synthetic_data
from exobrain.errors import UsageError
from exobrain.site.build import build_site
from exobrain.site.data import normalise
from exobrain.site.layout import skill_path
from exobrain.site.linkcheck import check_site
from exobrain.site.manifest import MARKER
from exobrain.site.searchindex import build_index, rank
from exobrain.site.skeleton import CSP
from exobrain.site.text import slug, stem, terms
from tests.support.site_demo import demo_data


class _Scan(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.csp = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy":
            self.csp = a.get("content") == CSP
        if tag in ("iframe", "object", "embed", "img", "base") or (
            tag == "form" and a.get("id") != "controls"
        ):
            self.problems.append(f"<{tag}>")
        if tag == "script" and not a.get("src"):
            self.problems.append("inline <script>")
        for k, v in attrs:
            if k.startswith("on") or k == "style":
                self.problems.append(f"attribute {k}")
            if (
                k in ("href", "src")
                and v
                and v.strip().lower().startswith(("javascript:", "data:", "vbscript:"))
            ):
                self.problems.append(f"{k}={v!r}")

    def handle_data(self, data: str) -> None:
        pass


def _scan(path: Path) -> _Scan:
    s = _Scan()
    s.feed(path.read_text(encoding="utf-8"))
    return s


def test_demo_site_layout(demo_site: Path) -> None:
    for rel in (
        "index.html",
        "scopes.html",
        "search-index.js",
        "assets/site.css",
        "skills/global/pdf-tools.html",
        "scopes/teams.platform.html",
        "scopes/groups.eng.html",
        MARKER,
    ):
        assert (demo_site / rel).is_file(), rel


def test_every_page_has_the_csp_and_nothing_active(demo_site: Path) -> None:
    pages = sorted(demo_site.rglob("*.html"))
    assert len(pages) == 18
    for page in pages:
        scan = _scan(page)
        assert scan.csp, f"{page}: CSP meta tag missing or different"
        assert scan.problems == [], f"{page}: {scan.problems}"


def test_hostile_strings_are_escaped_everywhere(demo_site: Path) -> None:
    for page in demo_site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script>window" not in text and "<script>document" not in text, page
        assert 'onerror="' not in text and "<svg onload" not in text, page


def test_links_all_resolve(demo_site: Path) -> None:
    report = check_site(demo_site)
    assert report.pages == 18 and report.checked > 150
    assert report.problems == []
    assert report.external == {"https://example.org/docs", "https://example.org/pdf"}


def test_links_resolve_on_a_synthetic_catalog(tmp_path: Path) -> None:
    build_site(synthetic_data(150), tmp_path / "s")
    report = check_site(tmp_path / "s")
    assert report.problems == []
    index = json.loads(
        (tmp_path / "s/search-index.js").read_text().split("=", 1)[1].rstrip().rstrip(";")
    )
    assert all((tmp_path / "s" / d[1]).is_file() for d in index["d"])


def test_link_checker_finds_breakage(demo_site: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(demo_site, copy)
    (copy / "skills/groups.data/csv-clean.html").unlink()
    page = copy / "index.html"
    page.write_text(page.read_text().replace("</main>", '<a href="#nowhere">x</a></main>'))
    problems = check_site(copy).problems
    assert any("csv-clean.html" in p and "no such file" in p for p in problems)
    assert any("nowhere" in p for p in problems)


def test_skill_page_content(demo_site: Path) -> None:
    text = (demo_site / "skills/global/pdf-tools.html").read_text()
    assert 'href="#file-1"' in text and 'id="file-1"' in text  # body → files table
    assert 'href="../../skills/groups.data/csv-clean.html"' in text  # skill: link
    assert 'href="#md-steps"' in text and 'id="md-steps"' in text  # heading anchor
    assert "skills-promote pdf-tools --from global --to always" in text
    incoming = (demo_site / "skills/groups.data/csv-clean.html").read_text()
    assert "Used by" in incoming and "pdf-tools@global" in incoming
    old = (demo_site / "skills/teams.platform/changelog-writer.html").read_text()
    assert "Superseded by" in old and "release-notes@teams.platform" not in old
    assert 'href="../../skills/teams.platform/release-notes.html"' in old


def test_search_ranking_reference() -> None:
    cat = normalise(demo_data())
    index = build_index(cat, [skill_path(s) for s in cat.skills])
    assert rank(index, "ligand")[0][0] == "ligand-dock@groups/science"
    assert rank(index, "release notes")[0][0] == "release-notes@teams/platform"
    assert rank(index, "lig", prefix_last=True)[0][0] == "ligand-dock@groups/science"
    assert rank(index, "extract text from a pdf")[0][0] == "pdf-tools@global"
    assert rank(index, "lig") == []  # no prefix: no hit
    assert rank(index, "") == [] and rank(index, "?! …") == []  # no words, no hit
    assert rank(index, "the of and")  # only stopwords: searched as they are (exobrain search)
    # name boost: "clean" is in csv-clean's name and in Odd Name's description only
    refs = [r for r, _ in rank(index, "clean")]
    assert refs.index("csv-clean@groups/data") == 0


def test_name_and_trigger_boosts() -> None:
    base = {"description": "x", "quality": 0.5, "body": "filler words here"}
    data = {
        "skills": [
            {"name": "alpha-zeta", "home": "g", **base},
            {"name": "beta", "home": "g", **base, "triggers": ["zeta"]},
            {"name": "gamma", "home": "g", **base, "body": "zeta filler words"},
            {"name": "delta", "home": "g", **base},
            {"name": "eps", "home": "g", **base},
        ]
    }
    cat = normalise(data)
    refs = [r for r, _ in rank(build_index(cat, [""] * 5), "zeta")]
    assert refs == ["alpha-zeta@g", "beta@g", "gamma@g"]


def test_stemmer_examples() -> None:
    assert [stem(w) for w in ("docking", "docked", "docks", "dock")] == ["dock"] * 4
    assert stem("queries") == stem("query") == "query"
    assert stem("release") == stem("released") == stem("releasing")
    assert stem("class") == "class" and stem("status") == "status" and stem("v2s") == "v2s"
    assert terms("Café-Notes, PDF2TXT!") == ["café", "not", "pdf2txt"]


def test_slugs_are_safe_and_distinct() -> None:
    names = ["groups/ml", "groups.ml", "Groups/ml", "a b", "a-b", "x/../y", "ü", "", "index"]
    slugs = [slug(n) for n in names]
    assert len(set(slugs)) == len(slugs)
    assert slug("groups/ml") == "groups.ml" and slug("a-b") == "a-b"
    assert all(s and all(c.isalnum() or c in "._-" for c in s) and s.isascii() for s in slugs)


@pytest.mark.parametrize(
    "bad,where",
    [
        ({"skills": [{"name": "a"}]}, "skills[0].home"),
        ({"skills": [{"name": "a", "home": "g", "quality": 2}]}, "skills[0].quality"),
        ({"skills": [{"name": "a", "home": "g", "quality": True}]}, "skills[0].quality"),
        ({"skills": [{"name": "a", "home": "g"}, {"name": "a", "home": "g"}]}, "a@g appears twice"),
        (
            {"skills": [{"name": "a", "home": "g", "links": [{"type": "x", "target": "b"}]}]},
            "skills[0].links[0]",
        ),
        ({"skills": [{"name": "a", "home": "g", "tags": "ops"}]}, "skills[0].tags"),
        ({"skills": "nope"}, "data"),
    ],
)
def test_bad_data_is_refused(bad: dict, where: str) -> None:
    with pytest.raises(ValueError, match=where.replace("[", r"\[").replace("]", r"\]")):
        normalise(bad)


def test_out_dir_safety(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    with pytest.raises(UsageError, match="not empty"):
        build_site(demo_data(), tmp_path)
    assert (tmp_path / "precious.txt").read_text() == "keep me"
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(UsageError, match="not a folder"):
        build_site(demo_data(), tmp_path / "a-file")
    out = tmp_path / "site"
    build_site(demo_data(), out)
    (out / "notes.html").write_text("mine")  # the user's: kept, and said so
    data = demo_data()
    data["skills"] = data["skills"][:2]
    update = build_site(data, out)
    assert (out / "notes.html").read_text() == "mine"
    assert [(k.path, k.why) for k in update.kept] == [
        ("notes.html", "not written by exobrain site")
    ]
    assert "skills/groups.science/ligand-dock.html" in update.removed
    assert not (out / "skills/groups.science/ligand-dock.html").exists()
    assert all((out / f).is_file() for f in update.files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "precious.txt", "site"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == [
        MARKER,
        ".well-known",
    ]


def test_parallel_build_is_identical_to_serial(tmp_path: Path) -> None:
    data = synthetic_data(320, seed=3)
    a = build_site(data, tmp_path / "a", jobs=1).files
    b = build_site(data, tmp_path / "b", jobs=2).files
    assert a == b
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "a", tmp_path / "b", a, shallow=False)
    assert mismatch == [] and errors == [] and len(match) == len(a)


def test_output_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Two processes with different PYTHONHASHSEED write byte-identical sites."""
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
        "from exobrain.site.build import build_site; "
        "from benchmarks.site_data import synthetic_data; "
        "build_site(synthetic_data(120, seed=5), Path(sys.argv[2]), jobs=1)"
    )
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [sys.executable, "-c", code, str(scripts), str(tmp_path / seed)], check=True, env=env
        )
    rel = sorted(
        str(p.relative_to(tmp_path / "1")) for p in (tmp_path / "1").rglob("*") if p.is_file()
    )
    match, mismatch, errors = filecmp.cmpfiles(tmp_path / "1", tmp_path / "2", rel, shallow=False)
    assert mismatch == [] and errors == [] and len(match) == len(rel)
