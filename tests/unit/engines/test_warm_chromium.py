"""The warm Chromium (issue 24): one browser for many tasks, nothing shared between their contexts,
a new browser when the old one died or grew too big, and a task's timeout costs only that task."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine, EngineError, EngineRequest
from mcv_pipelines.service.engines.web.chromium import ChromiumEngine
from mcv_pipelines.service.engines.web.request_guard import RequestPolicy
from waiting import GENEROUS, wait_until

RequireEngine = Callable[..., Engine]
_METRICS = {"width": 800, "height": 600, "deviceScaleFactor": 1, "mobile": False}


class Site:
    """/set answers with a cookie and stores to localStorage; /show tells in its page what it got;
    /hang never answers. ``cookies`` records the Cookie header of each request."""

    def __init__(self) -> None:
        self.cookies: list[str] = []
        self.release = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                del format, args

            def do_GET(self) -> None:
                site.cookies.append(self.headers.get("cookie", ""))
                if self.path == "/hang":
                    site.release.wait(60)
                    return
                body = (
                    b"<html><body><p id=s>stored:<span id=v></span></p><script>"
                    b"document.getElementById('v').textContent = localStorage.getItem('k') || 'nothing';"
                    b"localStorage.setItem('k', 'kept');</script></body></html>"
                )
                self.send_response(200)
                self.send_header("content-type", "text/html")
                if self.path == "/set":
                    self.send_header("set-cookie", "visited=yes; Max-Age=3600")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site() -> Iterator[Site]:
    server = Site()
    yield server
    server.close()


@pytest.fixture
def chromium(require_engine: RequireEngine) -> Iterator[ChromiumEngine]:
    require_engine("chromium")
    engine = ChromiumEngine()
    yield engine
    engine.close()


def capture(engine: ChromiumEngine, tmp_path: Path, url: str, timeout: float = 60) -> str:
    """The text of a PDF capture of ``url``."""
    work = tmp_path / f"task{len(list(tmp_path.iterdir()))}"
    request = EngineRequest(
        operation="capture-website", input_format="website", output_format="pdf",
        options={"url": url}, inputs=[], output_dir=work / "out", work_dir=work / "work", timeout=timeout,
    )  # fmt: skip
    result = engine.run(request)
    return "".join(page.extract_text() for page in PdfReader(result.files[0]).pages)


def test_tasks_share_one_browser_but_no_cookie_or_storage(
    chromium: ChromiumEngine, site: Site, tmp_path: Path
) -> None:
    assert "stored:nothing" in capture(chromium, tmp_path, f"{site.url}/set")
    assert "stored:nothing" in capture(chromium, tmp_path, f"{site.url}/show")
    assert chromium.browser.starts == 1
    assert site.cookies[-1] == ""  # the cookie set for the first task never reached the second


def test_a_browser_that_died_is_replaced(chromium: ChromiumEngine, site: Site, tmp_path: Path) -> None:
    capture(chromium, tmp_path, f"{site.url}/show")
    running = chromium.browser._current
    assert running is not None
    os.killpg(running.pipe.process.pid, signal.SIGKILL)
    running.pipe.process.wait()
    assert "stored:nothing" in capture(chromium, tmp_path, f"{site.url}/show")
    assert chromium.browser.starts == 2


def test_a_browser_past_its_memory_bound_is_replaced(
    chromium: ChromiumEngine, site: Site, tmp_path: Path
) -> None:
    chromium.browser.memory_bound = 1  # any browser is past it
    chromium.browser.memory_check_seconds = 0
    capture(chromium, tmp_path, f"{site.url}/show")
    first = chromium.browser._current
    assert first is not None
    capture(chromium, tmp_path, f"{site.url}/show")
    assert chromium.browser.starts == 2
    first.pipe.process.wait(30)  # the retired browser was closed, not left running


def test_a_task_that_times_out_leaves_the_browser_serving(
    chromium: ChromiumEngine, site: Site, tmp_path: Path
) -> None:
    with pytest.raises(EngineError) as caught:
        capture(chromium, tmp_path, f"{site.url}/hang", timeout=3)
    assert caught.value.code == "TIMEOUT"
    assert "stored:nothing" in capture(chromium, tmp_path, f"{site.url}/show")
    assert chromium.browser.starts == 1


def test_a_load_event_that_came_before_the_wait_is_not_lost(chromium: ChromiumEngine, site: Site) -> None:
    # A small page loads before the engine starts waiting for its load event; that event was once
    # dropped, so each such capture waited the full 30 s fallback for a load that had happened.
    policy = RequestPolicy(None)
    cancelled = threading.Event()
    with chromium.browser.page(policy, time.monotonic() + 60, cancelled, _METRICS) as page:
        page.call("Page.navigate", {"url": f"{site.url}/show"})
        wait_until(
            lambda: (
                page.call("Runtime.evaluate", {"expression": "document.readyState"})["result"]["value"]
                == "complete"
            ),
            what="the page to finish loading",
        )
        assert page.wait_event("Page.loadEventFired", time.monotonic() + GENEROUS)


def test_a_warm_browser_between_tasks_runs_no_page(
    chromium: ChromiumEngine, site: Site, tmp_path: Path
) -> None:
    # The window Chromium opens by itself (a new-tab page) held two renderers for nothing.
    capture(chromium, tmp_path, f"{site.url}/show")
    running = chromium.browser._current
    assert running is not None
    found = running.pipe.call("Target.getTargets", {}, None, time.monotonic() + GENEROUS)["targetInfos"]
    assert [target for target in found if target["type"] == "page"] == []


def test_an_idle_browser_past_its_idle_bound_is_closed(
    chromium: ChromiumEngine, site: Site, tmp_path: Path
) -> None:
    chromium.browser.idle_memory_bound = 1  # any browser with no task is past it
    chromium.browser.idle_check_seconds = 0
    capture(chromium, tmp_path, f"{site.url}/show")
    running = chromium.browser._current
    assert running is not None
    wait_until(lambda: chromium.browser._current is None, what="the idle browser to be closed")
    running.pipe.process.wait(GENEROUS)  # closed, its memory given back
    assert "stored:nothing" in capture(chromium, tmp_path, f"{site.url}/show")
    assert chromium.browser.starts == 2
