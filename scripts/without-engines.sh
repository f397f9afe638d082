#!/usr/bin/env bash
# Runs a command on this machine as if no engine were installed, with stand-ins of engines' names first
# on PATH (a `convert` that is not ImageMagick, ...): the machine of a new user with only Python, where
# the README's commands must still be green (issue 39). Each engine program is hidden by mounting
# /dev/null over it in a mount namespace of the command's own; nothing outside it changes.
#   sudo scripts/without-engines.sh bash scripts/test.sh       (root: a mount namespace needs it)
set -euo pipefail
[ "$#" -gt 0 ] || { echo "usage: without-engines.sh COMMAND [ARG...]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "without-engines.sh: needs root for its mount namespace" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
standins=$(mktemp -d)
trap 'rm -rf "$standins"' EXIT
bash "$here/standins.sh" "$standins" >/dev/null
# The engines' programs (src/mcv_pipelines/service/engines/install_hints.py) and what they start.
programs="gs ffmpeg ffprobe convert identify magick gm qpdf pdftoppm pdftocairo pdftotext pdftohtml soffice
libreoffice soffice.bin heif-enc heif-convert heif-info cjxl djxl rsvg-convert potrace pandoc unar lsar xorriso
ebook-convert assimp ddjvu djvutxt mutool
extract_chmLib enum_chmLib chromium chromium-headless-shell chromium-browser google-chrome bwrap
dcraw_emu raw-identify simple_dcraw dcmj2pnm dcml2pnm dcm2pnm dcmdump gpsbabel pstoedit fig2dev hp2xx
fontforge"
hide=()
for name in $programs; do
    for path in $(type -ap "$name" 2>/dev/null) /usr/lib/libreoffice/program/soffice.bin \
        /usr/lib/chromium/chromium /usr/lib/chromium/chrome-headless-shell; do
        [ -e "$path" ] && hide+=("$(readlink -f "$path")")
    done
done
unshare --mount --propagation private -- sh -c '
    for path in "$@"; do case $path in --) shift; break;; esac; mount --bind /dev/null "$path"; shift; done
    exec "$@"' sh $(printf '%s\n' "${hide[@]}" | sort -u) -- env PATH="$standins:$PATH" "$@"
