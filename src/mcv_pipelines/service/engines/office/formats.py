"""LibreOffice's filter matrix as this engine lists it: which formats each module reads and writes.

Every pair here was converted for real and its output checked (bench/formats.py runs them all;
tests/unit/engines/test_office_matrix.py every core pair and each added format once). Formats
LibreOffice reads but we could not prove here are left out on purpose: wpd, wps, pages, numbers, key,
hwp, lwp, cwk, mw, wri, sdw, qpw, pub, vsd and cdr (no program on this machine writes a sample of them:
AbiWord only writes formats LibreOffice writes itself, libwpd/libwps/libmwaw's tools only read; and
no download is allowed), dbf (neither its import nor its export runs in a LibreOffice without Base's
drivers), and the OpenOffice.org 1 templates sti and std (LibreOffice opens them as empty documents).
Formats only its import filters read (AbiWord abw and zabw, T602, Lotus 1-2-3 wk1 and wks, Gnumeric)
are listed with samples written by hand from their published layouts (tests/import_samples.py). The
other OpenOffice.org 1 formats (sxw, stw, sxc, stc, sxi, sxd) are read only: LibreOffice no longer
writes them, and their samples are written by hand.

A module is present when a library only its package installs is there (``libswlo.so`` for Writer...):
a Writer-only LibreOffice lists no spreadsheet pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MODULES", "Module", "Reader", "Writer"]


@dataclass(frozen=True, slots=True)
class Reader:
    """How to open one input format: LibreOffice's import filter, when detection needs the help."""

    filter: str | None = None
    options: str | None = None


@dataclass(frozen=True, slots=True)
class Writer:
    """How to write one output format: an export filter, or a picture per page (``media_type``)."""

    filter: str | None = None
    options: str | None = None
    media_type: str | None = None
    pdf: bool = False


@dataclass(frozen=True, slots=True)
class Module:
    """One LibreOffice application (Writer, Calc, Impress, Draw) and the formats it converts."""

    name: str
    library: str
    readers: dict[str, Reader]
    writers: dict[str, Writer]
    # Input formats that only convert to some outputs (PDF import gives a usable docx, not more).
    only: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Pairs bench/formats.py found failing, left out of the listing.
    unproven: frozenset[tuple[str, str]] = frozenset()

    def targets(self, source: str) -> tuple[str, ...]:
        """What ``source`` is listed to convert to in this module."""
        listed = self.only.get(source, tuple(self.writers))
        return tuple(t for t in listed if t != source and (source, t) not in self.unproven)


# separator, text quote, UTF-8, from line 1; writing: quote only where needed (token 7), values as shown
_CSV_IN, _TSV_IN = "44,34,76,1", "9,34,76,1"
_CSV, _TSV = f"{_CSV_IN},,0,false,true,true", f"{_TSV_IN},,0,false,true,true"
_CALC_TEXT = "Text - txt - csv (StarCalc)"
_PNG = Writer(media_type="image/png")
_JPG = Writer(media_type="image/jpeg")
# a picture per slide or page beyond png and jpg (issue 23, breadth)
_PICTURES = {
    "gif": Writer(media_type="image/gif"), "bmp": Writer(media_type="image/bmp"),
    "tiff": Writer(media_type="image/tiff"), "webp": Writer(media_type="image/webp"),
    "svg": Writer(media_type="image/svg+xml"),
}  # fmt: skip

