"""capture-website and html -> pdf on a served instance (issue 24): every request Chromium makes passes
the URL guard of import/url. The guard refuses private addresses but one network, as
``mcv serve --allow-private-network 127.0.0.2/32`` sets it; an allowed page on 127.0.0.2 tries to
reach a tripwire on 127.0.0.1 every way a page can, and nothing may reach it.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from origins import Origin
from pypdf import PdfReader

from loopback_listener import Tripwire
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.server import LocalService

RequireEngine = Callable[..., Engine]
SECRET = "local-file-content-7f3a"


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    """A file on this machine that no page may show."""
    path = tmp_path / "local-secret.txt"
    path.write_text(SECRET)
    return path


def hostile_page(trap: str, secret_file: Path) -> bytes:
    """A page that asks the tripwire for something every way it can, and the allowed origin once."""
    return f"""<!doctype html><html><head><title>allowed</title>
<link rel="stylesheet" href="{trap}/style.css"></head>
<body><h1>Allowed page text</h1>
<img src="{trap}/image.png">
<iframe src="{trap}/frame.html"></iframe>
<img src="/bounce.png">
<iframe src="file://{secret_file}"></iframe>
<script>
fetch("{trap}/fetch").catch(() => {{}});
fetch("file://{secret_file}").catch(() => {{}});
const made = new Image(); made.src = "{trap}/script-image.png"; document.body.appendChild(made);
const fine = new Image(); fine.src = "/script-made-allowed.png"; document.body.appendChild(fine);
try {{ new WebSocket("{trap.replace("http", "ws")}/socket"); }} catch (error) {{}}
try {{ new Worker("/worker.js"); }} catch (error) {{}}
</script></body></html>""".encode()


@pytest.fixture
def chromium(require_engine: RequireEngine) -> Engine:
    return require_engine("chromium", "capture-website", "website", "pdf")


@pytest.fixture
def service(tmp_path: Path, chromium: Engine) -> Iterator[LocalService]:
    """A service guarded as `mcv serve --allow-private-network 127.0.0.2/32` guards it."""
    guard = UrlGuard(allowed_networks=parse_networks(["127.0.0.2/32"]))
    del chromium
    with LocalService(data_dir=tmp_path / "data", settings={"url_guard": guard}) as running:
        yield running


@pytest.fixture
def served(service: LocalService) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {service.api_key}"}
    with httpx.Client(base_url=service.base_url, timeout=120.0, headers=headers) as client:
        yield client


@pytest.fixture
def tripwire() -> Iterator[Tripwire]:
    with Tripwire("127.0.0.1") as wire:
        yield wire


@pytest.fixture
def allowed(tripwire: Tripwire, secret_file: Path) -> Iterator[Origin]:
    with Origin("127.0.0.2") as origin:
        origin.files["/page.html"] = hostile_page(tripwire.url, secret_file)
        origin.files["/script-made-allowed.png"] = b""
        origin.files["/worker.js"] = f'fetch("{tripwire.url}/worker-fetch").catch(() => {{}});'.encode()
        origin.redirects["/bounce.png"] = f"{tripwire.url}/redirected.png"
        origin.redirects["/to-loopback"] = f"{tripwire.url}/"
        yield origin


def run(client: httpx.Client, tasks: dict[str, Any]) -> dict[str, Any]:
    created = client.post("/v2/jobs", json={"tasks": tasks})
    assert created.status_code == 201, created.text
    ended = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}")
    assert ended.status_code == 200, ended.text
    job: dict[str, Any] = ended.json()["data"]
    return job


def capture_pdf(client: httpx.Client, url: str, **options: Any) -> dict[str, Any]:
    """The ended job of a capture of ``url`` to PDF (task "capture") and its export (task "export")."""
    return run(client, {
        "capture": {"operation": "capture-website", "url": url, "output_format": "pdf", **options},
        "export": {"operation": "export/url", "input": "capture"},
    })  # fmt: skip


def task(job: dict[str, Any], name: str) -> dict[str, Any]:
    return next(item for item in job["tasks"] if item["name"] == name)


def pdf_text(job: dict[str, Any], tmp_path: Path) -> str:
    link = task(job, "export")["result"]["files"][0]["url"]
    path = tmp_path / "out.pdf"
    path.write_bytes(httpx.get(link, timeout=60).content)
    return "".join(page.extract_text() for page in PdfReader(path).pages)


def test_nothing_an_allowed_page_asks_for_reaches_loopback(
    served: httpx.Client, allowed: Origin, tripwire: Tripwire, tmp_path: Path
) -> None:
    url = f"http://127.0.0.2:{allowed.port}/page.html"
    job = capture_pdf(served, url, wait_time=500)
    capture = task(job, "capture")
    assert capture["status"] == "finished", capture.get("message")
    text = pdf_text(job, tmp_path)
    assert "Allowed page text" in text
    assert SECRET not in text
    assert tripwire.hits == [], tripwire.hits
    # The page did run: its allowed requests arrived, the redirect was asked for and not followed.
    asked = [path for path, _ in allowed.requests]
    assert "/script-made-allowed.png" in asked
    assert "/bounce.png" in asked
    refused = "\n".join(capture["result"]["refused_requests"])
    for name in ("style.css", "image.png", "frame.html", "redirected.png", "/fetch", "script-image.png"):
        assert name in refused


def test_a_loopback_page_is_not_captured(served: httpx.Client, tripwire: Tripwire) -> None:
    page = {"operation": "capture-website", "url": f"{tripwire.url}/", "output_format": "png"}
    job = run(served, {"capture": page})
    capture = task(job, "capture")
    assert (capture["status"], capture["code"]) == ("error", "CAPTURE_FORBIDDEN_ADDRESS")
    assert tripwire.hits == [], tripwire.hits


def test_a_page_redirecting_to_loopback_is_not_followed(
    served: httpx.Client, allowed: Origin, tripwire: Tripwire
) -> None:
    url = f"http://127.0.0.2:{allowed.port}/to-loopback"
    job = run(served, {"capture": {"operation": "capture-website", "url": url, "output_format": "pdf"}})
    capture = task(job, "capture")
    assert (capture["status"], capture["code"]) == ("error", "CAPTURE_FORBIDDEN_ADDRESS")
    assert [path for path, _ in allowed.requests] == ["/to-loopback"]
    assert tripwire.hits == [], tripwire.hits


def test_an_uploaded_html_file_reaches_neither_loopback_nor_local_files(
    served: httpx.Client, tripwire: Tripwire, tmp_path: Path, secret_file: Path
) -> None:
    html = f"""<html><body><p>Uploaded document text</p>
