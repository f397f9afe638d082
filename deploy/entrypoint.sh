#!/bin/sh
# The image's entry point (tini runs it): `IMAGE` and `IMAGE serve ...` (any mcv subcommand or option)
# run mcv; `IMAGE bash`, `IMAGE python3 ...` (any other program on PATH, or a path) run that program.
# mcv's subcommands come first: `jobs` is also a shell builtin, `test` and `init` programs.
set -e
MCV_COMMANDS="validate run test batch render graph catalog plan jobs tasks webhooks me operations schema serve
lsp init doctor completion"
for command in $MCV_COMMANDS; do
    if [ "$1" = "$command" ]; then
        exec mcv "$@"
    fi
done
case "$1" in
    -*) exec mcv "$@" ;;
    */*) exec "$@" ;;
esac
if command -v "$1" >/dev/null 2>&1; then
    exec "$@"
fi
exec mcv "$@"
