"""Lookups: by key, default engine, formats per operation, nearest supported outputs."""

from __future__ import annotations

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor


def test_lookup_by_key(catalog: Catalog) -> None:
    desc = catalog.get(ConversionKey("convert", "docx", "pdf", "libreoffice"))
    assert desc is not None
    assert desc.credits == 4
    assert catalog.get(ConversionKey("convert", "docx", "pdf", "nope")) is None


def test_formats_known_per_operation(catalog: Catalog) -> None:
    assert catalog.input_formats("convert") == ["docx", "gif", "heic", "jpg", "png"]
    assert catalog.output_formats("convert", "jpg") == ["pdf", "png", "webp"]
    assert catalog.output_formats("archive") == ["tar.gz", "zip"]
    assert catalog.operations[:3] == ["archive", "capture-website", "command"]
    assert catalog.engines_of("convert") == ["imagemagick", "libheif", "libreoffice", "oldgif", "vips"]


def test_engines_default_first(catalog: Catalog) -> None:
    assert [d.engine for d in catalog.engines("convert", "gif", "webp")] == ["imagemagick", "oldgif"]
    assert catalog.default_engine("convert", "jpg", "mp3") is None


def test_nearest_outputs_puts_close_names_first(catalog: Catalog) -> None:
    assert catalog.nearest_outputs("convert", "jpg", "pnj") == ["png", "pdf", "webp"]
    assert catalog.nearest_outputs("convert", "jpg", "mp3", limit=2) == ["pdf", "png"]
    assert catalog.nearest_outputs("convert", "tiff", "png") == []


def _entries() -> list[Descriptor]:
    return [
        Descriptor("merge", "pdf", "pdf", "qpdf", default=True),
        Descriptor("convert", "png", "webp", "pillow"),
        Descriptor("convert", "png8", "png", "pillow", default=True),
        Descriptor("convert", "png", "webp", "vips", default=True),
        Descriptor("convert", "png", "jpg", "pillow", default=True),
        Descriptor("convert-video", "mp4", "webm", "ffmpeg", default=True),
        Descriptor("convert", "pngx", "webp", "pillow", default=True),
    ]


def test_formats_and_operations_that_share_a_prefix_are_kept_apart() -> None:
    """png against png8 and pngx, convert against convert-video: the runs found by bisection end
    where the name does, not where its prefix does."""
    catalog = Catalog(_entries())
    assert catalog.output_formats("convert", "png") == ["jpg", "webp"]
    assert catalog.input_formats("convert") == ["png", "png8", "pngx"]
    assert catalog.output_formats("convert") == ["jpg", "png", "webp"]
    assert catalog.engines_of("convert") == ["pillow", "vips"]
    assert catalog.accepts("convert", "png")
    assert not catalog.accepts("convert", "pn")
    assert not catalog.has_operation("conv")
    assert catalog.has_operation("convert-video")
    assert not catalog.produces("convert", "webm")
    assert catalog.get(ConversionKey("convert", "png8", "png", "pillow")) is not None
    assert catalog.get(ConversionKey("convert", "png", "png", "pillow")) is None


def test_an_unsorted_catalog_answers_as_its_sorted_self() -> None:
    """Listing order is kept among a pair's engines (default first), whatever order the keys came in."""
    unsorted = Catalog(_entries())
    ordered = Catalog(sorted(_entries(), key=lambda d: d.key))
    for catalog in (unsorted, ordered):
        assert [d.engine for d in catalog.engines("convert", "png", "webp")] == ["vips", "pillow"]
        assert catalog.default_engine("convert", "png", "webp") == "vips"
        assert catalog.operations == ["convert", "convert-video", "merge"]
        assert len(catalog) == 7
    assert [d.key for d in unsorted] == [d.key for d in _entries()]  # its own order, as given
