"""The route planner on listings written here: which pairs get a route, through which engines, and
which never do. Engines here only list (and, for the runner's tests, copy bytes); the real engines'
routes are run on the service in tests/integration/engines/test_routes_on_service.py."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from mcv_pipelines.service.engines.base import ConversionType, EngineRequest, EngineResult, OptionSpec
from mcv_pipelines.service.engines.routes.options import hop_options, route_options
from mcv_pipelines.service.engines.routes.planner import plan_routes


class _Listing:
    """An engine that lists ``pairs`` (input, output) under ``name``; its family is its class's module."""

    def __init__(
        self, name: str, pairs: Iterable[tuple[str, str]], options: tuple[OptionSpec, ...] = ()
    ) -> None:
        self.name = name
        self.pairs = list(pairs)
        self.options = options

    def version(self) -> str:
        return "1.0"

    def conversion_types(self) -> list[ConversionType]:
        return [ConversionType("convert", a, b, self.name, options=self.options) for a, b in self.pairs]

    def run(self, request: EngineRequest) -> EngineResult:
        raise AssertionError("the planner never runs an engine")


def _in_family(family: str) -> type[_Listing]:
    return type(f"{family}Listing", (_Listing,), {"__module__": f"mcv_pipelines.service.engines.{family}.x"})


def _engines() -> list[_Listing]:
    width = OptionSpec("width", "integer")
    quality = OptionSpec("quality", "integer")
    pages = OptionSpec("pages", "string")
    return [
        _in_family("image")("pillow", [("png", "jpg"), ("png", "webp"), ("png", "tiff"), ("png", "pdf"),
                                       ("png", "fits"), ("fits", "png"), ("jpg", "png"), ("tiff", "png")],
                            (width, quality, OptionSpec("filename", "string"))),
        _in_family("vector")("librsvg", [("svg", "png"), ("svg", "pdf")], (width,)),
        _in_family("pdf")("poppler", [("pdf", "png"), ("pdf", "jpg"), ("pdf", "txt")], (pages, width)),
        _in_family("office")("libreoffice", [("docx", "pdf"), ("docx", "txt"), ("pptx", "pdf")],
                                    (quality, OptionSpec("pdf_a", "boolean"))),
        _in_family("web")("chromium", [("html", "png"), ("html", "pdf")]),
        _in_family("av")("ffmpeg", [("mpc", "wav"), ("wav", "aac"), ("wav", "flac"), ("mp4", "wav")]),
        _in_family("font")("fonttools", [("ttf", "woff")]),
    ]  # fmt: skip


def _routes() -> dict[tuple[str, str], tuple[str, tuple[str, ...], str]]:
    return {pair: (r.shape, r.formats, r.engine) for pair, r in plan_routes(_engines()).items()}  # type: ignore[arg-type]  # listings stand in for engines


def test_the_everyday_pairs_route_through_the_engines_that_convert_each_hop() -> None:
    routes = _routes()
    assert routes[("svg", "jpg")] == ("picture", ("svg", "png", "jpg"), "librsvg+pillow")
    assert routes[("docx", "jpg")] == ("pages", ("docx", "pdf", "jpg"), "libreoffice+poppler")
    assert routes[("docx", "webp")] == ("pages", ("docx", "pdf", "png", "webp"), "libreoffice+poppler+pillow")
    assert routes[("pdf", "tiff")] == ("picture", ("pdf", "png", "tiff"), "poppler+pillow")
    assert routes[("pptx", "txt")] == ("text", ("pptx", "pdf", "txt"), "libreoffice+poppler")
    assert routes[("mpc", "aac")] == ("sound", ("mpc", "wav", "aac"), "ffmpeg+ffmpeg")


def test_a_web_page_becomes_a_picture_of_its_screenshot_not_of_its_printed_pages() -> None:
    assert _routes()[("html", "jpg")] == ("picture", ("html", "png", "jpg"), "chromium+pillow")


def test_pairs_an_engine_lists_and_pairs_without_a_meaning_get_no_route() -> None:
    routes = _routes()
    assert ("svg", "png") not in routes  # librsvg converts it alone
    assert ("png", "txt") not in routes  # a picture wrapped in a PDF has no text to extract
    assert ("docx", "md") not in routes  # docx has a text conversion of its own: none through its pages
    assert ("svg", "txt") not in routes  # nor a drawing
    assert not {("png", "docx"), ("ttf", "png"), ("mpc", "jpg")} & routes.keys()  # across media
    assert routes[("mp4", "aac")] == ("sound", ("mp4", "wav", "aac"), "ffmpeg+ffmpeg")  # a video's sound
    assert ("docx", "fits") not in routes  # a document becomes the pictures people share, not FITS
    assert routes[("fits", "jpg")][0] == "picture"  # while a picture may become any picture


def test_a_plan_is_the_same_every_time() -> None:
    assert list(plan_routes(_engines())) == list(plan_routes(_engines()))  # type: ignore[arg-type]  # listings


def test_options_go_to_the_hop_they_shape() -> None:
    route = plan_routes(_engines())[("docx", "webp")]  # type: ignore[arg-type]  # listings stand in
    assert [spec.name for spec in route_options(route)] == ["width", "quality", "filename", "pages"]
    options = {"width": 200, "quality": 70, "pages": "1-2", "filename": "a.webp", "bogus": 1, "pdf_a": True}
    shares = hop_options(route, options)
    # quality is LibreOffice's too (its PDF's pictures), but it shapes the webp: the last hop only;
    # pdf_a would only shape the PDF handed on: no hop gets it
    assert shares == [{}, {"pages": "1-2"}, {"width": 200, "quality": 70, "filename": "a.webp"}]


@pytest.mark.parametrize(("pair", "listed"), [(("docx", "jpg"), ["pages", "width"])])
def test_an_option_only_the_last_hop_may_take_is_not_listed_when_it_does_not_take_it(
    pair: tuple[str, str], listed: list[str]
) -> None:
    route = plan_routes(_engines())[pair]  # type: ignore[arg-type]  # listings stand in for engines
    assert [spec.name for spec in route_options(route)] == listed  # no quality: poppler's jpg takes none