WRITER = Module(
    "writer",
    "libswlo.so",
    readers={
        "doc": Reader(), "docx": Reader(), "odt": Reader(), "fodt": Reader(), "rtf": Reader(),
        "txt": Reader("Text (encoded)", "UTF8"), "html": Reader("HTML (StarWriter)"),
        "pdf": Reader("writer_pdf_import"),
        # issue 23, breadth: templates, macro-enabled documents, OpenOffice.org 1 and UOF
        "dot": Reader(), "dotx": Reader(), "docm": Reader(), "dotm": Reader(), "ott": Reader(),
        "sxw": Reader(), "stw": Reader(), "uot": Reader("UOF text"),
        # import filters only (libabw, LibreOffice's T602 filter): read, never written
        "abw": Reader("AbiWord"), "zabw": Reader("AbiWord"), "602": Reader("T602Document"),
    },
    writers={
        "pdf": Writer("writer_pdf_Export", pdf=True), "docx": Writer("MS Word 2007 XML"),
        "doc": Writer("MS Word 97"), "odt": Writer("writer8"), "rtf": Writer("Rich Text Format"),
        # Text: UTF-8, LF line ends, no byte order mark (the fifth field)
        "txt": Writer("Text (encoded)", "UTF8,LF,,,false"),
        "html": Writer("HTML (StarWriter)", "EmbedImages"), "epub": Writer("EPUB"),
        "dot": Writer("MS Word 97 Vorlage"), "dotx": Writer("MS Word 2007 XML Template"),
        "docm": Writer("MS Word 2007 XML VBA"), "ott": Writer("writer8_template"),
        "uot": Writer("UOF text"), "fodt": Writer("OpenDocument Text Flat XML"),
        "xhtml": Writer("XHTML Writer File"),
    },
    only={"pdf": ("docx", "odt")},
    unproven=frozenset({("uot", "pdf")}),  # LibreOffice 7.4 fails to write it
)  # fmt: skip
CALC = Module(
    "calc",
    "libsclo.so",
    readers={
        "xls": Reader(), "xlsx": Reader(), "ods": Reader(), "fods": Reader(),
        "csv": Reader(_CALC_TEXT, _CSV_IN), "tsv": Reader(_CALC_TEXT, _TSV_IN),
        "xlt": Reader(), "xltx": Reader(), "xlsm": Reader(), "xltm": Reader(), "ots": Reader(),
        "sxc": Reader(), "stc": Reader(), "dif": Reader("DIF"), "slk": Reader("SYLK"),
        "uos": Reader("UOF spreadsheet"),
        # import filters only: Lotus 1-2-3 (1A and 2), Gnumeric (orcus)
        "wk1": Reader(), "wks": Reader(), "gnumeric": Reader(),
    },
    writers={
        "pdf": Writer("calc_pdf_Export", pdf=True), "xlsx": Writer("Calc MS Excel 2007 XML"),
        "xls": Writer("MS Excel 97"), "ods": Writer("calc8"), "html": Writer("HTML (StarCalc)"),
        "csv": Writer(_CALC_TEXT, _CSV), "tsv": Writer(_CALC_TEXT, _TSV),
        "xlt": Writer("MS Excel 97 Vorlage/Template"), "xltx": Writer("Calc MS Excel 2007 XML Template"),
        "xlsm": Writer("Calc MS Excel 2007 VBA XML"), "ots": Writer("calc8_template"),
        "dif": Writer("DIF"), "slk": Writer("SYLK"), "uos": Writer("UOF spreadsheet"),
        "fods": Writer("OpenDocument Spreadsheet Flat XML"), "xhtml": Writer("XHTML Calc File"),
    },
)  # fmt: skip
IMPRESS = Module(
    "impress",
    "libslideshowlo.so",  # Debian's Impress package ships it; libsdlo.so comes with Draw alone too
    readers={
        "ppt": Reader(), "pptx": Reader(), "odp": Reader(), "fodp": Reader(),
        "pps": Reader(), "ppsx": Reader(), "pot": Reader(), "potx": Reader(), "pptm": Reader(),
        "potm": Reader(), "ppsm": Reader(), "otp": Reader(), "sxi": Reader(),
        "uop": Reader("UOF presentation"),
    },
    writers={
        "pdf": Writer("impress_pdf_Export", pdf=True), "pptx": Writer("Impress MS PowerPoint 2007 XML"),
        "ppt": Writer("MS PowerPoint 97"), "odp": Writer("impress8"), "png": _PNG, "jpg": _JPG,
        "pps": Writer("MS PowerPoint 97 AutoPlay"), "pot": Writer("MS PowerPoint 97 Vorlage"),
        "ppsx": Writer("Impress MS PowerPoint 2007 XML AutoPlay"),
        "potx": Writer("Impress MS PowerPoint 2007 XML Template"),
        "pptm": Writer("Impress MS PowerPoint 2007 XML VBA"), "otp": Writer("impress8_template"),
        "uop": Writer("UOF presentation"), "fodp": Writer("OpenDocument Presentation Flat XML"),
        **_PICTURES,
    },
    unproven=frozenset({("uop", "pptx")}),  # the slide's text is lost
)  # fmt: skip
DRAW = Module(
    "draw",
    "libsddlo.so",
    readers={
        "odg": Reader(), "fodg": Reader(), "emf": Reader(), "wmf": Reader(),
        "otg": Reader(), "sxd": Reader(),
    },
    writers={
        "pdf": Writer("draw_pdf_Export", pdf=True), "odg": Writer("draw8"), "svg": Writer("draw_svg_Export"),
        "emf": Writer("draw_emf_Export"), "wmf": Writer("draw_wmf_Export"), "png": _PNG, "jpg": _JPG,
        "otg": Writer("draw8_template"), "fodg": Writer("OpenDocument Drawing Flat XML"),
        **{k: v for k, v in _PICTURES.items() if k != "svg"},
    },
)  # fmt: skip
MODULES: tuple[Module, ...] = (WRITER, CALC, IMPRESS, DRAW)
