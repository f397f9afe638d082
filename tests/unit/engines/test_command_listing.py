"""The listing of the external-program engines follows base.py's conventions on this machine."""

from __future__ import annotations

import shutil

import pytest

from engine_needs import ENGINE_PROGRAMS
from mcv_pipelines.service.engines import ENGINE_FACTORIES, available_engines
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.image.magick import GraphicsMagickEngine, ImageMagickEngine
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from mcv_pipelines.service.engines.pdf.ghostscript import GhostscriptEngine
from mcv_pipelines.service.engines.pdf.pdftoppm import PdftoppmEngine
from mcv_pipelines.service.engines.pdf.qpdf import QpdfEngine
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine

EXTERNAL = (
    FfmpegEngine, ImageMagickEngine, GraphicsMagickEngine, GhostscriptEngine, QpdfEngine, PdftoppmEngine,
    LibreOfficeEngine, ChromiumEngine,
)  # fmt: skip


def external_engines() -> list[Engine]:
    return available_engines(EXTERNAL)


def test_every_external_engine_is_registered() -> None:
    assert set(EXTERNAL) <= set(ENGINE_FACTORIES)


def test_rar_is_never_listed() -> None:
    for engine in external_engines():
        for entry in engine.conversion_types():
            assert "rar" not in (entry.input_format, entry.output_format), entry


def test_entries_follow_the_listing_conventions() -> None:
    for engine in external_engines():
        entries = list(engine.conversion_types())
        assert entries, engine.name
        for entry in entries:
            assert entry.engine == engine.name
            assert [v.version for v in entry.engine_versions] == [engine.version()]
            for fmt in (entry.input_format, entry.output_format):
                assert fmt == fmt.lower()
                assert not fmt.startswith(".")
                assert fmt != "jpeg"
            if entry.operation in ("optimize", "watermark", "metadata/write"):
                assert entry.output_format == entry.input_format
            if entry.operation == "metadata":
                assert entry.output_format == "json"
            if entry.operation == "command":
                assert (entry.input_format, entry.output_format) == ("any", "any")
                assert entry.engine in ("ffmpeg", "imagemagick", "graphicsmagick")
            if entry.operation == "capture-website":
                assert entry.input_format == "website"
            for option in entry.options:
                if option.type == "enum":
                    assert option.possible_values


def test_an_engine_whose_program_is_missing_is_not_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    names = {engine.name for engine in external_engines()}
    assert names == set()
    assert not any(shutil.which(program) for program in ENGINE_PROGRAMS)
