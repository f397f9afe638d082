#!/usr/bin/env bash
# Build the service's image (deploy/Dockerfile) with podman from the repository as it is, and print its
# size. Idempotent, and cheap when nothing changed:
#   - the base (deploy/Dockerfile's ARG BASE, a dated Debian tag) is made with debootstrap and imported
#     only when podman does not have it (no registry is reachable from CI; deploy/README.md, "The base
#     image");
#   - the image is tagged by a hash of what it is built from (the Dockerfile, its dockerignore and every
#     file of the build context): an image of that tag is reused, not built again.
#
#   scripts/build-image.sh                  build (or reuse) and print the tag, the image id and the size
#   scripts/build-image.sh --status FILE    also write FILE when done (key=value lines: status, tag,
#                                           image, size, seconds): what tests/integration/deploy waits
#                                           for when .ci/run builds in the background
#   scripts/build-image.sh --print-tag      print the tag the repository as it is builds to, and stop
#
# Needs root (or rootful podman), podman, and debootstrap when the base is missing. A TLS-inspecting
# egress proxy (CI's machine may sit behind one) is detected, not assumed: when PyPI's certificate does
# not verify against Mozilla's roots alone but does against this machine's trust store, that store is
# lent to the build stage's pip as a build secret (it never lands in a layer).
set -euo pipefail
cd "$(dirname "$0")/.."

status_file="" print_tag=0
while [ $# -gt 0 ]; do
    case "$1" in
        --status) status_file="$2"; shift 2 ;;
        --print-tag) print_tag=1; shift ;;
        *) echo "build-image: unknown option $1 (use --status FILE, --print-tag)" >&2; exit 2 ;;
    esac
done

DOCKERFILE=deploy/Dockerfile
IGNOREFILE=deploy/Dockerfile.dockerignore
NAME=mcv-pipelines

# The tree's hash: every file the dockerignore lets into the context (its `!` lines; __pycache__ and
# egg-info left out as it leaves them out), with its path, plus the Dockerfile and the dockerignore.
tree_hash() {
    local -a included
    mapfile -t included < <(sed -n 's/^!\(.*\)$/\1/p' "$IGNOREFILE" | sed 's:/$::')
    {
        sha256sum "$DOCKERFILE" "$IGNOREFILE"
        find "${included[@]}" \( -name __pycache__ -o -name '*.egg-info' \) -prune -o -type f -print0 \
            | xargs -0 sha256sum
        find "${included[@]}" -type l -printf '%p -> %l\n'
    } | LC_ALL=C sort | sha256sum | cut -c1-16
}

TAG="$NAME:tree-$(tree_hash)"
if [ "$print_tag" = 1 ]; then
    echo "$TAG"
    exit 0
fi

started=$(date +%s)
write_status() {  # status [image size]
    [ -n "$status_file" ] || return 0
    {
        echo "status=$1"
        echo "tag=$TAG"
        echo "image=${2:-}"
        echo "size=${3:-}"
        echo "seconds=$(( $(date +%s) - started ))"
    } > "$status_file.tmp"
    mv "$status_file.tmp" "$status_file"
}
# Whatever fails below, a waiting test learns it at once instead of waiting for its timeout.
trap 'code=$?; [ "$code" = 0 ] || write_status failed; exit "$code"' EXIT
if [ -n "$status_file" ]; then
    rm -f "$status_file"
fi

if ! command -v podman >/dev/null 2>&1; then
    echo "build-image: podman is missing (apt-get install podman runc netavark debootstrap)" >&2
    exit 1
fi

BASE=$(sed -n 's/^ARG BASE=\(.*\)$/\1/p' "$DOCKERFILE")
if podman image exists "$BASE"; then
    echo "build-image: base $BASE is there"
else
    if ! command -v debootstrap >/dev/null 2>&1; then
        echo "build-image: the base $BASE is missing and debootstrap is not installed to make it" >&2
        exit 1
    fi
    suite=${BASE#*:}
    suite=${suite%%-*}
    root=$(mktemp -d /var/tmp/mcv-base.XXXXXX)
    trap 'code=$?; rm -rf "$root"; [ "$code" = 0 ] || write_status failed; exit "$code"' EXIT
    echo "build-image: making the base $BASE with debootstrap ($suite, minbase)"
    base_started=$(date +%s)
    debootstrap --variant=minbase "$suite" "$root" http://deb.debian.org/debian >/dev/null
    # bookworm-security carries chromium-headless-shell.
    cat > "$root/etc/apt/sources.list" <<SOURCES
deb http://deb.debian.org/debian $suite main
deb http://deb.debian.org/debian $suite-updates main
deb http://deb.debian.org/debian-security $suite-security main
SOURCES
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | podman import - "$BASE" >/dev/null
    rm -rf "$root"
    echo "build-image: base $BASE made in $(( $(date +%s) - base_started )) s"
fi

# Does pip in the build stage need this machine's trust store? Only if PyPI's certificate fails
# against Mozilla's roots (what the build stage's ca-certificates holds) yet passes against the store.
secret=()
mozilla=/usr/share/ca-certificates/mozilla
system_store=/etc/ssl/certs/ca-certificates.crt
if [ -d "$mozilla" ] && [ -f "$system_store" ] && command -v curl >/dev/null 2>&1; then
    roots=$(mktemp -d)
    cat "$mozilla"/*.crt > "$roots/mozilla.pem"
    # --capath to an empty directory: curl would also trust the system's /etc/ssl/certs otherwise.
    if ! env -u SSL_CERT_DIR -u SSL_CERT_FILE -u CURL_CA_BUNDLE curl -sS -o /dev/null --max-time 20 \
            --cacert "$roots/mozilla.pem" --capath "$roots" https://pypi.org/simple/pip/ 2>/dev/null \
        && curl -sS -o /dev/null --max-time 20 --cacert "$system_store" https://pypi.org/simple/pip/; then
        echo "build-image: PyPI's certificate is not signed by a public root here (a TLS-inspecting" \
            "proxy): the build stage's pip gets this machine's trust store"
        secret=(--secret "id=pip-ca,src=$system_store")
    fi
    rm -rf "$roots"
elif [ -f "$system_store" ]; then
    # Nothing to probe with (no curl, or no Mozilla bundle): the machine's store is trusted here anyway
    # and holds the public roots, so handing it to pip costs nothing and works behind such a proxy.
    echo "build-image: cannot tell whether PyPI needs this machine's trust store: pip gets it"
    secret=(--secret "id=pip-ca,src=$system_store")
fi

if podman image exists "$TAG"; then
    echo "build-image: $TAG is built already (the same tree): reused"
else
    echo "build-image: building $TAG"
    build_started=$(date +%s)
    # --format docker keeps the HEALTHCHECK (the OCI format has no field for it).
    podman build --format docker -f "$DOCKERFILE" --ignorefile "$IGNOREFILE" "${secret[@]}" \
        -t "$TAG" .
    echo "build-image: built in $(( $(date +%s) - build_started )) s"
fi

image=$(podman image inspect --format '{{.Id}}' "$TAG")
size=$(podman image inspect --format '{{.Size}}' "$TAG")
echo "build-image: $TAG image ${image:0:12} size $(awk -v b="$size" 'BEGIN { printf "%.2f GB", b / 1e9 }')"
write_status ok "$image" "$size"
