#!/usr/bin/env bash
# Install the Debian packages the local engines call, and (unless --runtime) what only the test suite
# needs. One list of engines, shared by the image (deploy/Dockerfile runs this with --runtime) and CI
# (.ci/run runs it bare, which installs both lists).
#
#   scripts/install-engines.sh            engines and test-only packages (CI, a developer's machine)
#   scripts/install-engines.sh --runtime  the engines only: what `mcv serve` needs to convert
#   scripts/install-engines.sh --list     print the packages it would consider, one a line, and stop
#
# ENGINES: ffmpeg, ImageMagick, GraphicsMagick, Ghostscript, qpdf, poppler, LibreOffice with python3-uno
# for its warm pool, Chromium's headless shell, a font; Pandoc, librsvg, Potrace, libheif, libjxl,
# Calibre, Assimp for the formats of issue 23; bubblewrap to seal them. TEST_ONLY: openssl (the client's
# TLS tests make a certificate with it), the servers and runtimes the tests start (PostgreSQL for the
# team service, node and npm for the official Node SDK), the full chromium (the console's browser tests
# drive it with Playwright), and zsh and fish (the completion scripts are tested in each shell): about
# 830 MB an image does not carry; and podman with debootstrap, with which the suite builds and runs the
# image. Non-interactive and idempotent: packages already installed are skipped, and apt-get update runs
# only when something is missing.
set -euo pipefail

runtime=0 list=0
for arg in "$@"; do
    case "$arg" in
        --runtime) runtime=1 ;;
        --list) list=1 ;;
        *) echo "install-engines: unknown option $arg (use --runtime, --list)" >&2; exit 2 ;;
    esac
done

