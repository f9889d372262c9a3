"""The site in a real headless Chromium (tests/support/browser.py: how it is found and started).

One browser for the whole module. Sites: the real exobrain of tests/support/site_repo.py built
by ``exobrain site``, and the hand-written demo whose hostile skill puts script in every field.
Screenshots go to ``$EXOBRAIN_SITE_SCREENSHOTS`` when set, else to the test's temporary folder.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.browser import browser_required, browser_session, full_page_screenshot

try:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:  # pragma: no cover - depends on the machine
    if browser_required():
        raise
    pytest.skip(
        "browser tests skipped: selenium is not installed (pip install selenium)",
        allow_module_level=True,
    )

from benchmarks.site_data import synthetic_data
from exobrain.site.build import build_site
from exobrain.site.data import normalise
from exobrain.site.gather import gather
from exobrain.site.layout import skill_path
from exobrain.site.searchindex import build_index, rank
from exobrain.site.text import stem, tokenize
from exobrain.testkit import isolated_env
from exobrain.workspace import open_workspace
from tests.support.site_repo import SHARED

TITLE = "exo skills"


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One headless Chromium for the module, started with an isolated HOME."""
    env = isolated_env(tmp_path_factory.mktemp("browser-home"))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        with browser_session(tmp_path_factory.mktemp("chromium-profile")) as drv:
            yield drv


