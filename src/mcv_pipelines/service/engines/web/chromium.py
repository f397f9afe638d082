"""capture-website with headless Chromium: a web page to PDF, PNG or JPG.

Only http(s) URLs are taken. Each capture gets a fresh profile and flags that keep Chromium from
talking to anything but the target (no sync, component updates, background networking, QUIC).
Chromium is driven over the DevTools protocol (devtools_pipe.py), which gives what its command line
cannot: paper size (``page_format``), header and footer templates, backgrounds, full-page screenshots,
and a clear error when the page does not answer (instead of a capture of Chromium's error page).
"""

from __future__ import annotations

import base64
import shutil
import tempfile
import time
import urllib.parse
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import (
    bool_option,
    enum_option,
    float_option,
    int_option,
    str_option,
)
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.seal import Limits
from mcv_pipelines.service.engines.web.devtools_pipe import DevToolsSession

__all__ = ["ChromiumEngine", "check_url"]

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
)
_MM = 1 / 25.4
# Paper sizes in inches (width, height); the A series is defined in millimetres.
PAGE_FORMATS: dict[str, tuple[float, float]] = {
    "letter": (8.5, 11), "legal": (8.5, 14), "tabloid": (11, 17), "ledger": (17, 11),
    **{name: (w * _MM, h * _MM) for name, (w, h) in {
        "a0": (841, 1189), "a1": (594, 841), "a2": (420, 594), "a3": (297, 420),
        "a4": (210, 297), "a5": (148, 210), "a6": (105, 148),
    }.items()},
}  # fmt: skip
_COMMON = (
    OptionSpec("url", "string", None, None, "The http(s) address to capture"),
    OptionSpec("screen_width", "integer", 1920, None, "Browser window width in pixels"),
    OptionSpec("screen_height", "integer", 1080, None, "Browser window height in pixels"),
    OptionSpec("device_scale_factor", "float", 1, None, "Pixels per CSS pixel (2 for sharp screenshots)"),
    OptionSpec("wait_time", "integer", 0, None, "Milliseconds to wait after the page loaded"),
)
_PDF_OPTIONS = (
    *_COMMON,
    OptionSpec("page_format", "enum", "letter", tuple(PAGE_FORMATS), "Paper size"),
    OptionSpec("landscape", "boolean", False),
    OptionSpec("print_background", "boolean", True),
    OptionSpec(
        "header_template", "string", None, None, "HTML of the header (classes pageNumber, totalPages...)"
    ),
    OptionSpec("footer_template", "string", None, None, "HTML of the footer"),
    OptionSpec("margin", "float", None, None, "Page margin in inches (0.4 when a header or footer is set)"),
)
_IMAGE_OPTIONS = (
    *_COMMON,
    OptionSpec("full_page", "boolean", False, None, "Capture the whole page, not just the window"),
    OptionSpec("quality", "integer", 90, None, "JPG quality (1-100)"),
)


def check_url(value: object) -> str:
    """The URL if it is http(s) with a host, else EngineError."""
    if not isinstance(value, str) or not value.strip():
        raise EngineError("INVALID_OPTION", "capture-website needs a url")
    url = value.strip()
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EngineError("INVALID_OPTION", f"url must be an http or https address, got {url!r}")
    return url


def _pdf_parameters(options: Mapping[str, Any]) -> dict[str, Any]:
    page = enum_option(options, "page_format", "letter", tuple(PAGE_FORMATS))
    width, height = PAGE_FORMATS[page]
    header = str_option(options, "header_template")
    footer = str_option(options, "footer_template")
    margin = float_option(options, "margin", 0.4, minimum=0, maximum=10)
    parameters: dict[str, Any] = {
        "paperWidth": width,
        "paperHeight": height,
        "landscape": bool_option(options, "landscape", False),
        "printBackground": bool_option(options, "print_background", True),
        "marginTop": margin,
        "marginBottom": margin,
        "marginLeft": margin,
        "marginRight": margin,
        "displayHeaderFooter": bool(header or footer),
    }
    if header or footer:
        # An unset template would print Chromium's default (date, title); an empty span prints nothing.
        parameters["headerTemplate"] = header or "<span></span>"
        parameters["footerTemplate"] = footer or "<span></span>"
    return parameters


