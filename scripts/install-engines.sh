#!/usr/bin/env bash
# Install the Debian packages the local engines call (ffmpeg, ImageMagick, GraphicsMagick, Ghostscript,
# qpdf, poppler, LibreOffice, Chromium, a font), openssl (the client's TLS tests make a certificate with
# it) and the servers and runtimes the tests start (PostgreSQL for the team service, node and npm for the
# official Node SDK), and zsh and fish (the completion scripts are tested in each shell; bash is there
# already). Non-interactive and idempotent: packages already installed are skipped, and
# apt-get update runs only when something is missing.
set -euo pipefail

PACKAGES=(
    ffmpeg
    imagemagick
    graphicsmagick
    ghostscript
    qpdf
    poppler-utils
    libreoffice-writer-nogui
    libreoffice-calc-nogui
    libreoffice-impress-nogui
    chromium
    fonts-dejavu-core
    fontconfig
    postgresql
    openssl
    zsh
    fish
)
# node and npm only when no node is on PATH (a machine may have a newer one of its own).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    PACKAGES+=(nodejs npm)
fi

if [ "$(id -u)" != "0" ]; then
    echo "install-engines: needs root (apt-get)" >&2
    exit 1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$pkg")
    fi
done

if [ "${#missing[@]}" -eq 0 ]; then
    echo "install-engines: all ${#PACKAGES[@]} packages already installed"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
echo "install-engines: installing ${missing[*]}"
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-engines: done"
