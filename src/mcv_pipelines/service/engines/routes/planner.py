"""The routes of the pairs no engine converts alone, found in the engines' listings when they are read.

The rule (docs/formats.md states it too): a route only re-encodes what one engine's direct conversion
already means. Its first hop is a conversion an engine lists, which gives the meaning; the hops after it
stay in one medium. So there are four shapes, and nothing else is routed:

- picture: the source's own picture (a direct conversion to png or tiff: a drawing, a web page, a slide,
  a picture of another codec), then that picture in the target's picture format: any picture format for
  a picture, the pictures people share and print (png, jpg, webp, avif, tiff, gif, bmp) for the rest;
- pages: a document's pages (a direct conversion to pdf by an engine that lays out pages, not a picture
  wrapped in a PDF), then each page as a picture, through png where the page renderer does not write the
  target itself. A document of n pages gives n pictures, as pdf to png does;
- text: a document's pages, then their text (txt or md) as the PDF reader extracts it, for the documents
  that have no direct conversion to text at all (slides, sheets, books in formats only Calibre reads);
- sound: the source's sound as wav or flac, then in the target's sound format.

Among the routes of a pair: the fewest hops (at most three), then the shapes in the order above (a web
page's own screenshot before its printed pages), then the lossless intermediates in the order png,
tiff, pdf, wav, flac. Each hop runs on the engine that converts that pair alone (the first in the
registry), so a hop is exactly the conversion a task of its own would be. A pair any engine lists is
never routed, and every intermediate is lossless: no lossy step stands where a lossless one could.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from mcv_pipelines.service.engines.base import ConversionType, Engine

__all__ = [
    "EVERYDAY_PICTURES", "Hop", "Route", "direct_conversions", "family_of", "plan_routes",
]  # fmt: skip

# The families (folders under engines/) whose engines decode and encode pictures: their png -> X is a
# picture format X, and their X -> pdf wraps a picture (no pages to lay out).
_PICTURE_FAMILIES = frozenset({"image", "raw"})
# Written from png by a picture engine without being a picture: a PDF wrapping it
_NOT_PICTURES = frozenset({"pdf"})
# Drawings and comics hold shapes and pictures, not text worth extracting
_NO_TEXT_FAMILIES = frozenset({"image", "raw", "vector"})
_NO_TEXT = frozenset({"cbz", "cbr", "cbt", "cb7", "odg", "fodg", "otg", "sxd", "std", "emf", "wmf"})
# What a document, drawing or page becomes as a picture: the formats people share and print. A picture
# itself may become any picture format (an astronomer's FITS as a PNG, a PNG as a Sun raster).
EVERYDAY_PICTURES = frozenset({"png", "jpg", "webp", "avif", "tiff", "gif", "bmp"})
_PICTURE_VIA = ("png", "tiff")
_SOUND_VIA = ("wav", "flac")
_TEXTS = ("txt", "md")
MAX_HOPS = 3


@dataclass(frozen=True, slots=True)
class Hop:
    """One conversion of a route: the engine that runs it and the listing entry it runs under."""

    engine: Engine
    conversion: ConversionType

    @property
    def label(self) -> str:
        return f"{self.conversion.engine} {self.conversion.input_format} -> {self.conversion.output_format}"


@dataclass(frozen=True, slots=True)
class Route:
    """A pair's hops in order; ``shape`` names the rule that allowed it."""

    shape: str
    hops: tuple[Hop, ...]

    @property
    def source(self) -> str:
        return self.hops[0].conversion.input_format

    @property
    def target(self) -> str:
        return self.hops[-1].conversion.output_format

    @property
    def engine(self) -> str:
        """The listing's engine name: the hops' engines in order, joined by ``+``."""
        return "+".join(hop.conversion.engine for hop in self.hops)

    @property
    def formats(self) -> tuple[str, ...]:
        return (self.source, *(hop.conversion.output_format for hop in self.hops))


def family_of(engine: Engine) -> str:
    """The folder under engines/ that an engine's class lives in (``image`` for Pillow)."""
    parts = type(engine).__module__.split(".")
    return parts[parts.index("engines") + 1] if "engines" in parts[:-1] else ""


