#!/usr/bin/env bash
# Serves the documentation site on http://127.0.0.1:8000 with live reload (mkdocs serve), or, with
# `build`, builds it strictly into site/ as CI does. Sets up .venv like scripts/test.sh when needed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/mkdocs ]; then
    [ -x .venv/bin/python ] || python3 -m venv .venv
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
fi
export NO_MKDOCS_2_WARNING=1
if [ "${1:-serve}" = "build" ]; then
    exec .venv/bin/mkdocs build --strict --quiet
fi
exec .venv/bin/mkdocs serve --strict --dev-addr 127.0.0.1:8000
