"""What each engine of the registry needs installed, and what it brings: the table `mcv doctor` reads.

Kept beside ``ENGINE_FACTORIES`` so that a new engine adds its row here too (tests/unit/engines/
test_install_hints.py fails for an engine without one). An engine whose program is missing lists no
conversions, so what it *would* bring is said here in words; package names are per system, for the
programs the engine looks for on PATH.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INSTALL_HINTS", "InstallHint", "install_hint"]


@dataclass(frozen=True, slots=True)
class InstallHint:
    """``programs``: what the engine looks for on PATH (empty: a Python library that comes with mcv).
    ``packages``: the packages that install them, by system (``debian`` covers Ubuntu too).
    ``needs_all``: every one of ``programs`` is needed (else the first found will do)."""

    brings: str
    programs: tuple[str, ...] = ()
    needs_all: bool = False
    debian: str | None = None
    fedora: str | None = None
    homebrew: str | None = None

    @property
    def packages(self) -> dict[str, str]:
        """System -> packages, only the systems that have them."""
        found = {"debian/ubuntu": self.debian, "fedora": self.fedora, "macos homebrew": self.homebrew}
        return {system: names for system, names in found.items() if names}


INSTALL_HINTS: dict[str, InstallHint] = {
    "pillow": InstallHint("image conversions, thumbnails, watermarks and metadata (installed with mcv)"),
    "pypdf": InstallHint("PDF merge, split, metadata, watermarks and page work (installed with mcv)"),
    "archive": InstallHint(
        "zip, 7z and tar archives (tar.gz, tar.bz2, tar.xz, tar.zst, tar.lz4), packed and converted; "
        "zst and lz4 files read (installed with mcv)"
    ),
    "fonttools": InstallHint(
        "ttf, otf, woff, woff2 and ttx fonts to each other; ttc, otc and dfont unpacked (installed with mcv)"
    ),
    "fontforge": InstallHint(
        "Type 1 (pfa, pfb), Type 42, sfd, cff, bdf and pcf fonts to ttf, otf, woff(2), dfont and each other",
        programs=("fontforge",),
        debian="fontforge-nox",
        fedora="fontforge",
        homebrew="fontforge",
    ),
    "mail": InstallHint(
        "eml, Outlook msg, mbox and emlx to html, txt and md with their attachments, msg to eml "
        "(installed with mcv); to pdf once the chromium engine can run"
    ),
    "data": InstallHint(
        "json, yaml, toml, xml, plist and msgpack documents to each other and to tables; csv, tsv, jsonl "
        "and xlsx tables to documents, md and html; vCard and iCalendar to csv and json and back; ini and "
        ".properties to and from json, yaml and toml; SQLite tables out (installed with mcv)"
    ),
    "pysubs2": InstallHint(
        "text subtitles (srt, vtt, ass, ssa, ttml/dfxp, sbv, MicroDVD sub, smi, lrc) to each other "
        "(installed with mcv)"
    ),
    "ffmpeg-subtitles": InstallHint(
        "a video's subtitle streams (mkv, mp4, webm, mov ...), and JACOsub, RealText, PJS, AQTitle and SCC "
        "subtitles, to srt, vtt, ass and the other subtitle formats",
        programs=("ffmpeg", "ffprobe"),
        needs_all=True,
        debian="ffmpeg",
        fedora="ffmpeg-free",
        homebrew="ffmpeg",
    ),
    "ghostscript": InstallHint(
        "PDF optimize (smaller files, better than pypdf's)",
        programs=("gs",),
        debian="ghostscript",
        fedora="ghostscript",
        homebrew="ghostscript",
    ),
    "ffmpeg": InstallHint(
        "audio and video conversions, video thumbnails, watermarks and metadata; the command operation "
        "with ffmpeg",
        programs=("ffmpeg", "ffprobe"),
        needs_all=True,
        debian="ffmpeg",
        fedora="ffmpeg-free",
        homebrew="ffmpeg",
    ),
    "imagemagick": InstallHint(
        "the command operation with convert and identify",
        programs=("convert", "identify", "magick"),
        debian="imagemagick",
        fedora="ImageMagick",
        homebrew="imagemagick",
    ),
    "graphicsmagick": InstallHint(
        "the command operation with gm",
        programs=("gm",),
        debian="graphicsmagick",
        fedora="GraphicsMagick",
        homebrew="graphicsmagick",
    ),
    "qpdf": InstallHint(
        "PDF optimize by linearizing and recompressing streams",
        programs=("qpdf",),
        debian="qpdf",
        fedora="qpdf",
        homebrew="qpdf",
    ),
    "poppler": InstallHint(
        "PDF pages to png, jpg and tiff, and PDF thumbnails",
        programs=("pdftoppm",),
        debian="poppler-utils",
        fedora="poppler-utils",
        homebrew="poppler",
    ),
    "libreoffice": InstallHint(
        "office documents, spreadsheets, presentations and drawings to each other, to PDF and to images",
        programs=("soffice", "libreoffice"),
        debian="libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui "
        "libreoffice-draw-nogui python3-uno",
        fedora="libreoffice-writer libreoffice-calc libreoffice-impress",
        homebrew="--cask libreoffice",
    ),
    "libheif": InstallHint(
        "HEIC and HEIF photos in and out",
        programs=("heif-enc", "heif-convert"),
        needs_all=True,
        debian="libheif-examples",
        fedora="libheif-tools",
        homebrew="libheif",
    ),
    "libjxl": InstallHint(
        "JPEG XL images in and out",
        programs=("cjxl", "djxl"),
        needs_all=True,
        debian="libjxl-tools",
        fedora="libjxl-utils",
        homebrew="jpeg-xl",
    ),
    "librsvg": InstallHint(
        "SVG to png, pdf, eps and ps",
        programs=("rsvg-convert",),
        debian="librsvg2-bin",
        fedora="librsvg2-tools",
        homebrew="librsvg",
    ),
    "ghostscript-ps": InstallHint(
        "EPS, PostScript and Illustrator files to pdf, png and jpg",
        programs=("gs",),
        debian="ghostscript",
        fedora="ghostscript",
        homebrew="ghostscript",
    ),
    "potrace": InstallHint(
        "raster images traced to svg, svgz, dxf, geojson and fig",
        programs=("potrace",),
        debian="potrace",
        fedora="potrace",
        homebrew="potrace",
    ),
    "pdftocairo": InstallHint(
        "PDF to svg, svgz, eps and ps",
        programs=("pdftocairo",),
        debian="poppler-utils",
        fedora="poppler-utils",
        homebrew="poppler",
    ),
    "pstoedit": InstallHint(
        "EPS, PostScript, Illustrator and PDF to dxf, plt (HPGL), fig, emf and pic",
        programs=("pstoedit", "gs"),
        needs_all=True,
        debian="pstoedit",
        fedora="pstoedit",
        homebrew="pstoedit",
    ),
    "fig2dev": InstallHint(
        "XFig drawings (fig) to pdf, svg, svgz, png and eps",
        programs=("fig2dev",),
        debian="fig2dev",
        fedora="transfig",
        homebrew="fig2dev",
    ),
    "hp2xx": InstallHint(
        "HPGL plot files (plt) to svg, svgz, eps and png",
        programs=("hp2xx",),
        debian="hp2xx",
        fedora="hp2xx",
        homebrew="hp2xx",
    ),
    "poppler-text": InstallHint(
        "PDF to txt and html",
        programs=("pdftotext", "pdftohtml"),
        needs_all=True,
        debian="poppler-utils",
        fedora="poppler-utils",
        homebrew="poppler",
    ),
    "pandoc": InstallHint(
        "markup and documents (md, rst, org, html, tex, docx, odt, epub, ipynb ...) to each other",
        programs=("pandoc",),
        debian="pandoc",
        fedora="pandoc",
        homebrew="pandoc",
    ),
    "markdown": InstallHint(
        "Markdown out of pptx and xlsx (installed with mcv); pdf too where Poppler's pdftotext is "
        "(poppler-text's packages), and ppt, odp, xls, ods and tsv where LibreOffice is"
    ),
    "unar": InstallHint(
        "rar, cab, iso, cpio, ar, deb, arj, Z, lzma, tar.Z and tar.lzma (read) converted to zip, 7z and tar",
        programs=("unar", "lsar"),
        needs_all=True,
        debian="unar libnss-wrapper",  # nss_wrapper: their passwd entry under Landlock (user_entry.py)
        fedora="unar nss_wrapper",
        homebrew="unar",
    ),
    "xorriso": InstallHint(
        "archives (zip, 7z, tar ..., and what unar reads) to ISO 9660 images, Rock Ridge and Joliet names",
        programs=("xorriso",),
        debian="xorriso",
        fedora="xorriso",
        homebrew="xorriso",
    ),
    "calibre": InstallHint(
        "e-books (epub, mobi, azw3, fb2, lit, lrf, pdb ...) to each other and to pdf",
        programs=("ebook-convert",),
        debian="calibre",
        fedora="calibre",
        homebrew="--cask calibre",
    ),
    "assimp": InstallHint(
        "3D models (obj, stl, ply, gltf, glb, fbx, dae, 3ds, 3mf, x3d ...) to each other",
        programs=("assimp",),
        debian="assimp-utils",
        fedora="assimp",
        homebrew="assimp",
    ),
    "djvulibre": InstallHint(
        "DjVu documents to pdf, png, jpg, tiff and their text layer to txt",
        programs=("ddjvu", "djvutxt"),
        needs_all=True,
        debian="djvulibre-bin",
        fedora="djvulibre",
        homebrew="djvulibre",
    ),
    "mupdf": InstallHint(
        "XPS and OpenXPS documents to pdf, png, jpg, svg and txt",
        programs=("mutool",),
        debian="mupdf-tools",
        fedora="mupdf",
        homebrew="mupdf-tools",
    ),
    "chmlib": InstallHint(
        "CHM help files to htmlz, and with Calibre to epub, pdf, txt, docx, mobi ...",
        programs=("extract_chmLib", "enum_chmLib"),
        needs_all=True,
        debian="libchm-bin",
        fedora="chmlib",
        homebrew="chmlib",
    ),
    "comics": InstallHint(
        "comic archives (cbz, cbt, cb7; cbr with unar) to cbz, pdf and fixed-layout epub (installed with mcv)"
    ),
    "libraw": InstallHint(
        "camera raw (dng) developed to jpg, png, tiff, webp and avif",
        programs=("dcraw_emu", "raw-identify", "simple_dcraw"),
        needs_all=True,
        debian="libraw-bin",
        fedora="LibRaw-devel",
        homebrew="libraw",
    ),
    "dcmtk": InstallHint(
        "DICOM medical images (dcm) to png, jpg, tiff and pdf, a file per frame",
        programs=("dcmj2pnm", "dcml2pnm", "dcmdump"),
        needs_all=True,
        debian="dcmtk",
        fedora="dcmtk",
        homebrew="dcmtk",
    ),
    "openexr": InstallHint(
        "OpenEXR HDR images (exr) to the image formats, tone mapped to sRGB",
        programs=("ffmpeg",),
        debian="ffmpeg",
        fedora="ffmpeg-free",
        homebrew="ffmpeg",
    ),
    "jpegls": InstallHint(
        "JPEG-LS images (jls) to and from the image formats",
        programs=("ffmpeg",),
        debian="ffmpeg",
        fedora="ffmpeg-free",
        homebrew="ffmpeg",
    ),
    "gpsbabel": InstallHint(
        "GPS tracks, routes and waypoints among gpx, kml, tcx, geojson, nmea, igc, Geocaching loc, SeeYou "
        "cup, TomTom itn and ov2, OpenStreetMap osm and csv; Garmin fit read",
        programs=("gpsbabel",),
        debian="gpsbabel",
        fedora="gpsbabel",
        homebrew="gpsbabel",
    ),
    "openraster": InstallHint("OpenRaster layered images (ora) in and out (installed with mcv)"),
    "route": InstallHint(
        "the pairs no engine converts alone, through two or three of them (svg to jpg, docx to png); "
        "installed with mcv, it routes through the engines found"
    ),
    "chromium": InstallHint(
        "capture-website and html to pdf, png and jpg",
        programs=("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"),
        debian="chromium",
        fedora="chromium",
        homebrew="--cask chromium",
    ),
}


def install_hint(engine: str) -> InstallHint | None:
    """The row of ``engine``, or None for an engine that has none yet."""
    return INSTALL_HINTS.get(engine)
