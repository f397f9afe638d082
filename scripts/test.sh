#!/usr/bin/env bash
# Sets up .venv (once) and runs every check CI runs: ruff, mypy strict on src/, the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
echo "== ruff"
.venv/bin/ruff check src tests bench
echo "== mypy (strict, src/)"
.venv/bin/mypy
echo "== pytest"
.venv/bin/pytest "$@"
