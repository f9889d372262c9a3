"""The console scripts of the big-repository commands end with ``os._exit`` once their output
is flushed and the exit handlers ran (see ``cli/edge.py::ConsoleEntry``): what they print,
their exit codes and the exit handlers are those of an ordinary exit."""

from __future__ import annotations

import json
import subprocess
import sys

from click.testing import CliRunner

from exobrain.cli.status import main as status_cmd
from tests.support.helpers import exobrain

SKILLS = {f"global/tool-{n:03d}": None for n in range(300)}
ENTRIES = [{"name": f"tool-{n:03d}", "owner": "ops", "tier": "optional"} for n in range(300)]


def entry(module: str, *args: str, cwd, before: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``exobrain.cli.<module>:run`` (what the console script calls) in a new process."""
    code = (
        f"{before}import sys; sys.argv = ['{module}', *{list(args)!r}]; "
        f"from exobrain.cli.{module} import run; run()"
    )
    return subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_the_whole_output_arrives_and_matches_the_command_run_in_process(tmp_path):
    root = exobrain(tmp_path / "repo", {"global": ENTRIES}, skills=SKILLS)
    done = entry("status", "--all", "--json", cwd=root)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["skills"]) == 300  # the last byte was flushed
    inside = CliRunner().invoke(status_cmd, ["--all", "--json", "--repo", str(root)])
    assert json.loads(done.stdout) == json.loads(inside.stdout)


def test_exit_codes_and_errors_are_kept(tmp_path):
    root = exobrain(tmp_path / "repo", {"global": ENTRIES[:3]}, skills=SKILLS)
    assert entry("validate", cwd=root).returncode == 0
    (root / "skills.json").write_text('{"skills": [', encoding="utf-8")
    broken = entry("validate", cwd=root)
    assert broken.returncode == 2 and "skills.json" in broken.stdout + broken.stderr
    usage = entry("validate", "--no-such-option", cwd=root)
    assert usage.returncode == 2 and "No such option" in usage.stderr


def test_exit_handlers_still_run(tmp_path):
    root = exobrain(tmp_path / "repo", {"global": ENTRIES[:3]}, skills=SKILLS)
    before = "import atexit; atexit.register(lambda: print('handler ran', file=sys.stderr)); "
    done = entry("validate", cwd=root, before="import sys; " + before)
    assert done.returncode == 0 and done.stderr.rstrip().endswith("handler ran")
