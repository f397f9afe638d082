"""capture-website with headless Chromium: a web page to PDF, PNG or JPG.

Only http(s) URLs are taken, and the URL must answer before Chromium starts (otherwise Chromium would
happily capture its own error page). Each capture gets a fresh profile and flags that keep Chromium
from talking to anything but the target (no sync, component updates, background networking, QUIC).

What the command line cannot do, and so is not listed: ``page_format`` (paper size; Chromium prints
Letter, or the page's own CSS @page size), ``header_template`` / ``footer_template`` and full-page
screenshots -- those need the DevTools protocol.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterable
from pathlib import Path

import httpx

from mcv_pipelines.local_service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.local_service.engines.naming import output_path
from mcv_pipelines.local_service.engines.option_values import float_option, int_option
from mcv_pipelines.local_service.engines.process import find_program, program_version, run_checked

__all__ = ["ChromiumEngine", "check_url"]

_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
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
_COMMON = (
    OptionSpec("url", "string", None, None, "The http(s) address to capture"),
    OptionSpec("screen_width", "integer", 1920, None, "Browser window width in pixels"),
    OptionSpec("screen_height", "integer", 1080, None, "Browser window height in pixels"),
    OptionSpec("device_scale_factor", "float", 1, None, "Pixels per CSS pixel (2 for sharp screenshots)"),
    OptionSpec(
        "wait_time", "integer", 0, None, "Milliseconds of page time to let scripts run before capture"
    ),
)
_PREFLIGHT_SECONDS = 15.0


def check_url(value: object) -> str:
    """The URL if it is http(s) with a host, else EngineError."""
    if not isinstance(value, str) or not value.strip():
        raise EngineError("INVALID_OPTION", "capture-website needs a url")
    url = value.strip()
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EngineError("INVALID_OPTION", f"url must be an http or https address, got {url!r}")
    return url


def _answers(url: str, timeout: float) -> None:
    try:
        with httpx.stream("GET", url, timeout=timeout, follow_redirects=True) as response:
            response.close()
    except httpx.HTTPError as exc:
        raise EngineError("URL_UNREACHABLE", f"{url} does not answer: {exc or type(exc).__name__}") from None


class ChromiumEngine:
    name = "chromium"

    def __init__(self) -> None:
        self.program = find_program("chromium", "chromium-browser", "google-chrome")

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.program is None:
            return None
        return program_version([self.program, "--version"], r"(?:Chromium|Chrome) (\d+(?:\.\d+)+)")

    def conversion_types(self) -> Iterable[ConversionType]:
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        return [ConversionType("capture-website", "website", target, self.name, options=_COMMON,
                               engine_versions=versions) for target in ("pdf", "png", "jpg")]  # fmt: skip

    def run(self, request: EngineRequest) -> EngineResult:
        if request.operation != "capture-website" or self.program is None:
            raise EngineError("UNSUPPORTED_OPERATION", f"chromium does not run {request.operation} here")
        if request.output_format not in ("pdf", "png", "jpg"):
            raise EngineError(
                "UNSUPPORTED_CONVERSION",
                f"capture-website writes pdf, png or jpg, not {request.output_format}",
            )
        url = check_url(request.options.get("url"))
        width = int_option(request.options, "screen_width", 100, 10000) or 1920
        height = int_option(request.options, "screen_height", 100, 10000) or 1080
        scale = float_option(request.options, "device_scale_factor", 0.1, 5) or 1.0
        wait = int_option(request.options, "wait_time", 0, 60000)
        _answers(url, min(_PREFLIGHT_SECONDS, request.timeout or _PREFLIGHT_SECONDS))
        host = urllib.parse.urlsplit(url).hostname or "website"
        target = output_path(request, request.output_format, fallback_stem=host)
        target.parent.mkdir(parents=True, exist_ok=True)
        profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=_ensure(request.work_dir)))
        if request.output_format == "pdf":
            capture = [f"--print-to-pdf={target}", "--no-pdf-header-footer"]
        else:
            capture = [f"--screenshot={target}"]
        budget = [f"--virtual-time-budget={wait}"] if wait else []
        argv = [self.program, *_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                f"--force-device-scale-factor={scale:g}", *budget, *capture, url]  # fmt: skip
        try:
            run_checked(argv, what=f"capturing {url}", cwd=request.work_dir, timeout=request.timeout,
                        cancelled=request.cancelled)  # fmt: skip
        finally:
            shutil.rmtree(profile, ignore_errors=True)
        if not target.is_file() or target.stat().st_size == 0:
            raise EngineError("CONVERSION_FAILED", f"Chromium wrote no {request.output_format} for {url}")
        return EngineResult(files=[target])


def _ensure(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    return directory
