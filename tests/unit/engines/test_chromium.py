"""capture-website with headless Chromium against a page served on loopback (never the internet)."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Callable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageStat
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine

RequireEngine = Callable[..., Engine]

PAGE = """<!doctype html><html><head><title>t</title></head>
<body style="margin:0;background:#ffffff;font-family:sans-serif">
<div style="background:#1a4fb0;color:#ffffff;height:120px;font-size:40px">Hello capture</div>
<p>Second line of the test page.</p></body></html>"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("site")
    (root / "index.html").write_text(PAGE, encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


@pytest.fixture
def chromium(require_engine: RequireEngine) -> Iterator[ChromiumEngine]:
    require_engine("chromium")
    engine = ChromiumEngine()
    yield engine
    engine.close()


def make_request(tmp_path: Path, output_format: str, options: Mapping[str, Any]) -> EngineRequest:
    return EngineRequest(
        operation="capture-website",
        input_format="website",
        output_format=output_format,
        options=dict(options),
        inputs=[],
        output_dir=tmp_path / "out",
        work_dir=tmp_path / "work",
        timeout=60,
    )


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_listing_is_website_to_pdf_png_jpg_and_html_to_pdf_png(chromium: ChromiumEngine) -> None:
    types = list(chromium.conversion_types())
    assert {(t.operation, t.input_format, t.output_format) for t in types} == {
        *(("capture-website", "website", f) for f in ("pdf", "png", "jpg")),
        ("convert", "html", "pdf"),
        ("convert", "html", "png"),
    }


def test_png_screenshot_has_the_window_size_and_is_not_blank(
    chromium: ChromiumEngine, site: str, tmp_path: Path
) -> None:
    options = {"url": site, "screen_width": 400, "screen_height": 300}
    result = chromium.run(make_request(tmp_path, "png", options))
    assert [f.name for f in result.files] == ["127.0.0.1.png"]
    with Image.open(result.files[0]) as image:
        assert (image.format, image.size) == ("PNG", (400, 300))
        variance = ImageStat.Stat(image.convert("L")).var[0]
    assert variance > 100  # a blue banner on white, not an empty page


def test_device_scale_factor_multiplies_pixels(chromium: ChromiumEngine, site: str, tmp_path: Path) -> None:
    options = {
        "url": site,
        "screen_width": 300,
        "screen_height": 200,
        "device_scale_factor": 2,
        "filename": "x.jpg",
    }
    result = chromium.run(make_request(tmp_path, "jpg", options))
    with Image.open(result.files[0]) as image:
        assert (image.format, image.size) == ("JPEG", (600, 400))


def test_pdf_capture_holds_the_page_text(chromium: ChromiumEngine, site: str, tmp_path: Path) -> None:
    result = chromium.run(make_request(tmp_path, "pdf", {"url": site}))
    text = PdfReader(result.files[0]).pages[0].extract_text()
    assert "Hello capture" in text


def test_pdf_page_format_and_templates(chromium: ChromiumEngine, site: str, tmp_path: Path) -> None:
    options = {
        "url": site,
        "page_format": "a4",
        "header_template": '<div style="font-size:10px">Report header</div>',
        "footer_template": '<div style="font-size:10px">Page <span class="pageNumber"></span></div>',
    }
    page = PdfReader(chromium.run(make_request(tmp_path, "pdf", options)).files[0]).pages[0]
    # A4 is 595.3 x 841.9 pt; Chromium rounds the page to whole CSS pixels.
    assert float(page.mediabox.width) == pytest.approx(595.3, abs=1)
    assert float(page.mediabox.height) == pytest.approx(841.9, abs=1)
    text = page.extract_text()
    assert "Report header" in text
    assert "Page 1" in text


def test_letter_landscape_pdf(chromium: ChromiumEngine, site: str, tmp_path: Path) -> None:
    options = {"url": site, "page_format": "letter", "landscape": True}
    page = PdfReader(chromium.run(make_request(tmp_path, "pdf", options)).files[0]).pages[0]
    assert (round(float(page.mediabox.width)), round(float(page.mediabox.height))) == (792, 612)


def test_full_page_screenshot_is_taller_than_the_window(
    chromium: ChromiumEngine, site: str, tmp_path: Path
) -> None:
    options = {"url": site, "screen_width": 300, "screen_height": 100, "full_page": True}
    with Image.open(chromium.run(make_request(tmp_path, "png", options)).files[0]) as image:
        assert image.width == 300
        assert image.height > 150


@pytest.mark.parametrize("url", ["file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/x", "", None])
def test_only_http_urls_are_taken(chromium: ChromiumEngine, tmp_path: Path, url: str | None) -> None:
    with pytest.raises(EngineError) as caught:
        chromium.run(make_request(tmp_path, "png", {"url": url}))
    assert caught.value.code == "INVALID_OPTION"
    assert "url" in caught.value.message


def test_a_url_that_does_not_answer_is_an_error(chromium: ChromiumEngine, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    with pytest.raises(EngineError) as caught:
        chromium.run(make_request(tmp_path, "png", {"url": url}))
    assert caught.value.code == "URL_UNREACHABLE"
    assert url in caught.value.message
    assert not any((tmp_path / "out").glob("*"))
