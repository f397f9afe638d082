"""Local engines and the one table that registers them.

``ENGINE_FACTORIES`` is the registry: every engine class the local service knows, in order of
preference (the first engine that can do a conversion type is its default). ``available_engines``
keeps those that can run on this machine, so the listing never advertises what cannot run.

At this folder's top: the contract (base), lookup, options, output naming, running a program
(process, program_engine, progress), the command sandbox and the URL guard. One folder per family
(image/, pdf/, av/, office/, web/, archive/, text/, vector/, font/, ebook/, scene/, and the families
of the wider formats: subtitle/, raw/, mail/, data/, markdown/, pages/, geo/); a family may import the
modules at the top and, where it builds on one, another family (pdf/ draws its watermarks with image/, vector/
checks its PDF input with pdf/, mail/ prints its PDFs as text/ does, markdown/ counts a PDF's pages with
pdf/).

May import: nothing of the service above it (engines know nothing of HTTP, jobs or storage).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.archive.iso import XorrisoEngine
from mcv_pipelines.service.engines.archive.rar import UnarEngine
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.data.engine import DataEngine
from mcv_pipelines.service.engines.ebook.calibre import CalibreEngine
from mcv_pipelines.service.engines.font.fontforge import FontForgeEngine
from mcv_pipelines.service.engines.font.fonttools_engine import FontEngine
from mcv_pipelines.service.engines.geo.gpsbabel import GpsbabelEngine
from mcv_pipelines.service.engines.image.dicom import DcmtkEngine
from mcv_pipelines.service.engines.image.exr import OpenExrEngine
from mcv_pipelines.service.engines.image.jpegls import JpeglsEngine
from mcv_pipelines.service.engines.image.libheif import LibheifEngine
from mcv_pipelines.service.engines.image.libjxl import LibjxlEngine
from mcv_pipelines.service.engines.image.magick import GraphicsMagickEngine, ImageMagickEngine
from mcv_pipelines.service.engines.image.openraster import OpenRasterEngine
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.lookup import find_conversion
from mcv_pipelines.service.engines.mail.mail_engine import MailEngine
from mcv_pipelines.service.engines.markdown.engine import MarkdownEngine
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from mcv_pipelines.service.engines.pages.chm import ChmEngine
from mcv_pipelines.service.engines.pages.comics import ComicEngine
from mcv_pipelines.service.engines.pages.djvu import DjvuEngine
from mcv_pipelines.service.engines.pages.mupdf import MupdfEngine
from mcv_pipelines.service.engines.pdf.ghostscript import GhostscriptEngine
from mcv_pipelines.service.engines.pdf.pdftoppm import PdftoppmEngine
from mcv_pipelines.service.engines.pdf.poppler_text import PopplerTextEngine
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine
from mcv_pipelines.service.engines.pdf.qpdf import QpdfEngine
from mcv_pipelines.service.engines.raw.libraw import LibrawEngine
from mcv_pipelines.service.engines.routes.engine import RouteEngine
from mcv_pipelines.service.engines.scene.assimp import AssimpEngine
from mcv_pipelines.service.engines.subtitle.ffmpeg_subtitles import FfmpegSubtitleEngine
from mcv_pipelines.service.engines.subtitle.pysubs2_engine import SubtitleEngine
from mcv_pipelines.service.engines.text.pandoc import PandocEngine
from mcv_pipelines.service.engines.vector.fig2dev import Fig2devEngine
from mcv_pipelines.service.engines.vector.hpgl import HpglEngine
from mcv_pipelines.service.engines.vector.pdftocairo import PdftocairoEngine
from mcv_pipelines.service.engines.vector.postscript import PostScriptEngine
from mcv_pipelines.service.engines.vector.potrace import PotraceEngine
from mcv_pipelines.service.engines.vector.pstoedit import PstoeditEngine
from mcv_pipelines.service.engines.vector.rsvg import RsvgEngine
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine

__all__ = [
    "ENGINE_FACTORIES", "available_engines", "close_engines", "find_conversion", "registered_engines",
]  # fmt: skip

ENGINE_FACTORIES: tuple[Callable[[], Engine], ...] = (
    # Pillow first: the default for every image conversion it can do.
    PillowEngine,
    # codecs Pillow lacks: HEIC/HEIF and JPEG XL, decoded or encoded by their reference programs
    LibheifEngine,
    LibjxlEngine,
    # camera raw, DICOM, OpenEXR, JPEG-LS and OpenRaster (issue 47): each the only engine of its
    # input formats, so it stands among the image engines
    LibrawEngine,
    DcmtkEngine,
    OpenExrEngine,
    JpeglsEngine,
    OpenRasterEngine,
    # Ghostscript before pypdf: where installed it is the better PDF optimizer (pypdf stays the
    # default for merge, metadata and watermarks, which Ghostscript does not list).
    GhostscriptEngine,
    PypdfEngine,
    ArchiveEngine,
    FontEngine,
    # FontForge after fontTools: fontTools (in-process, faster) keeps ttf/otf/woff/woff2 among themselves;
    # FontForge lists only what fontTools cannot do (Type 1, Type 42, sfd, cff, bdf/pcf, dfont out)
    FontForgeEngine,
    # subtitles in-process before ffmpeg's: no two list the same pair; pysubs2's keeps more of the styles
    SubtitleEngine,
    # external programs
    FfmpegEngine,
    # a video's subtitle streams and the subtitle formats only ffmpeg reads (the ffmpeg engine lists none)
    FfmpegSubtitleEngine,
    UnarEngine,
    # archives to ISO 9660 images (issue 47): the only engine writing iso, it reads what the two above read
    XorrisoEngine,
    # vector before ImageMagick: where both list a pair (svg -> png, eps -> pdf, png -> svg) the
    # dedicated program renders it better (ImageMagick wraps a bitmap in an SVG instead of tracing it)
    RsvgEngine,
    PostScriptEngine,
    PotraceEngine,
    PdftocairoEngine,
    # PostScript/PDF to CAD, plotter and XFig outlines (dxf, plt, fig, emf), and fig and plt read by
    # fig2dev and hp2xx: before ImageMagick, whose HPGL and FIG readers are these programs as delegates
    PstoeditEngine,
    Fig2devEngine,
    HpglEngine,
    ImageMagickEngine,
    GraphicsMagickEngine,
    QpdfEngine,
    PdftoppmEngine,
    PopplerTextEngine,
    # pages: the only engines of djvu (djvulibre) and xps/oxps (MuPDF)
    DjvuEngine,
    MupdfEngine,
    # Chromium before LibreOffice: both list html -> pdf and png, and a browser lays out a web page as
    # its author meant (LibreOffice's Writer/Web drops much of CSS). Chromium lists nothing else.
    ChromiumEngine,
    LibreOfficeEngine,
    # after LibreOffice: where both convert a document (docx -> odt), LibreOffice keeps its look
    PandocEngine,
    # comics before Calibre: both convert cbz/cb7 to pdf and epub, and this one keeps each page's picture
    # as it is, at its own size, in natural order (Calibre rescales and re-encodes them)
    ComicEngine,
    # after Pandoc: where both convert (docx -> epub), Pandoc's sandboxed reading is preferred
    CalibreEngine,
    # Markdown from what Pandoc does not read (pdf, slides, workbooks); it lists no pair Pandoc lists
    MarkdownEngine,
    # CHM unpacked by chmlib into one HTMLZ book, then Calibre's (given it by _compose below)
    ChmEngine,
    # data formats (json, yaml, toml, xml, plist, jsonl, xlsx, vcf, ics, ini, properties, sqlite) after
    # LibreOffice and Pandoc,
    # which stay the default for the table pairs they list (csv/tsv/xlsx among themselves, csv -> md)
    DataEngine,
    # 3D models: the only engine of its formats
    AssimpEngine,
    # mail (eml, msg, mbox, emlx): the only engine of its formats; prints its PDFs with Chromium (_compose)
    MailEngine,
    # GPS tracks and waypoints: the only engine of its formats; after the data engine, which keeps csv
    # to the tables (this one takes csv only to the GPS formats)
    GpsbabelEngine,
    # last: the pairs no engine above converts alone, through two or three of them (routes/)
    RouteEngine,
)


def registered_engines(factories: Sequence[Callable[[], Engine]] = ENGINE_FACTORIES) -> list[Engine]:
    """Every registered engine, made, present or not; those present are handed the instances they build
    on (``_compose``), so what each lists is what the service offers (`mcv doctor` shows them all)."""
    engines = [factory() for factory in factories]
    _compose([engine for engine in engines if engine.version() is not None])
    return engines


def available_engines(factories: Sequence[Callable[[], Engine]] = ENGINE_FACTORIES) -> list[Engine]:
    """The registered engines whose program or library is present, composed (``registered_engines``)."""
    return [engine for engine in registered_engines(factories) if engine.version() is not None]


def _compose(engines: Sequence[Engine]) -> None:
    """Hand engines that build on another the instance made here: Pandoc and the mail engine print their
    PDFs with the web engine's html -> pdf (text/pandoc_pdf.py), so the process keeps one warm browser;
    the Markdown engine reads ppt, odp, xls and ods once the warm LibreOffice made them pptx or xlsx, and
    doc once it made it docx for Pandoc."""
    printers = [engine for engine in engines if isinstance(engine, ChromiumEngine)]
    offices = [engine for engine in engines if isinstance(engine, LibreOfficeEngine)]
    pandocs = [engine for engine in engines if isinstance(engine, PandocEngine)]
    calibres = [engine for engine in engines if isinstance(engine, CalibreEngine)]
    for engine in engines:
        if isinstance(engine, RouteEngine):  # plans over every other engine present, in this order
            engine.route_through(engines)
        if isinstance(engine, PandocEngine | MailEngine) and printers:
            engine.print_with(printers[0])
        if isinstance(engine, MarkdownEngine) and offices:  # ppt, xls, ... read once made pptx, xlsx
            engine.convert_first_with(offices[0], pandocs[0] if pandocs else None)
        if isinstance(engine, ChmEngine) and calibres:  # CHM's pages become a book Calibre converts
            engine.convert_with(calibres[0])


def close_engines(engines: Sequence[Engine]) -> None:
    """Stop what engines keep running between tasks (warm LibreOffice); those with nothing have no close."""
    for engine in engines:
        close = getattr(engine, "close", None)
        if callable(close):
            close()
