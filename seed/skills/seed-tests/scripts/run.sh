#!/usr/bin/env bash
# Render a throwaway instance of this seed and self-test it (the seed-tests skill).
# Usage: run.sh [--full] [--keep]
#   --full  run the instance's whole test suite (default: tests/cli/test_docs.py and skills)
#   --keep  keep the instance and print where it is
set -euo pipefail
full=0
keep=0
for arg in "$@"; do
    case "$arg" in
        --full) full=1 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "run.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
    esac
done
seed=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
# the instance's suite is this seed's code, rendered: it runs only when the seed's is trusted
if ! exobrain trust --suite --check --repo "$seed" >/dev/null; then
    echo "run.sh: the seed's test suite is not trusted on this machine; read it, then run" \
        "exobrain trust --suite --repo $seed" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/seed-tests.XXXXXX")
instance="$work/instance"
finish() {
    if [ "$keep" = 1 ]; then echo "instance kept at $instance"; else rm -rf "$work"; fi
}
trap finish EXIT
exobrain create-instance "$instance" --person seed-test --host ci --agent claude --repo "$seed"
exobrain trust --suite --repo "$instance" >/dev/null
if [ "$full" = 1 ]; then
    exobrain selftest --repo "$instance"
else
    exobrain selftest --suite tests/cli/test_docs.py --suite skills --repo "$instance"
fi
