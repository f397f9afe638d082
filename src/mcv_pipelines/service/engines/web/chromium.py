"""capture-website and html -> pdf/png with one warm headless Chromium (issue 24).

Only http(s) URLs are taken. Chromium is started once and kept (warm.py); each task gets a fresh
browser context, and every request its page makes passes the service's URL guard (the one import/url
uses, ``EngineRequest.url_guard``) through request_guard.py: a refused request fails, the capture
goes on. An uploaded HTML file is served to the page under a reserved ``.invalid`` name, never
``file:``, so it cannot read this machine's files either. Flags keep Chromium from talking to
anything but the page (no sync, component updates, background networking, QUIC).
The DevTools protocol gives what the command line cannot: paper size (``page_format``), header and
footer templates, backgrounds, full-page screenshots, and a clear error when the page does not
answer (instead of a capture of Chromium's error page).
"""

from __future__ import annotations

import base64
import time
import urllib.parse
import weakref
from collections.abc import Iterable, Mapping
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
from mcv_pipelines.service.engines.url_guard import ForbiddenAddress, UnresolvedHost
from mcv_pipelines.service.engines.web.request_guard import RequestPolicy, document_url
from mcv_pipelines.service.engines.web.warm import Page, WarmBrowser

__all__ = ["MAX_HTML_BYTES", "ChromiumEngine", "check_url"]

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--in-process-gpu",  # what compositing a headless page needs, without a process (~75 MB) of its own
    # The network service in the browser's process too: one process (~95 MB RSS) fewer, idle or not
    # (bench/memory.py). Only the pinning proxy on loopback and the pages' own hosts are dialled.
    "--enable-features=NetworkServiceInProcess2",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=MediaRouter,OptimizationHints,Translate,InterestFeedContentSuggestions",
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


_HTML_PDF_OPTIONS = tuple(option for option in _PDF_OPTIONS if option.name != "url")
_HTML_IMAGE_OPTIONS = tuple(option for option in _IMAGE_OPTIONS if option.name != "url")
MAX_HTML_BYTES = 50 * 1024 * 1024


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
    # Debian's headless shell first: the same engine without the desktop browser around it, and half
    # its memory (an idle warm browser 222 MB RSS in 3 processes against 423 MB in 6, bench/memory.py).
    programs = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
    version_pattern = r"(?:Chromium|Chrome) (\d+(?:\.\d+)+)"
    limits = Limits(memory=None)  # V8 reserves tens of GiB of address space; the pool bounds its RSS

    def __init__(self) -> None:
        super().__init__()
        self.browser = WarmBrowser([self.program or "chromium", *_FLAGS])
        weakref.finalize(self, self.browser.close)

    def close(self) -> None:
        """Stop the warm browser (the service is stopping)."""
        self.browser.close()

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        captures = [
            ConversionType(
                "capture-website", "website", target, self.name, options=options, engine_versions=versions
            )
            for target, options in (("pdf", _PDF_OPTIONS), ("png", _IMAGE_OPTIONS), ("jpg", _IMAGE_OPTIONS))
        ]
        documents = [
            ConversionType("convert", "html", target, self.name, options=options, engine_versions=versions)
            for target, options in (("pdf", _HTML_PDF_OPTIONS), ("png", _HTML_IMAGE_OPTIONS))
        ]
        return [*captures, *documents]

    def run(self, request: EngineRequest) -> EngineResult:
        if self.program is None or request.operation not in ("capture-website", "convert"):
            raise EngineError("UNSUPPORTED_OPERATION", f"chromium does not run {request.operation} here")
        allowed = ("pdf", "png", "jpg") if request.operation == "capture-website" else ("pdf", "png")
        if request.output_format not in allowed:
            wanted = request.output_format
            writes = ", ".join(allowed)
            message = f"{request.operation} here writes {writes}, not {wanted}"
            raise EngineError("UNSUPPORTED_CONVERSION", message)
        policy = RequestPolicy(request.url_guard)
        if request.operation == "capture-website":
            url = check_url(request.options.get("url"))
            _check_address(policy, url)
            stem = urllib.parse.urlsplit(url).hostname or "website"
        else:
            url, stem = self._document(request, policy), None
        data = self._capture(request, policy, url)
        if not data:
            raise EngineError("CONVERSION_FAILED", f"Chromium produced no {request.output_format}")
        target = output_path(request, request.output_format, fallback_stem=stem or "document")
        target.write_bytes(base64.b64decode(data))
        extra: dict[str, Any] = {}
        if policy.refused:  # the page went on without them; say which, as a log would
            extra["refused_requests"] = policy.refused[:50]
        return EngineResult(files=[target], extra=extra)

    @staticmethod
    def _document(request: EngineRequest, policy: RequestPolicy) -> str:
        if len(request.inputs) != 1:
            raise EngineError("INVALID_INPUT", "convert from html takes exactly one input file")
        source = request.inputs[0].path
        if source.stat().st_size > MAX_HTML_BYTES:
            raise EngineError("INVALID_INPUT", f"{source.name} is larger than {MAX_HTML_BYTES // 1024**2} MB")
        url = document_url(source.name)
        policy.documents[url] = (source.read_bytes(), "text/html; charset=utf-8")
        return url

    def _capture(self, request: EngineRequest, policy: RequestPolicy, url: str) -> str:
        options = request.options
        width = int_option(options, "screen_width", 1920, minimum=100, maximum=10000)
        height = int_option(options, "screen_height", 1080, minimum=100, maximum=10000)
        scale = float_option(options, "device_scale_factor", 1.0, minimum=0.1, maximum=5)
        wait = int_option(options, "wait_time", 0, minimum=0, maximum=60000) / 1000
        if request.output_format == "pdf":
            method, parameters = "Page.printToPDF", _pdf_parameters(options)
        else:
            method, parameters = "Page.captureScreenshot", self._screenshot_parameters(request)
        deadline = time.monotonic() + (request.timeout or 300)
        metrics = {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False}
        # Stages are the progress: a page ready, the page loaded (and waited for), captured.
        with self.browser.page(policy, deadline, request.cancelled, metrics) as page:
            request.progress(20)
            _navigate(page, policy, url, wait)
            request.progress(60)
            if parameters.pop("full_page", False):
                layout = page.call("Page.getLayoutMetrics")
                size = layout.get("cssContentSize") or layout.get("contentSize") or {}
                parameters["clip"] = {"x": 0, "y": 0, "scale": 1, "width": size.get("width", width),
                                      "height": size.get("height", height)}  # fmt: skip
                parameters["captureBeyondViewport"] = True
            data = str(page.call(method, parameters).get("data", ""))
            request.progress(90)
        return data

    @staticmethod
    def _screenshot_parameters(request: EngineRequest) -> dict[str, Any]:
        parameters: dict[str, Any] = {"format": "png" if request.output_format == "png" else "jpeg"}
        if request.output_format == "jpg":
            parameters["quality"] = int_option(request.options, "quality", 90, minimum=1, maximum=100)
        parameters["full_page"] = bool_option(request.options, "full_page", False)
        return parameters


