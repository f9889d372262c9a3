#!/usr/bin/env bash
# Orientation in one screen for an agent new to this exobrain: the connection, what reaches
# you, how many skills exist in all, whether the repository validates, and the agent docs.
# Read-only. Usage: orient.sh [REPO]   (default: the repository around the current folder)
set -u
repo="${1:-$(git rev-parse --show-toplevel 2>/dev/null || pwd)}"
if ! command -v skills-status >/dev/null 2>&1; then
    echo "the exobrain toolkit is not installed here: run  pip install -e .  in $repo" >&2
    exit 2
fi
echo "== exobrain at $repo"
echo
echo "== what reaches you (skills-status)"
skills-status --repo "$repo"
echo
echo "== everything declared (skills-status --all)"
skills-status --all --repo "$repo" --plain | cut -f1,2,4 | sed 's/^/  /'
echo "  $(skills-status --all --repo "$repo" --plain | grep -c .) declaration(s) in all"
echo
echo "== health (skills-validate)"
skills-validate --repo "$repo" | tail -n 1
echo
echo "== docs for agents"
if [ -d "$repo/knowledge/exobrain" ]; then
    for doc in "$repo"/knowledge/exobrain/*.md; do
        echo "  knowledge/exobrain/$(basename "$doc"): $(head -n 1 "$doc" | sed 's/^# //')"
    done
else
    echo "  (no knowledge/exobrain/ here)"
fi
