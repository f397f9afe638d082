"""Pandoc's PDF (text/pandoc_pdf.py): listed and written only with a printer, which is the engine the
registry already made, never a second one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines import available_engines, close_engines, find_conversion
from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest
from mcv_pipelines.service.engines.text.pandoc import PandocEngine
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine

RequireEngine = Callable[..., Engine]


def test_without_a_printer_pandoc_lists_and_writes_no_pdf(
    require_engine: RequireEngine, make_request: Callable[..., EngineRequest], tmp_path: Path
) -> None:
    require_engine("pandoc")
    alone = PandocEngine()  # as on a machine without Chromium: the registry hands it nothing
    assert find_conversion([alone], "convert", "md", "pdf") is None
    assert find_conversion([alone], "convert", "md", "html") is not None
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n")
    with pytest.raises(EngineError) as raised:
        alone.run(make_request("convert", "md", "pdf", [notes]))
    assert raised.value.code == "UNSUPPORTED_CONVERSION"


def test_the_registry_hands_pandoc_its_own_browser(require_engine: RequireEngine) -> None:
    require_engine("pandoc")
    require_engine("chromium", "convert", "html", "pdf")
    engines = available_engines()
    try:
        pandoc = next(engine for engine in engines if isinstance(engine, PandocEngine))
        browsers = [engine for engine in engines if isinstance(engine, ChromiumEngine)]
        assert len(browsers) == 1
        assert pandoc.printer is not None
        assert pandoc.printer.engine is browsers[0]
        found = find_conversion(engines, "convert", "md", "pdf")
        assert found is not None
        assert found[0] is pandoc
        assert found[1].meta["pdf_printed_by"] == "chromium"
        # html is the browser's own, epub Calibre's: Pandoc does not list them to pdf
        html = find_conversion(engines, "convert", "html", "pdf")
        assert html is not None
        assert html[1].engine == "chromium"
        assert find_conversion([pandoc], "convert", "epub", "pdf") is None
    finally:
        close_engines(engines)
