#!/usr/bin/env bash
# Apply the self-test's safe fixes, then run the self-test again:
#   - relink every agent connected here (connect-agent AGENT --relink [--user]);
#   - install pre-commit's hook when .pre-commit-config.yaml exists and it is missing.
# Nothing else is touched: other failures need a decision and are only reported.
# Usage: repair.sh [REPO]   (default: the repository around the current folder)
set -u
repo="${1:-$(git rev-parse --show-toplevel 2>/dev/null || pwd)}"
# the interpreter the toolkit runs under (it has pre-commit when the test extra is installed)
python=$(head -n 1 "$(command -v exobrain)" 2>/dev/null | sed -n 's/^#!//p')
[ -x "${python%% *}" ] || python=$(command -v python3 || command -v python)
# -E -P: neither the current folder (a repository anyone may push to) nor an empty or relative
# PYTHONPATH entry shadows what Python imports (-E -P rather than -I: pre-commit may live in
# the user's site-packages)
"$python" -E -P - "$repo" <<'PY'
import json, subprocess, sys
from pathlib import Path

repo = Path(sys.argv[1])
connection = repo / ".exobrain.json"
data = json.loads(connection.read_text()) if connection.is_file() else {}
for agent in data.get("agents", []):
    subprocess.run(["connect-agent", agent, "--relink", "--quiet", "--repo", str(repo)])
for agent in data.get("user_agents", []):
    subprocess.run(["connect-agent", agent, "--relink", "--quiet", "--user", "--repo", str(repo)])
if (repo / ".pre-commit-config.yaml").is_file():
    hooks = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo,
                           capture_output=True, text=True).stdout.strip()
    hook = repo / hooks / "pre-commit"
    if not hook.is_file() or "pre-commit" not in hook.read_text(errors="replace"):
        subprocess.run([sys.executable, "-E", "-P", "-m", "pre_commit", "install"], cwd=repo)
PY
exec exobrain selftest --no-suite --repo "$repo"