@pytest.fixture(scope="module")
def site(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("repo-site") / "site"
    build_site(gather(open_workspace(repo)), out)
    return out


@pytest.fixture(scope="module")
def http_base(site: Path) -> Iterator[str]:
    """The site served on 127.0.0.1 (an ephemeral port), as a static host would."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(site))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _url(site: Path, rel: str) -> str:
    return (site / rel).resolve().as_uri()


def _visible_names(drv: Any) -> list[str]:
    return drv.execute_script(
        "return Array.from(document.querySelectorAll('#catalog tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.querySelector('td.n a').textContent)"
    )


def _open_catalog(drv: Any, url: str) -> None:
    drv.get(url)
    WebDriverWait(drv, 10).until(
        lambda d: d.find_element(By.ID, "catalog").get_attribute("data-ready") == "1"
    )


def _until(drv: Any, names: list[str]) -> None:
    WebDriverWait(drv, 5).until(lambda d: _visible_names(d) == names)


@pytest.mark.parametrize("served", ["file", "http"])
def test_catalog_lists_the_expected_skills(driver: Any, site: Path, served: str, request) -> None:
    url = _url(site, "index.html") if served == "file" else request.getfixturevalue("http_base")
    _open_catalog(driver, url)
    assert _visible_names(driver) == SHARED
    assert driver.find_element(By.ID, "count").text == f"{len(SHARED)} skills"
    row = driver.find_element(By.XPATH, "//tr[td/a[text()='pdf-tools']]")
    cells = [c.text for c in row.find_elements(By.TAG_NAME, "td")]
    assert cells[2:7] == ["global", "alex", "always", "active", "1.0.0"]
    assert row.find_element(By.CSS_SELECTOR, "svg.spark polyline").get_attribute("points")
    assert float(row.find_element(By.CSS_SELECTOR, "svg.qbar rect.fg").get_attribute("width")) > 0


def test_typing_narrows_with_the_expected_first_hit(driver: Any, site: Path) -> None:
    _open_catalog(driver, _url(site, "index.html"))
    box = driver.find_element(By.ID, "q")
    box.send_keys("lig")  # still typing: the last word matches as a prefix
    _until(driver, ["ligand-dock"])
    box.clear()
    box.send_keys("release notes")
    WebDriverWait(driver, 5).until(lambda d: _visible_names(d)[:1] == ["release-notes"])
    assert len(_visible_names(driver)) < len(SHARED)
    assert "matching" in driver.find_element(By.ID, "count").text
    assert "q=release+notes" in driver.current_url  # the state is kept in the fragment
    box.clear()
    box.send_keys("extract text from a pdf ")  # a trigger phrase
    WebDriverWait(driver, 5).until(lambda d: _visible_names(d)[:1] == ["pdf-tools"])


def test_filters(driver: Any, site: Path) -> None:
    _open_catalog(driver, _url(site, "index.html"))
    Select(driver.find_element(By.ID, "f-tag")).select_by_value("ops")
    _until(driver, ["pdf-tools", "release-notes"])
    driver.find_element(By.ID, "reset").click()
    _until(driver, SHARED)
    Select(driver.find_element(By.ID, "f-scope")).select_by_value("teams/platform")
    _until(driver, ["changelog-writer", "hostile-content", "release-notes"])
    Select(driver.find_element(By.ID, "f-lifecycle")).select_by_value("deprecated")
    _until(driver, ["changelog-writer"])
    driver.find_element(By.ID, "reset").click()
    Select(driver.find_element(By.ID, "sort")).select_by_value("usage")
    WebDriverWait(driver, 5).until(lambda d: _visible_names(d)[0] == "pdf-tools")
    _open_catalog(driver, _url(site, "index.html") + "#persona=researcher")
    _until(driver, ["ligand-dock"])


def test_skill_page_body_lock_and_links(driver: Any, site: Path) -> None:
    driver.get(_url(site, "skills/global/pdf-tools.html"))
    assert driver.find_element(By.CSS_SELECTOR, "article.md h1").text == "PDF tools"
    assert "pdftotext" in driver.find_element(By.ID, "body").text
    assert driver.find_element(By.ID, "lock-state").text == "Lock state: locked"
    assert "scripts/extract.py" in driver.find_element(By.ID, "files").text
    driver.find_element(By.LINK_TEXT, "extract script").click()  # a body link to a file
    assert driver.current_url.endswith("#file-1")
    # incoming: ligand-dock uses pdf-tools; follow it, and its outgoing link back
    driver.find_element(By.CSS_SELECTOR, "#links dd.in-used_by a").click()
    WebDriverWait(driver, 5).until(lambda d: d.title.startswith("ligand-dock@groups/science"))
    driver.find_element(By.CSS_SELECTOR, "#links dd.out-uses_skill a").click()
    WebDriverWait(driver, 5).until(lambda d: d.title.startswith("pdf-tools@global"))
    driver.get(_url(site, "skills/teams.platform/release-notes.html"))
    assert driver.find_element(By.ID, "lock-state").text == "Lock state: drifted"
    driver.find_element(By.CSS_SELECTOR, "#links dd.out-supersedes a").click()
    WebDriverWait(driver, 5).until(lambda d: d.title.startswith("changelog-writer@"))
    assert driver.find_elements(By.CSS_SELECTOR, "#links dd.in-superseded_by a")
    driver.find_element(By.CSS_SELECTOR, ".crumbs a[href*='scopes/']").click()
    WebDriverWait(driver, 5).until(lambda d: d.title.startswith("teams/platform"))
    assert driver.find_element(By.ID, "chain").text == "global → teams/platform"


_ACTIVE_CONTENT_JS = """
const bad = [];
for (const el of document.querySelectorAll('*')) {
  for (const a of el.attributes) {
    if (a.name.startsWith('on')) bad.push(el.tagName + ' ' + a.name);
    if ((a.name === 'href' || a.name === 'src') &&
        /^\\s*(javascript|data|vbscript):/i.test(a.value))
      bad.push(el.tagName + ' ' + a.name + '=' + a.value);
  }
}
for (const s of document.scripts) {
  if (!s.src || !/\\/(assets\\/(search|catalog|page)\\.js|search-index\\.js)$/.test(s.src))
    bad.push('script ' + (s.src || s.textContent.slice(0, 40)));
}
for (const t of ['iframe', 'object', 'embed', 'img', 'base'])
  if (document.getElementsByTagName(t).length) bad.push(t);
return {pwned: window.__pwned === undefined ? null : window.__pwned, title: document.title, bad};
"""


def _runs_nothing(driver: Any, url: str, title: str) -> str:
    """Load ``url``, click every dead link, check that nothing ran; the body's text."""
    driver.get_log("browser")  # drop earlier messages
    driver.get(url)
    time.sleep(0.2)
    for el in driver.find_elements(By.CSS_SELECTOR, "article.md span.dead-link"):
        el.click()
    assert driver.execute_script(_ACTIVE_CONTENT_JS) == {"pwned": None, "title": title, "bad": []}
    logs = [e["message"] for e in driver.get_log("browser")]
    assert not [m for m in logs if "Content Security Policy" in m], logs  # nothing even tried
    found = driver.find_elements(By.ID, "body")
    return found[0].text if found else ""


def test_hostile_skill_runs_nothing(driver: Any, site: Path) -> None:
    text = _runs_nothing(
        driver,
        _url(site, "skills/teams.platform/hostile-content.html"),
        f"hostile-content@teams/platform · {TITLE}",
    )
    assert "<script>window.__pwned = 1;" in text  # shown as text, not run
    assert "[click me](javascript:window.__pwned=4)" in text
    _runs_nothing(driver, _url(site, "index.html"), TITLE)


@pytest.mark.parametrize(
    "rel,title",
    [
        ("skills/groups.sandbox/hostile-content.html", "hostile-content@groups/sandbox"),
        ("scopes/groups.sandbox.html", "groups/sandbox"),
    ],
)
def test_script_in_every_field_runs_nothing(
    driver: Any, demo_site: Path, rel: str, title: str
) -> None:
    _runs_nothing(driver, _url(demo_site, rel), f"{title} · Demo exobrain")


def test_csp_blocks_injected_inline_script(driver: Any, site: Path, tmp_path: Path) -> None:
    """Were escaping ever bypassed, the page's CSP would still stop inline code."""
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    page = copy / "skills/global/pdf-tools.html"
    page.write_text(
        page.read_text().replace(
            "</main>",
            "<script>window.__pwned=1;document.title='PWNED'</script>"
            "<p id='x' onclick=\"window.__pwned=2\">x</p>"
            "<a id='j' href=\"javascript:window.__pwned=3\">j</a></main>",
        )
    )
    driver.get_log("browser")
    driver.get(page.as_uri())
    driver.find_element(By.ID, "x").click()
    driver.find_element(By.ID, "j").click()
    time.sleep(0.2)
    assert driver.execute_script("return [window.__pwned === undefined, document.title]") == [
        True,
        f"pdf-tools@global · {TITLE}",
    ]
    assert "Content Security Policy" in " ".join(e["message"] for e in driver.get_log("browser"))
    driver.get((copy / "index.html").as_uri())  # the site's own scripts run under it
    assert driver.execute_script("return typeof window.ExoSearch.rank") == "function"


def test_tokenizer_stemmer_and_ranking_match_python(driver: Any, tmp_path: Path) -> None:
    data = synthetic_data(300, seed=11)
    data["skills"][0]["description"] += " Café naïve ÉCOLE queries classes statuses v2s ５Ｇ"
    out = tmp_path / "s"
    build_site(data, out)
    _open_catalog(driver, (out / "index.html").as_uri())
    text = " ".join(s["description"] + " " + s["body"] for s in data["skills"][:40])
    js = driver.execute_script(
        "const t = ExoSearch.tokens(arguments[0]); return [t, t.map(ExoSearch.stem)];", text
    )
    assert js[0] == tokenize(text)
    assert js[1] == [stem(t) for t in tokenize(text)]
    cat = normalise(data)
    index = build_index(cat, [skill_path(s) for s in cat.skills])
    for query in ["data report", "deploy the service", "ligand pocket dock", "qua", "tag3"]:
        for prefix in (False, True):
            want = [r for r, _ in rank(index, query, prefix)][:15]
            got = driver.execute_script(
                "return ExoSearch.rank(window.EXO_SEARCH_INDEX, arguments[0], arguments[1])"
                ".slice(0, 15).map(h => h.ref)",
                query,
                prefix,
            )
            assert got == want, (query, prefix)


def test_large_catalog_shows_a_page_of_rows_at_a_time(driver: Any, tmp_path: Path) -> None:
    out = tmp_path / "big"
    build_site(synthetic_data(450), out, jobs=1)
    _open_catalog(driver, (out / "index.html").as_uri())
    table = driver.find_element(By.ID, "catalog")
    shown = int(table.get_attribute("data-shown"))
    assert shown == 450
    assert table.get_attribute("data-displayed") == "100" == str(len(_visible_names(driver)))
    driver.find_element(By.ID, "more").click()
    assert table.get_attribute("data-displayed") == "200"
    driver.find_element(By.ID, "all").click()
    assert table.get_attribute("data-displayed") == str(shown)
    assert driver.find_element(By.ID, "more").is_displayed() is False


def test_screenshots(driver: Any, site: Path, tmp_path: Path) -> None:
    folder = Path(os.environ.get("EXOBRAIN_SITE_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shots = {
        "catalog.png": "index.html",
        "skill-pdf-tools.png": "skills/global/pdf-tools.html",
        "skill-hostile-content.png": "skills/teams.platform/hostile-content.html",
    }
    for name, rel in shots.items():
        driver.get(_url(site, rel))
        full_page_screenshot(driver, folder / name)
        assert (folder / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"\nscreenshots in {folder}")
