"""Issue 17, item 4: create-instance's printed next step works exactly as printed in a new
virtual environment — the git hooks connect-agent installed name the environment that made the
instance, which still exists, so selftest's agents and hooks checks pass from the new one."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

BIN = Path(sys.executable).parent


@pytest.mark.slow
def test_the_printed_next_step_passes_in_a_new_virtual_environment(tmp_path):
    made = subprocess.run(
        [
            str(BIN / "exobrain"),
            "create-instance",
            str(tmp_path / "mine"),
            "--person",
            "p",
            "--host",
            "h",
            "--agent",
            "claude",
            "--repo",
            str(ROOT),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert made.returncode == 0, made.stdout + made.stderr
    [next_step] = re.findall(r"^next: (.+)$", made.stdout, re.M)
    assert next_step == f"cd {tmp_path / 'mine'} && pip install -e '.[test]' && exobrain selftest"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    _share_installed_packages(venv)
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",  # as if activated
        "VIRTUAL_ENV": str(venv),
        # the instance's own suite is the framework's, run in full elsewhere: one test file
        # of it here keeps this test to seconds (the command line is the printed one)
        "PYTEST_ADDOPTS": "-k test_frontmatter",
    }
    done = subprocess.run(
        ["bash", "-c", next_step],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1200,
    )
    if "Successfully installed" not in done.stdout and "pip" in done.stderr.lower():
        pytest.skip(f"pip could not install the test extra here: {done.stderr[-300:]}")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    for check in ("agents", "git-hooks", "locks", "docs", "skills-validate"):
        assert re.search(rf"^PASS  {check} ", done.stdout, re.M), (check, done.stdout[-2000:])
    assert re.search(r"^SKIP  test-suite +not run: .* never trusted", done.stdout, re.M)
    done = subprocess.run(  # the person reads the suite, then trusts it
        ["bash", "-c", "exobrain trust --suite && exobrain selftest"],
        cwd=tmp_path / "mine",
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1200,
    )
    assert re.search(r"^PASS  test-suite ", done.stdout, re.M), done.stdout[-2000:]
    assert "would replace hook" not in done.stdout
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import exobrain; print(exobrain.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tmp_path,
    )
    assert where.stdout.startswith(str(tmp_path / "mine")), where.stdout  # the instance's own


def _share_installed_packages(venv: Path) -> None:
    """Make the packages of this suite's environment visible in ``venv`` (a ``.pth`` file), so
    the step's pip finds the requirements installed and installs the instance itself instead of
    downloading them all again: a new environment still, one that did not make the instance."""
    mine = next(p for p in map(Path, sys.path) if p.name == "site-packages" and p.is_dir())
    [theirs] = (venv / "lib").glob("python*/site-packages")
    (theirs / "suite-packages.pth").write_text(f"{mine}\n")