def direct_conversions(engines: Sequence[Engine]) -> dict[tuple[str, str], Hop]:
    """(input, output) -> the hop the service runs for that convert task: the first engine listing it."""
    direct: dict[tuple[str, str], Hop] = {}
    for engine in engines:
        if family_of(engine) == "routes":
            continue  # a route is not a hop: routes are never chained
        for conversion in engine.conversion_types():
            if conversion.operation == "convert" and "any" not in (conversion.input_format,
                                                                    conversion.output_format):  # fmt: skip
                pair = (conversion.input_format, conversion.output_format)
                direct.setdefault(pair, Hop(engine, conversion))
    return direct


@dataclass(frozen=True, slots=True)
class _Media:
    """What the listing says each format is, as far as routes need it."""

    pictures: frozenset[str]  # written from png by a picture engine
    picture_sources: frozenset[str]  # made a png by a picture engine: pictures of another codec
    sounds: frozenset[str]  # written from wav by ffmpeg
    paged: frozenset[str]  # laid out as pages: a pdf made of it by an engine outside the picture families
    worded: frozenset[str]  # paged, with text to extract, and no direct conversion to txt, md or html

    @classmethod
    def of(cls, direct: Mapping[tuple[str, str], Hop]) -> _Media:
        pictures, picture_sources, sounds, paged, worded = set(), set(), set(), set(), set()
        texts = {source for source, target in direct if target in (*_TEXTS, "html")}
        for (source, target), hop in direct.items():
            family = family_of(hop.engine)
            if source == "png" and family in _PICTURE_FAMILIES and target not in _NOT_PICTURES:
                pictures.add(target)
            if target == "png" and family in _PICTURE_FAMILIES:
                picture_sources.add(source)
            if source == "wav" and hop.conversion.engine == "ffmpeg":
                sounds.add(target)
            if target == "pdf" and family not in _PICTURE_FAMILIES:
                paged.add(source)
                if family not in _NO_TEXT_FAMILIES and source not in texts and source not in _NO_TEXT:
                    worded.add(source)
        return cls(*(frozenset(found) for found in (pictures, picture_sources, sounds, paged, worded)))


def _chains(source: str, target: str, media: _Media) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Candidate (shape, formats) of a pair in the order of preference for routes of equal length."""
    if target in media.pictures and (target in EVERYDAY_PICTURES or source in media.picture_sources):
        for via in _PICTURE_VIA:
            yield "picture", (source, via, target)
        if source in media.paged:
            yield "pages", (source, "pdf", target)
            for via in _PICTURE_VIA:
                yield "pages", (source, "pdf", via, target)
    if target in _TEXTS and source in media.worded:
        yield "text", (source, "pdf", target)
    if target in media.sounds:
        for via in _SOUND_VIA:
            yield "sound", (source, via, target)


def _route(source: str, target: str, direct: Mapping[tuple[str, str], Hop], media: _Media) -> Route | None:
    best: Route | None = None
    for shape, formats in _chains(source, target, media):
        if len(formats) - 1 > MAX_HOPS or len(set(formats)) != len(formats):
            continue  # never back through a format already passed
        hops = [direct.get(pair) for pair in pairwise(formats)]
        if any(hop is None for hop in hops):
            continue
        if best is None or len(hops) < len(best.hops):
            best = Route(shape, tuple(hop for hop in hops if hop is not None))
    return best


def plan_routes(engines: Sequence[Engine]) -> dict[tuple[str, str], Route]:
    """Every routed pair of ``engines`` (in registry order) with its route, in a stable order."""
    direct = direct_conversions(engines)
    media = _Media.of(direct)
    # an engine may name pairs it found failing however their input arrives (ffmpeg's MLP of a DFPWM)
    refused = {pair for engine in engines for pair in getattr(engine, "refused_pairs", ())}
    sources = sorted({source for source, _ in direct})
    targets = sorted(media.pictures | media.sounds | set(_TEXTS))
    routes: dict[tuple[str, str], Route] = {}
    for source in sources:
        for target in targets:
            if source != target and (source, target) not in direct and (source, target) not in refused:
                found = _route(source, target, direct, media)
                if found is not None:
                    routes[(source, target)] = found
    return routes

