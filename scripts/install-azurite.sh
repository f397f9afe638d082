#!/usr/bin/env bash
# Install Azurite, the Azure Storage emulator the import/azure/blob and export/azure/blob tests start
# (tests/azurite.py), with npm into the user cache (about 186 MB), where the tests look for it:
#   ${MCV_AZURITE_DIR:-${XDG_CACHE_HOME:-~/.cache}/mcv-pipelines/azurite}/$AZURITE_VERSION
# A test-only server: never part of the image. Idempotent: an installed copy of the version is kept.
# Needs node and npm (scripts/install-engines.sh installs them when missing) and the npm registry.
set -euo pipefail

AZURITE_VERSION=3.37.0  # tests/azurite.py names the same version
root="${MCV_AZURITE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcv-pipelines/azurite}/$AZURITE_VERSION"
main="$root/node_modules/azurite/dist/src/blob/main.js"

if [ -f "$main" ]; then
    echo "install-azurite: azurite $AZURITE_VERSION already in $root"
    exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
    echo "install-azurite: npm is missing (scripts/install-engines.sh installs node and npm)" >&2
    exit 1
fi
mkdir -p "$root"
echo "install-azurite: installing azurite $AZURITE_VERSION into $root"
npm install --prefix "$root" --no-audit --no-fund --no-save --loglevel=error "azurite@$AZURITE_VERSION"
test -f "$main"
echo "install-azurite: done"