<img src="{tripwire.url}/upload-image.png"><img src="relative.png">
<iframe src="file://{secret_file}"></iframe>
<script>fetch("{tripwire.url}/upload-fetch").catch(() => {{}});</script></body></html>"""
    job = run(served, {
        "doc": {"operation": "import/base64", "file": base64.b64encode(html.encode()).decode(),
                "filename": "report.html"},
        "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"},
        "export": {"operation": "export/url", "input": "pdf"},
    })  # fmt: skip
    converted = task(job, "pdf")
    assert converted["status"] == "finished", converted.get("message")
    assert converted["engine"] == "chromium"
    text = pdf_text(job, tmp_path)
    assert "Uploaded document text" in text
    assert SECRET not in text
    assert tripwire.hits == [], tripwire.hits
    refused = "\n".join(converted["result"]["refused_requests"])
    assert "upload-image.png" in refused
    assert "relative.png: not a document of this task" in refused


@pytest.mark.parametrize(
    "leave",
    ['<meta http-equiv="refresh" content="0; url={trap}/refresh">',
     '<script>setTimeout(() => {{ location.href = "{trap}/script"; }}, 0);</script>',
     '<script>setTimeout(() => {{ location.href = "https://example.com/"; }}, 0);</script>'],
    ids=["meta-refresh-to-loopback", "script-to-loopback", "script-to-a-public-site"],
)  # fmt: skip
def test_an_uploaded_html_file_stays_itself_when_it_tries_to_leave(
    served: httpx.Client, tripwire: Tripwire, tmp_path: Path, leave: str
) -> None:
    # The page is printed as written, not as Chromium's error page for a refused navigation (nor
    # another site): a navigation away from an uploaded document is answered "stay" (204).
    html = f"<html><head>{leave.format(trap=tripwire.url)}</head><body><p>Stays put text</p></body></html>"
    job = run(served, {
        "doc": {"operation": "import/base64", "file": base64.b64encode(html.encode()).decode(),
                "filename": "leaving.html"},
        # Within a timeout shorter than the 30 s a page gets to load: a page that starts leaving
        # before its load event never has one, and used to be printed only when that wait ran out.
        "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf", "wait_time": 500,
                "timeout": 20},
        "export": {"operation": "export/url", "input": "pdf"},
    })  # fmt: skip
    converted = task(job, "pdf")
    assert converted["status"] == "finished", converted.get("message")
    assert "Stays put text" in pdf_text(job, tmp_path)
    assert tripwire.hits == [], tripwire.hits
    assert "may not leave itself (the page stays)" in "\n".join(converted["result"]["refused_requests"])


def test_a_captured_page_that_navigates_to_loopback_is_captured_as_it_was(
    served: httpx.Client, allowed: Origin, tripwire: Tripwire, tmp_path: Path
) -> None:
    allowed.files["/leaving.html"] = (
        f'<html><head><meta http-equiv="refresh" content="0; url={tripwire.url}/refresh"></head>'
        "<body><p>Before leaving text</p></body></html>"
    ).encode()
    url = f"http://127.0.0.2:{allowed.port}/leaving.html"
    job = capture_pdf(served, url, wait_time=500)
    capture = task(job, "capture")
    assert capture["status"] == "finished", capture.get("message")
    assert "Before leaving text" in pdf_text(job, tmp_path)
    assert tripwire.hits == [], tripwire.hits
    refused = "\n".join(capture["result"]["refused_requests"])
    assert "/refresh" in refused
    assert "(the page stays)" in refused


def test_the_browser_does_not_see_the_services_data(
    service: LocalService, served: httpx.Client, allowed: Origin, require_program: Callable[..., str]
) -> None:
    require_program("bwrap")
    url = f"http://127.0.0.2:{allowed.port}/script-made-allowed.png"
    job = run(served, {"capture": {"operation": "capture-website", "url": url, "output_format": "png"}})
    assert task(job, "capture")["status"] == "finished"
    assert service.ctx is not None
    browser = next(engine for engine in service.ctx.engines if engine.name == "chromium")
    running = browser.browser._current  # type: ignore[attr-defined]  # the engine is typed as Engine
    group = running.pipe.process.pid
    members = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _group_of(p) == group]
    chromium = [p for p in members if "chromium" in _command(p).split("\0")[0]]  # not bwrap's own
    assert chromium, "no Chromium process found in the browser's group"
    # The database holds the signing key and every user's key hashes (there is no secret file since
    # the key moved into the database).
    database = service.data_dir / "service.sqlite3"
    assert database.exists()
    for process in chromium:  # each process's own view of the file system
        assert not (process / "root" / str(database).lstrip("/")).exists()
        # Its own PID namespace (issue 37): the service's process is not in its /proc.
        assert not (process / "root" / "proc" / str(os.getpid())).exists()
        assert (process / "root" / "proc" / "1").exists()


def _group_of(process: Path) -> int:
    try:
        return int((process / "stat").read_bytes().rsplit(b")", 1)[1].split()[2])
    except (OSError, IndexError, ValueError):
        return -1


def _command(process: Path) -> str:
    try:
        return (process / "cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


class _Rebinding:
    """Answers a public address for a name the first time it is asked, 127.0.0.1 after (DNS rebinding
    with a zero TTL); Chromium resolves ``*.localhost`` to loopback by itself, as the attacker's name
    would answer the browser."""

    def __init__(self, public_answers: int = 1) -> None:
        self.queries: list[str] = []
        self.public_answers = public_answers

    def __call__(self, host: str, port: int) -> list[str]:
        del port
        self.queries.append(host)
        return ["93.184.215.14"] if self.queries.count(host) <= self.public_answers else ["127.0.0.1"]


def test_a_name_rebound_to_loopback_after_the_guard_approved_it_is_not_reached(
    tmp_path: Path, chromium: Engine, tripwire: Tripwire
) -> None:
    del chromium
    resolver = _Rebinding()
    guard = UrlGuard(resolver=resolver, allowed_networks=parse_networks(["127.0.0.2/32"]))
    trap = f"http://rebind.localhost:{tripwire.port}"
    with (
        Origin("127.0.0.2") as origin,
        LocalService(data_dir=tmp_path / "data", settings={"url_guard": guard}) as service,
        httpx.Client(base_url=service.base_url, timeout=120.0,
                     headers={"Authorization": f"Bearer {service.api_key}"}) as client,
    ):  # fmt: skip
        origin.files["/page.html"] = f'<h1>Allowed page text</h1><img src="{trap}/pixel.png">'.encode()
        job = capture_pdf(client, f"http://127.0.0.2:{origin.port}/page.html")
        capture = task(job, "capture")
        assert capture["status"] == "finished", capture.get("message")
        assert "Allowed page text" in pdf_text(job, tmp_path)
    assert tripwire.hits == [], tripwire.hits
    assert resolver.queries.count("rebind.localhost") == 2  # the request guard's, then the proxy's
    # The proxy's refusal is in the task's own log, as the request guard's are.
    refused = "\n".join(capture["result"]["refused_requests"])
    assert f"rebind.localhost:{tripwire.port}: " in refused
    assert "(at connect: its address changed after it was checked)" in refused


def test_a_page_whose_own_name_rebinds_to_loopback_is_not_captured(
    tmp_path: Path, chromium: Engine, tripwire: Tripwire
) -> None:
    # The name is public to the engine's check and to the request guard, loopback when the browser
    # connects: the proxy refuses it, and the capture fails as a loopback page does, rather than
    # printing the proxy's refusal as if it were the page.
    del chromium
    resolver = _Rebinding(public_answers=2)
    guard = UrlGuard(resolver=resolver)
    with (
        LocalService(data_dir=tmp_path / "data", settings={"url_guard": guard}) as service,
        httpx.Client(base_url=service.base_url, timeout=120.0,
                     headers={"Authorization": f"Bearer {service.api_key}"}) as client,
    ):  # fmt: skip
        url = f"http://rebind.localhost:{tripwire.port}/page.html"
        job = run(client, {"capture": {"operation": "capture-website", "url": url, "output_format": "pdf"}})
    capture = task(job, "capture")
    assert (capture["status"], capture["code"]) == ("error", "CAPTURE_FORBIDDEN_ADDRESS"), capture
    assert "changed to a refused one" in capture["message"]
    assert tripwire.hits == [], tripwire.hits
    assert resolver.queries.count("rebind.localhost") == 3  # the engine's, the request guard's, the proxy's
