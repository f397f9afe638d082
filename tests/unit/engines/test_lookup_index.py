"""find_conversion's index (issue 24: it walked every listing for each task, ~10 ms of CPU) must
choose exactly what walking the listings in the registry's order chooses."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from mcv_pipelines.service.engines import available_engines
from mcv_pipelines.service.engines.base import ConversionType, Engine, EngineRequest, EngineResult
from mcv_pipelines.service.engines.lookup import find_conversion, forget_listing, normalize_listing_format


def _walked(
    listings: Sequence[tuple[Engine, list[ConversionType]]],
    operation: str,
    source: str,
    target: str | None,
    engine: str | None,
) -> tuple[Engine, ConversionType] | None:
    """The choice as the lookup made it before it had an index: every listing, in order."""
    source = normalize_listing_format(source)
    target = None if target is None else normalize_listing_format(target)
    for candidate, listing in listings:
        for conversion in listing:
            if conversion.operation != operation or (engine is not None and conversion.engine != engine):
                continue
            if conversion.input_format not in (source, "any"):
                continue
            wanted = (source, "json", "any") if target is None else (target, "any")
            if conversion.output_format in wanted:
                return candidate, conversion
    return None


class _Listed:
    def __init__(self, name: str, listing: list[ConversionType]) -> None:
        self.name = name
        self.listing = listing

    def version(self) -> str:
        return "1"

    def conversion_types(self) -> Iterable[ConversionType]:
        return list(self.listing)

    def run(self, request: EngineRequest) -> EngineResult:
        raise NotImplementedError


@pytest.fixture(scope="module")
def engines() -> list[Engine]:
    return available_engines()


def test_every_listed_conversion_on_this_machine_finds_what_walking_the_listings_finds(
    engines: list[Engine],
) -> None:
    listings = [(engine, list(engine.conversion_types())) for engine in engines]
    asked: set[tuple[str, str, str | None, str | None]] = set()
    for _, listing in listings:
        for conversion in listing:
            source = "pdf" if conversion.input_format == "any" else conversion.input_format
            target = None if conversion.output_format in ("any", "json") else conversion.output_format
            asked.add((conversion.operation, source, target, None))
            asked.add((conversion.operation, source, target, conversion.engine))
            asked.add((conversion.operation, source, conversion.output_format, None))
    asked |= {("convert", "jpeg", "tif", None), ("convert", "htm", "pdf", None),
              ("convert", "png", "nope", None), ("nope", "png", "jpg", None),
              ("convert", "docx", "pdf", "ffmpeg")}  # fmt: skip
    assert len(asked) > 100
    for operation, source, target, engine in sorted(asked, key=str):
        assert find_conversion(engines, operation, source, target, engine) == _walked(
            listings, operation, source, target, engine
        ), (operation, source, target, engine)


def test_an_input_of_any_keeps_its_place_in_the_listing() -> None:
    anything = ConversionType("archive", "any", "zip", "a")
    pdfs = ConversionType("archive", "pdf", "zip", "a")
    first = _Listed("a", [anything, pdfs])
    assert find_conversion([first], "archive", "pdf", "zip") == (first, anything)
    second = _Listed("b", [pdfs, anything])
    assert find_conversion([second], "archive", "pdf", "zip") == (second, pdfs)


def test_a_listing_that_changed_is_found_once_forgotten() -> None:
    engine = _Listed("a", [ConversionType("convert", "md", "html", "a")])
    assert find_conversion([engine], "convert", "md", "pdf") is None
    engine.listing.append(ConversionType("convert", "md", "pdf", "a"))
    forget_listing(engine)
    found = find_conversion([engine], "convert", "md", "pdf")
    assert found is not None
    assert found[1].output_format == "pdf"
