"""Which family a format belongs to on docs/formats.md, and which format names are one format.

A format's family comes from ``FORMAT_FAMILY`` when it is there (the ambiguous ones: gif is read by
ffmpeg as a video but is an image first; csv by LibreOffice as a spreadsheet but is data), else from the
engines that convert it (``ENGINE_FAMILY``), the one with the most pairs first. A format another
family's engines also convert is listed there too, linked to its own section. A format in no family goes
to "Other", and bench/formats.py prints it so that someone adds it here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from mcv_pipelines.service.engines.lookup import normalize_listing_format

__all__ = [
    "ALIASES",
    "ALIAS_REASONS",
    "ENGINE_FAMILY",
    "FAMILIES",
    "FORMAT_FAMILY",
    "NOT_ALIASES",
    "OTHER",
    "canonical",
    "families_of",
    "family_table",
]

OTHER = "Other"
FAMILIES = (
    "Images", "Camera raw", "Vector", "PDF and pages", "Documents", "Spreadsheets", "Presentations",
    "Ebooks", "Audio", "Video", "Subtitles", "Data", "Mail", "Fonts", "Archives", "3D models", "GPS",
    OTHER,
)  # fmt: skip

# Two names of one format (the second name is the one counted): spellings of the same extension, or
# a vendor's name for a format the listing reads and writes as the other one. The service's own
# aliases (lookup.normalize_listing_format: jpeg, tif, htm...) count once as well.
ALIASES = {
    "jpeg": "jpg", "jpe": "jpg", "jfif": "jpg", "tif": "tiff", "htm": "html", "yml": "yaml",
    "markdown": "md", "aif": "aiff", "mts": "m2ts", "mpg": "mpeg", "qt": "mov", "oga": "ogg",
    "tgz": "tar.gz", "tbz2": "tar.bz2", "tbz": "tar.bz2", "txz": "tar.xz",
    "azw": "mobi", "prc": "mobi", "dfxp": "ttml",  # DFXP is TTML 1.0's former name
}  # fmt: skip
# Why each alias is one format, for the page (only the aliases present in the listing are shown).
ALIAS_REASONS = {
    "oga": "both Ogg audio, Vorbis by default",
    "qt": "QuickTime's own extension for a mov",
    "mts": "both MPEG-TS with 192-byte packets, AVCHD's name",
    "azw": "Kindle's name for a Mobipocket book",
    "prc": "Palm's name for a Mobipocket book",
}
# Close but not one format, so counted apart (shown when both names are in the listing).
NOT_ALIASES = (
    (("m4a", "m4b", "m4r"), "one MP4 audio container, but a song, an audiobook with chapters and a ringtone"),
    (("ts", "m2ts"), "MPEG-TS with 188-byte packets against the 192-byte packets of Blu-ray and AVCHD"),
    (("ppt", "pps"), "a PowerPoint 97 file that opens in its slide show"),
    (("jp2", "j2k"), "a JPEG 2000 file against its bare codestream"),
    (("heif", "heic"), "the HEIF container against HEIF with HEVC pictures"),
    (("azw3", "mobi"), "KF8, not Mobipocket"),
)

# Formats whose family is not the one of the engine converting most of their pairs, and formats that
# engines still to come will convert (so the page has them in place on the day they arrive).
_FAMILY_OF = (
    (
        "Images",
        "gif apng webp avif ico cur png jpg jxl heic heif exr hdr xcf psd psb ora jls mpo fits dcm dicom "
        "fli flc",
    ),
    (
        "Camera raw",
        "dng cr2 cr3 crw nef nrw arw srf sr2 raf orf rw2 pef srw x3f erf kdc dcr mrw 3fr mef mos iiq",
    ),
    ("Vector", "svg svgz eps ps ai dxf emf wmf fig plt geojson pic"),
    ("PDF and pages", "pdf djvu xps oxps"),
    ("Documents", "html txt md rtf wpd wps abw zabw pages hwp lwp cwk wri sdw 602 mw mcw"),
    ("Spreadsheets", "numbers"),
    ("Presentations", "key uop"),
    ("Ebooks", "epub fb2 fbz chm cbz cbr cbt cb7 cba"),
    ("Audio", "amr ape dsf dff tak mpc aifc mod xm s3m it"),
    ("Video", "m4v mts m2ts 3g2 y4m mk3d"),
    ("Subtitles", "srt vtt webvtt ass ssa ttml dfxp itt usf lrc sbv sub smi sami jss rt pjs aqt scc"),
    (
        "Data",
        "json yaml yml toml xml plist jsonl ndjson csv tsv vcf vcard ics ical ini properties sqlite msgpack",
    ),
    ("Mail", "eml msg mbox emlx"),
    ("GPS", "gpx kml tcx geojson nmea igc loc fit cup itn ov2 osm"),
)
FORMAT_FAMILY = {fmt: family for family, words in _FAMILY_OF for fmt in words.split()}

# LibreOffice reads documents, spreadsheets, presentations and drawings alike: which one a format is
# shows in the format of its own kind it converts to.
_OFFICE_KIN = (("xlsx", "Spreadsheets"), ("pptx", "Presentations"), ("odg", "Vector"))


def _office(fmt: str, outputs: set[str], options: set[str]) -> str:
    return next((family for kin, family in _OFFICE_KIN if kin in outputs or kin == fmt), "Documents")


def _media(fmt: str, outputs: set[str], options: set[str]) -> str:
    return "Video" if "video_codec" in options else "Audio"  # a picture to encode: a video


# An engine's family: a name, or a rule on the input, its outputs and the option names of the engine's
# conversions of it.
ENGINE_FAMILY: dict[str, str | Callable[[str, set[str], set[str]], str]] = {
    **dict.fromkeys(("pillow", "imagemagick", "graphicsmagick", "libheif", "libjxl"), "Images"),
    **dict.fromkeys(
        ("librsvg", "potrace", "pdftocairo", "ghostscript-ps", "pstoedit", "fig2dev", "hp2xx"), "Vector"
    ),
    **dict.fromkeys(("dcmtk", "openexr", "openraster"), "Images"),
    "libraw": "Camera raw",
    **dict.fromkeys(("poppler", "poppler-text", "pypdf", "qpdf", "ghostscript"), "PDF and pages"),
    **dict.fromkeys(("djvulibre", "mupdf"), "PDF and pages"),
    **dict.fromkeys(("pandoc", "chromium", "markdown"), "Documents"),
    "libreoffice": _office,
    **dict.fromkeys(("calibre", "comics", "chmlib"), "Ebooks"),
    "ffmpeg": _media,
    **dict.fromkeys(("pysubs2", "ffmpeg-subtitles"), "Subtitles"),
    "data": "Data",
    "mail": "Mail",
    **dict.fromkeys(("archive", "unar", "xorriso"), "Archives"),
    **dict.fromkeys(("fonttools", "fontforge"), "Fonts"),
    "assimp": "3D models",
    "gpsbabel": "GPS",
}


def canonical(name: str) -> str:
    """The name a format is counted under: ``jpeg`` -> ``jpg``, ``oga`` -> ``ogg``."""
    return ALIASES.get(name) or normalize_listing_format(name)


def families_of(fmt: str, conversions: Iterable[tuple[str, str, Iterable[str]]]) -> list[str]:
    """The families of input ``fmt``, its own first, from its conversions: (engine, output, option
    names) each. An input no table knows is in "Other" alone."""
    outputs: dict[str, set[str]] = {}
    options: dict[str, set[str]] = {}
    for engine, output, names in conversions:
        outputs.setdefault(engine, set()).add(output)
        options.setdefault(engine, set()).update(names)
    weight: dict[str, int] = {}
    for engine, made in outputs.items():
        rule = ENGINE_FAMILY.get(engine)
        if rule is not None:
            family = rule if isinstance(rule, str) else rule(fmt, made, options[engine])
            weight[family] = weight.get(family, 0) + len(made)
    own = FORMAT_FAMILY.get(fmt) or FORMAT_FAMILY.get(canonical(fmt))
    if own is None:
        own = max(weight, key=lambda f: (weight[f], -FAMILIES.index(f)), default=OTHER)
    return [own, *sorted((f for f in weight if f != own), key=FAMILIES.index)]


def family_table(inputs: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Family -> its inputs (own section first sorted, then the ones only linked), in FAMILIES order."""
    table: dict[str, list[str]] = {family: [] for family in FAMILIES}
    for fmt in sorted(inputs):
        for family in inputs[fmt]:
            table[family].append(fmt)
    return {family: formats for family, formats in table.items() if formats}