ENGINES=(
    ffmpeg
    imagemagick
    graphicsmagick
    ghostscript
    qpdf
    poppler-utils
    libreoffice-writer-nogui
    libreoffice-calc-nogui
    libreoffice-impress-nogui
    libreoffice-draw-nogui
    python3-uno
    chromium-headless-shell  # the web engine's warm browser: the same engine at half the memory (issue 24)
    bubblewrap  # seals engine programs off the network (issue 24); util-linux has unshare and prlimit
    # issue 23's formats. No TeX: Pandoc writes no PDF itself (md -> pdf goes through html).
    pandoc
    librsvg2-bin
    potrace
    libheif-examples
    libjxl-tools
    # ebook-convert: the largest (98 packages, ~350 MB installed, ~116 MB to download; 48 s to install
    # here); its engine is optional, so a machine without it only lists no ebook pairs.
    calibre
    # assimp: 3D models (obj, stl, ply, gltf/glb, fbx, dae, 3ds ...) to each other (3 packages, ~13 MB)
    assimp-utils
    # rar, and (issue 47) cab, iso, cpio, ar/deb, arj, Z, lzma, tar.Z and tar.lzma, read only (lsar
    # lists, unar unpacks); also comic books in RAR (cbr). tar.zst/zst and tar.lz4/lz4 need no program:
    # the zstandard and lz4 Python packages read and write them
    unar
    # nss_wrapper: a passwd entry for lsar/unar under Landlock as a user other than root (GNUstep asks
    # for one; Landlock hides /etc/passwd): 1 package, ~0.1 MB
    libnss-wrapper
    xorriso  # archives to ISO 9660 images (issue 47): 5 packages with libburn, libisofs, libisoburn, ~2.3 MB
    # pages and books: DjVu with ddjvu and djvutxt (djvulibre-bin with libdjvulibre21 and its
    # text, ~3 MB; its encoders c44/cjb2/djvm/djvused make the tests' samples), XPS and OpenXPS with
    # MuPDF's mutool (mupdf-tools with libmujs2, libgumbo1, libjbig2dec0: ~87 MB installed)
    djvulibre-bin
    mupdf-tools
    libchm-bin  # CHM: chmlib's enum_chmLib and extract_chmLib (2 packages, ~0.2 MB)
    # camera raw and medical images: LibRaw's dcraw_emu and raw-identify develop camera raw (2 packages, ~2.6 MB);
    # DCMTK's dcmj2pnm, dcml2pnm and dcmdump read DICOM (2 packages with libdcmtk17, ~28 MB). EXR and
    # JPEG-LS need only ffmpeg.
    libraw-bin
    dcmtk
    # GPS tracks and waypoints (gpx, kml, tcx, geojson, nmea, igc, fit, loc, cup, itn, ov2, osm, csv):
    # GPSBabel's command line, 2 MB, with libqt5core5a (Qt's core only, no GUI library), shared-mime-info,
    # libshp2, libusb-1.0-0, libdouble-conversion3, libpcre2-16-0: 7 packages, ~14 MB installed (libicu72
    # comes with libxml2 already)
    gpsbabel
    # vector: pstoedit turns PostScript, EPS, AI and PDF into dxf, plt (HPGL), fig and emf
    # through the Ghostscript above (6 packages with libpstoedit0c2a, libplot2c2, libemf1, libmagick++
    # and libzip4: ~6.7 MB installed beside ImageMagick); fig2dev reads XFig drawings (5 packages with
    # gawk and netpbm, ~12.6 MB); hp2xx reads HPGL plot files (1 package, 0.6 MB)
    pstoedit
    fig2dev
    hp2xx
    # fonts: Type 1, Type 42, sfd, bdf/pcf and dfont with FontForge (fontforge-nox with fontforge-common,
    # libfontforge4, libspiro1, libwoff1: 5 packages of its own, ~14 MB installed; no X; its libpython3.11
    # comes with python3-uno above)
    fontforge-nox
    fonts-dejavu-core
    fontconfig
)
TEST_ONLY=(
    chromium  # the console's browser tests drive it with Playwright
    postgresql
    openssl
    zsh
    fish
    groff-base  # pic: the bench and tests read pstoedit's PIC drawings back with groff's own pic
    openexr  # exrheader and exrmaketiled check an EXR the service wrote: OpenEXR's own reader, not ffmpeg's
    # the archive samples of issue 47 (tests/archive_samples.py), each made by its own program, never by
    # unar: gcab (cab, 1 package with libgcab, ~0.3 MB), genisoimage (iso, ~1.7 MB), cpio (~1.1 MB),
    # arj (~0.6 MB), ncompress (Z, 62 kB), zstd (~2.1 MB) and lz4 (~0.2 MB); also the checkers' readers
    # of tar.zst and tar.lz4. ar (binutils), dpkg-deb and xz are on every Debian already.
    # ar (binutils) and xz (xz-utils) make the ar and lzma samples; a minimal Debian has neither
    binutils
    xz-utils
    gcab
    genisoimage
    cpio
    arj
    ncompress
    zstd
    lz4
    openssh-server  # the sshd the import/sftp and export/sftp tests log in to (as root, on loopback)
    # OpenStack Swift for the import/openstack and export/openstack tests (tests/swift_server.py): 61
    # packages, ~8 MB to download, about a minute to install on a busy 2-core machine
    swift-proxy
    swift-account
    swift-container
    swift-object
    # the image's test (tests/integration/deploy, scripts/build-image.sh): Debian's podman with runc,
    # netavark for its network, and debootstrap to make the base where no registry is reachable
    podman
    runc
    netavark
    # netavark sets up a container's network with iptables, which podman does not depend on: without
    # it the build's first RUN fails with "netavark: No such file or directory" (issue 50)
    iptables
    debootstrap
    # bench/formats.py's audio samples made by programs other than ffmpeg: sox writes AMR-NB,
    # AIFF-C, 8SVX, AVR, HCOM, NIST SPHERE, PVF and WVE (6 packages beside ffmpeg's, ~1.6 MB);
    # musepack-tools' mpcenc writes Musepack (4 packages, ~0.6 MB)
    sox
    musepack-tools
    # the font tests' samples: t1utils assembles and checks Type 1 fonts (t1asm, t1binary, t1disasm; 1
    # package, 0.3 MB); xfonts-utils' bdftopcf makes a pcf (1 package with its libs, ~0.5 MB)
    t1utils
    xfonts-utils
)
# node and npm only when no node is on PATH (a machine may have a newer one of its own).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    TEST_ONLY+=(nodejs npm)
fi

PACKAGES=("${ENGINES[@]}")
if [ "$runtime" = 0 ]; then
    PACKAGES+=("${TEST_ONLY[@]}")
fi
if [ "$list" = 1 ]; then
    printf '%s\n' "${PACKAGES[@]}"
    exit 0
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

# apt-get needs root: as another user, through sudo without a password prompt (a CI runner's user has
# it); without that, say what is missing and how to install it, and fail.
as_root=()
if [ "$(id -u)" != "0" ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        echo "install-engines: not root, installing through sudo"
        as_root=(sudo -n)
    else
        echo "install-engines: not root and sudo is not available without a password: cannot install" \
            "${missing[*]} (run: sudo apt-get install -y --no-install-recommends ${missing[*]})" >&2
        exit 1
    fi
fi

echo "install-engines: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-engines: done"