class ChromiumEngine(ProgramEngine):
    name = "chromium"
    programs = ("chromium", "chromium-browser", "google-chrome")
    version_pattern = r"(?:Chromium|Chrome) (\d+(?:\.\d+)+)"
    limits = Limits(memory=None)  # V8 reserves tens of GiB of address space; the pool bounds its RSS

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [
            ConversionType(
                "capture-website", "website", target, self.name, options=options, engine_versions=versions
            )
            for target, options in (("pdf", _PDF_OPTIONS), ("png", _IMAGE_OPTIONS), ("jpg", _IMAGE_OPTIONS))
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "capture-website" or self.program is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"chromium does not run {request.operation} here")
        if request.output_format not in ("pdf", "png", "jpg"):
            wanted = request.output_format
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"capture-website writes pdf, png or jpg, not {wanted}"
            )
        options = request.options
        url = check_url(options.get("url"))
        width = int_option(options, "screen_width", 1920, minimum=100, maximum=10000)
        height = int_option(options, "screen_height", 1080, minimum=100, maximum=10000)
        scale = float_option(options, "device_scale_factor", 1.0, minimum=0.1, maximum=5)
        wait = int_option(options, "wait_time", 0, minimum=0, maximum=60000) / 1000
        if request.output_format == "pdf":
            method, parameters = "Page.printToPDF", _pdf_parameters(options)
        else:
            method, parameters = "Page.captureScreenshot", self._screenshot_parameters(request)
        host = urllib.parse.urlsplit(url).hostname or "website"
        target = output_path(request, request.output_format, fallback_stem=host)
        request.work_dir.mkdir(parents=True, exist_ok=True)
        profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=request.work_dir))
        argv = [self.program, *_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"]
        deadline = time.monotonic() + (request.timeout or 300)
        try:
            # Stages are the progress: browser up, page loaded (and waited for), captured.
            with DevToolsSession(argv, deadline, request.cancelled) as browser:
                session = _open_page(browser, width, height, scale)
                request.progress(20)
                _navigate(browser, session, url, wait)
                request.progress(60)
                if parameters.pop("full_page", False):
                    metrics = browser.call("Page.getLayoutMetrics", session=session)
                    size = metrics.get("cssContentSize") or metrics.get("contentSize") or {}
                    parameters["clip"] = {"x": 0, "y": 0, "scale": 1, "width": size.get("width", width),
                                          "height": size.get("height", height)}  # fmt: skip
                    parameters["captureBeyondViewport"] = True
                data = browser.call(method, parameters, session=session).get("data", "")
                request.progress(90)
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        if not data:
            raise EngineError("CONVERSION_FAILED", f"Chromium produced no {request.output_format} for {url}")
        target.write_bytes(base64.b64decode(data))
        return EngineResult(files=[target])

    @staticmethod
    def _screenshot_parameters(request: EngineRequest) -> dict[str, Any]:
        parameters: dict[str, Any] = {"format": "png" if request.output_format == "png" else "jpeg"}
        if request.output_format == "jpg":
            parameters["quality"] = int_option(request.options, "quality", 90, minimum=1, maximum=100)
        parameters["full_page"] = bool_option(request.options, "full_page", False)
        return parameters


def _open_page(browser: DevToolsSession, width: int, height: int, scale: float) -> str:
    target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
    session: str = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    browser.call("Page.enable", session=session)
    metrics = {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False}
    browser.call("Emulation.setDeviceMetricsOverride", metrics, session=session)
    return session


def _navigate(browser: DevToolsSession, session: str, url: str, wait: float) -> None:
    answer = browser.call("Page.navigate", {"url": url}, session=session)
    if answer.get("errorText"):
        raise EngineError("URL_UNREACHABLE", f"{url} does not answer ({answer['errorText']})")
    # A page that never finishes loading is captured as it stands after 30 seconds.
    browser.wait_event("Page.loadEventFired", session, time.monotonic() + 30)
    if wait:
        time.sleep(min(wait, max(0.0, browser.deadline - time.monotonic())))
