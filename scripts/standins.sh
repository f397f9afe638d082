#!/usr/bin/env bash
# Writes stand-ins into DIR: programs named like engines that are not those engines, as users' machines
# have them (GraphicsMagick's compatibility `convert`, a `soffice` shim, a wrapper named `ffmpeg`, a
# `chromium` that is something else). With DIR first on PATH every engine test must pass or skip with
# its reason (issue 39); .ci/run runs the engine tests once that way.
set -euo pipefail
dir=${1:?usage: standins.sh DIR}
mkdir -p "$dir"
stand_in() {  # NAME, then the lines it prints whatever it is asked; it exits 0, as the worst ones do
    local name=$1
    shift
    printf '#!/bin/sh\n' >"$dir/$name"
    for line in "$@"; do printf "echo '%s'\n" "$line" >>"$dir/$name"; done
    printf 'exit 0\n' >>"$dir/$name"
    chmod +x "$dir/$name"
}
stand_in convert "GraphicsMagick 1.3.40 2023-01-14 Q16 http://www.GraphicsMagick.org/" \
    "Usage: convert [options ...] file [ [options ...] file ...] [options ...] file"
stand_in magick "magick: stand-in, not ImageMagick"
stand_in soffice "soffice: a launcher stand-in, no office suite here"
stand_in libreoffice "libreoffice: a launcher stand-in, no office suite here"
stand_in ffmpeg "ffmpeg: a wrapper stand-in, not FFmpeg"
stand_in ffprobe "ffprobe: a wrapper stand-in, not FFmpeg"
stand_in chromium "chromium: a stand-in, not a browser"
stand_in chromium-headless-shell "chromium-headless-shell: a stand-in, not a browser"
