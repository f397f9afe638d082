"""Lookups: by key, default engine, formats per operation, nearest supported outputs."""

from __future__ import annotations

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey


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
