"""The README and the agent-facing docs stay true to the code."""

import re
import subprocess
import tomllib
from pathlib import Path

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


def test_readme_stays_short():
    # the README is the front page; the reference lives in knowledge/exobrain/
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 220, f"README.md: {len(lines)} lines; move detail to knowledge/exobrain/"


_PACKAGE_TABLE_HEAD = "| package | what it owns |"
_CORE_ROW = re.compile(r"^`scripts/exobrain/\*\.py` \(([^)]*)\)$")
_PACKAGE_ROW = re.compile(r"^`scripts/exobrain/([A-Za-z0-9_]+)/`$")
_OWN_ROW = "`scripts/exobrain/testkit.py`"


def package_table_problems(root: Path, text: str) -> list[str]:
    """What the file map's package table says that the tree of ``scripts/exobrain/`` at
    ``root`` does not: one row per package (a folder with ``__init__.py``), the core row
    naming exactly the top-level modules, and the row of ``testkit.py``."""
    section = text.split("## File map", 1)[1]
    if _PACKAGE_TABLE_HEAD not in section:
        return ["no package table in the file map"]
    table = section.split(_PACKAGE_TABLE_HEAD, 1)[1].splitlines()[2:]  # after |---|---|
    cells = []
    for line in table:
        if not line.startswith("|"):
            break
        cells.append(re.match(r"^\| (.+?) \| ", line).group(1))
    package_dir = root / "scripts" / "exobrain"
    packages = sorted(
        d.name
        for d in package_dir.iterdir()
        if d.is_dir() and d.name != "__pycache__" and (d / "__init__.py").is_file()
    )
    modules = sorted(
        f.stem for f in package_dir.glob("*.py") if f.name not in {"__init__.py", "testkit.py"}
    )
    found, rows, core = [], [], None
    for cell in cells:
        if (match := _CORE_ROW.match(cell)) is not None:
            if core is not None:
                found.append("two core rows")
            core = re.findall(r"`([^`]+)`", match.group(1))
        elif (match := _PACKAGE_ROW.match(cell)) is not None:
            rows.append(match.group(1))
        elif cell != _OWN_ROW:
            found.append(f"a row that is neither the core, a package nor testkit.py: {cell}")
    if _OWN_ROW not in cells:
        found.append("no row for `scripts/exobrain/testkit.py`")
    found += [f"package {p}/ has no row" for p in packages if p not in rows]
    found += [f"row {p}/ names no package" for p in dict.fromkeys(rows) if p not in packages]
    found += [f"package {p}/ has {rows.count(p)} rows" for p in packages if rows.count(p) > 1]
    if core is None:
        found.append("no core row `scripts/exobrain/*.py` (the core: `module`, …)")
    else:
        found += [f"the core row misses {m}.py" for m in modules if m not in core]
        found += [f"the core row names {m}, not a module" for m in core if m not in modules]
        found += [f"the core row names {m} twice" for m in modules if core.count(m) > 1]
    return found


def test_file_map_has_one_row_per_package():
    text = (ROOT / "knowledge/exobrain/skills.md").read_text()
    assert package_table_problems(ROOT, text) == []


def test_the_package_table_check_catches_what_is_wrong(tmp_path):
    package_dir = tmp_path / "scripts" / "exobrain"
    for package in ("util", "gate", "newfamily"):
        (package_dir / package).mkdir(parents=True)
        (package_dir / package / "__init__.py").write_text("")
    (package_dir / "__pycache__").mkdir()  # not a package
    (package_dir / "schemas").mkdir()  # data, not a package
    for module in ("__init__", "testkit", "model", "scopes", "fresh"):
        (package_dir / f"{module}.py").write_text("")
    text = (
        "## File map\n\n| package | what it owns |\n|---|---|\n"
        "| `scripts/exobrain/*.py` (the core: `model`, `scopes`, `gone`) | the core |\n"
        "| `scripts/exobrain/util/` | infrastructure |\n"
        "| `scripts/exobrain/gate/` | the gate |\n"
        "| `scripts/exobrain/gate/` | the gate again |\n"
        "| `scripts/exobrain/oldfamily/` | moved away |\n"
        "| `scripts/exobrain/testkit.py` | the tests' environment |\n"
        "\nMore text.\n"
    )
    assert package_table_problems(tmp_path, text) == [
        "package newfamily/ has no row",
        "row oldfamily/ names no package",
        "package gate/ has 2 rows",
        "the core row misses fresh.py",
        "the core row names gone, not a module",
    ]


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


def test_the_state_doc_shows_the_table_of_caches():
    """knowledge/exobrain/state.md has exactly the rows of exobrain.caches.TABLE, and each
    reader's folder and version are the table's."""
    from exobrain import caches
    from exobrain.catalog import kept, memo
    from exobrain.connect import trust
    from exobrain.search import background, indexfiles, vectors
    from exobrain.signals import cache as signal_cache
    from exobrain.sparse import committed, treecache
    from exobrain.util import ownership

    text = (ROOT / "knowledge/exobrain/state.md").read_text()
    rows = [
        [cell.strip() for cell in line.strip("|").split(" | ")]
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    assert rows == caches.table_rows()
    assert (caches.TREE.folder, caches.TREE.version) == (treecache.FOLDER, treecache.CACHE_VERSION)
    assert caches.COMMITTED.folder == committed.COPIES
    assert caches.CATALOG.folder == memo.MEMO_FOLDER and kept.FOLDER.startswith(memo.MEMO_FOLDER)
    assert caches.SEARCH.folder == indexfiles.INDEX_FILE and vectors.VECTORS_DIR == "vectors"
    assert background.LOG_FILE.startswith(caches.INDEX_BUILD.folder)
    assert signal_cache.FORMAT[0] == caches.SIGNALS.version
    assert caches.TRUST.folder == trust.TRUST_FILE
    assert caches.OWNED.version == ownership.RECORD_VERSION
