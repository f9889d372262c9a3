"""The layers written in pyproject.toml hold, and the contract would catch a break."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

PACKAGE = ROOT / "scripts" / "exobrain"

pytest.importorskip("importlinter", reason="import-linter comes with the test extra")


def lint_imports(cwd: Path, package_parent: Path) -> subprocess.CompletedProcess:
    """Run the contracts of ``cwd/pyproject.toml`` over the package found in ``package_parent``."""
    script = Path(sys.executable).parent / "lint-imports"
    return subprocess.run(
        [str(script), "--config", str(cwd / "pyproject.toml"), "--no-cache"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": str(script.parent), "PYTHONPATH": str(package_parent), "HOME": str(cwd)},
        timeout=300,
    )


def test_the_contracts_hold():
    done = lint_imports(ROOT, PACKAGE.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    "module, line, contract",
    [
        ("connect/linker.py", "import exobrain.search.engine", "never reaches into search"),
        ("util/fileio.py", "from exobrain import registry", "cli -> families"),
        ("signals/ledger.py", "import exobrain.signals.quality", "no circles"),
    ],
)
def test_a_forbidden_import_in_a_copy_breaks_the_suite(tmp_path, module, line, contract):
    shutil.copytree(
        PACKAGE, tmp_path / "pkg" / "exobrain", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "pkg" / "exobrain" / module, "a", encoding="utf-8") as handle:
        handle.write(f"\n{line}  # added by the test\n")
    done = lint_imports(tmp_path, tmp_path / "pkg")
    assert done.returncode == 1, done.stdout
    broken = done.stdout.split("Broken contracts", 1)[1]
    assert contract in broken


def test_the_graph_has_no_circles_and_nothing_against_the_layers():
    from benchmarks.architecture import measure  # scripts/ is on the tests' path

    facts = measure()
    assert facts["circles"] == [] and facts["against_layers"] == []
    assert facts["modules"] > 100
    assert facts["package_top"] <= 16, "a new module belongs in a family package"
    assert facts["catalog_importers"] == []


#: The CLI's shared parts: the edge (errors, grammar, console entries), the progress display,
#: how one operation's result is shown (``*_output``), and the umbrella that loads the verbs.
CLI_SHARED = ("edge", "progress", "umbrella")


def test_no_command_module_imports_another():
    import grimp

    graph = grimp.build_graph("exobrain", cache_dir=None)
    found = []
    for module in sorted(graph.modules):
        if not module.startswith("exobrain.cli.") or module.endswith("umbrella"):
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            name = imported.removeprefix("exobrain.cli.")
            if imported.startswith("exobrain.cli.") and not (
                name in CLI_SHARED or name.endswith("_output")
            ):
                found.append(f"{module} -> {imported}")
    assert found == []
