#!/usr/bin/env bash
# Sets up .venv (once) and runs every check CI runs: ruff, mypy strict on src/, the tests.
#
#   bash scripts/test.sh              everything, the tests spread over worker processes (pytest-xdist)
#   bash scripts/test.sh --quick      ruff, mypy and the tests that need no server, engine or browser
#                                     (tests/unit and tests/examples less those): 80 s on 2 cores
#   bash scripts/test.sh --no-checks  the tests alone, without ruff and mypy (.ci/run's second pass)
#   bash scripts/test.sh ARGS...      pytest's own arguments, as pytest takes them: a file, -k NAME,
#                                     -m MARKER, -x, --lf ...; -n 0 runs the tests one at a time
#
# The suite mostly waits (servers starting, programs converting, a browser rendering), so it runs more
# workers than cores: MCV_TEST_WORKERS sets how many (default 2 a core, at least 2). mypy checks src/
# while the tests run; its verdict is printed after theirs, and either failing fails the command.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'

quick=() checks=1
case "${1:-}" in
    --quick)
        shift
        # The quick set: what a change to one module is first checked with. Every test left out here
        # still runs in the full command; a `-m` given after --quick replaces this one.
        quick=(tests/unit tests/examples -m "not engines and not slow")
        ;;
    --no-checks) shift; checks=0 ;;
esac

if [ "$checks" = 1 ]; then
    echo "== ruff"
    .venv/bin/ruff check src tests bench
fi

# Workers, and files handed to them whole (what a file's tests share, a warm engine or a server, starts
# once) in the order tests/suite_order.py sets, slowest first; unless the arguments say otherwise.
workers=(-n "${MCV_TEST_WORKERS:-$(( $(nproc) * 2 > 2 ? $(nproc) * 2 : 2 ))}")
order=(--dist loadfile --no-loadscope-reorder)
for arg in "$@"; do
    case "$arg" in
        -n|-n[0-9]*|--numprocesses|--numprocesses=*) workers=() ;;
        --dist|--dist=*|-d) order=() ;;
        no:xdist|-pno:xdist) workers=() order=() ;;
    esac
done

mypy_log=$(mktemp)
trap 'rm -f "$mypy_log"' EXIT
if [ "$checks" = 1 ]; then
    .venv/bin/mypy >"$mypy_log" 2>&1 &
    mypy_pid=$!
fi

echo "== pytest"
pytest_status=0
.venv/bin/pytest "${workers[@]}" "${order[@]}" "${quick[@]}" "$@" || pytest_status=$?

mypy_status=0
if [ "$checks" = 1 ]; then
    echo "== mypy (strict, src/)"
    wait "$mypy_pid" || mypy_status=$?
    cat "$mypy_log"
fi
if [ "$pytest_status" != 0 ]; then
    exit "$pytest_status"
fi
exit "$mypy_status"