def _check_address(policy: RequestPolicy, url: str) -> None:
    """The page itself must pass the guard: refused up front, with import/url's wording."""
    parts = urllib.parse.urlsplit(url)
    if policy.guard is None or parts.hostname is None:
        return
    try:
        policy.guard.addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except ForbiddenAddress as exc:
        raise EngineError(
            "CAPTURE_FORBIDDEN_ADDRESS",
            f"{url} is not captured: {exc} (this service refuses private and loopback addresses)",
        ) from None
    except UnresolvedHost as exc:
        raise EngineError("URL_UNREACHABLE", f"{url} does not answer ({exc})") from None


def _navigate(page: Page, policy: RequestPolicy, url: str, wait: float) -> None:
    answer = page.call("Page.navigate", {"url": url})
    if policy.navigation_refused_at_connect():  # else the proxy's 403 would be what is printed
        raise EngineError(
            "CAPTURE_FORBIDDEN_ADDRESS",
            f"{url} is not captured: its address changed to a refused one when the browser connected",
        )
    if answer.get("errorText"):
        if answer["errorText"] == "net::ERR_BLOCKED_BY_CLIENT":
            raise EngineError(
                "CAPTURE_FORBIDDEN_ADDRESS", f"{url} led to an address this service does not fetch from"
            )
        raise EngineError("URL_UNREACHABLE", f"{url} does not answer ({answer['errorText']})")
    # A page that never finishes loading is captured as it stands after 30 seconds.
    page.wait_loaded(policy.page_frame or "", time.monotonic() + 30)
    if policy.left:
        # A script that leaves at once can run before the document is parsed: the navigation it
        # starts stops the parser, and once refused the page stays as far as it got (under load an
        # empty body, printed blank). The document is loaded again with scripts off, as written.
        page.call("Emulation.setScriptExecutionDisabled", {"value": True})
        page.call("Page.navigate", {"url": url})
        page.wait_loaded(policy.page_frame or "", time.monotonic() + 30)
    if wait:
        time.sleep(min(wait, max(0.0, page.deadline - time.monotonic())))

