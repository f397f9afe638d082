"""A loopback page -> PDF: the warm Chromium against a cold `chromium --print-to-pdf` (issue 24).

    .venv/bin/python bench/web.py [RUNS]

Side by side in one run, interleaved so a busy machine disturbs all alike:
1. cold: `chromium --headless --print-to-pdf` (Debian's, with the engine's flags) per page, the
   issue's baseline; and cold the engine's own program (Debian's `chromium-headless-shell`, which
   the engine prefers), so the warm engine is also compared with its own cold start;
2. warm engine: ChromiumEngine.run, one browser kept, a fresh browser context per capture;
3. warm engine, guarded: the same with the URL guard of a served instance allowing 127.0.0.1/32, so
   the page's requests go through the pinning proxy (pinning_proxy.py); its p50 against (2) is what
   the proxy costs a capture;
4. warm through the service: a capture-website job on the local service (loopback), created and
   waited for on the sync endpoint (the PDF stays in the task).
The page is a small HTML page with a stylesheet and an image, served by a loopback HTTP server.
Also prints the warm browser's resident memory (all its processes) after the runs.
Prints p50 and mean in ms, and each warm p50 as a fraction of the cold one (target: at most 0.5),
and the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from PIL import Image

from mcv_pipelines.service.engines.base import EngineRequest
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.engines.web.chromium import _FLAGS, ChromiumEngine
from mcv_pipelines.service.server import LocalService

PAGE = """<!doctype html><html><head><title>bench</title><link rel="stylesheet" href="style.css"></head>
<body><h1>Quarterly report</h1><img src="chart.png" width="320" height="160">
<p>Some text to lay out and print, twice over. Some text to lay out and print.</p></body></html>"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        del format, args


def serve_page(root: Path) -> tuple[ThreadingHTTPServer, str]:
    (root / "index.html").write_text(PAGE)
    (root / "style.css").write_text("body { font-family: sans-serif; color: #223; } h1 { color: #1a4fb0; }")
    Image.new("RGB", (320, 160), (30, 90, 200)).save(root / "chart.png")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def cold(program: str, url: str, work: Path) -> None:
    profile = Path(tempfile.mkdtemp(dir=work))
    target = work / "cold.pdf"
    subprocess.run(
        [program, *_FLAGS, f"--user-data-dir={profile}", f"--print-to-pdf={target}", url],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        check=True, timeout=120,
    )  # fmt: skip
    shutil.rmtree(profile, ignore_errors=True)
    assert target.stat().st_size > 0


def warm(engine: ChromiumEngine, url: str, work: Path, guard: UrlGuard | None = None) -> None:
    request = EngineRequest(
        "capture-website",
        "website",
        "pdf",
        {"url": url},
        [],
        work / "out",
        work / "w",
        timeout=120,
        url_guard=guard,
    )
    assert engine.run(request).files


def through_service(client: httpx.Client, url: str) -> None:
    job = client.post("/v2/jobs", json={"tasks": {"page": {
        "operation": "capture-website", "url": url, "output_format": "pdf"}}})  # fmt: skip
    ended = client.get(f"/sync/v2/jobs/{job.json()['data']['id']}").json()["data"]
    assert ended["status"] == "finished", ended


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("runs", nargs="?", type=int, default=15, help="runs of each (default 15)")
    runs = parser.parse_args(argv).runs
    engine = ChromiumEngine()
    if engine.program is None or engine.version() is None:
        print("chromium is not installed", file=sys.stderr)
        return 1
    guarded = UrlGuard(allowed_networks=parse_networks(["127.0.0.1/32"]))
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "site").mkdir()
        server, url = serve_page(root / "site")
        with LocalService(data_dir=root / "data") as service:
            headers = {"Authorization": f"Bearer {service.api_key}"}
            with httpx.Client(base_url=service.base_url, headers=headers, timeout=120) as client:
                cases: dict[str, Callable[[], None]] = {
                    "cold chromium --print-to-pdf": partial(cold, shutil.which("chromium") or engine.program,
                                                            url, root),
                    "cold engine's program": partial(cold, engine.program, url, root),
                    "warm engine (context per task)": partial(warm, engine, url, root),
                    "warm engine + pinning proxy": partial(warm, engine, url, root, guarded),
                    "warm, capture-website job": partial(through_service, client, url),
                }
                for case in cases.values():  # first starts (browser, service) are not what is measured
                    case()
                times: dict[str, list[float]] = {name: [] for name in cases}
                for _ in range(runs):
                    for name, case in cases.items():
                        started = time.perf_counter()
                        case()
                        times[name].append(time.perf_counter() - started)
                running = engine.browser._current
                memory = running.resident_memory() if running is not None else 0
        engine.close()
        server.shutdown()
        server.server_close()
    base = statistics.median(times["cold chromium --print-to-pdf"])
    print(f"{'loopback page -> pdf':<32} {'runs':>5} {'p50 ms':>8} {'mean ms':>8} {'x cold':>7}")
    for name, values in times.items():
        p50 = statistics.median(values)
        print(f"{name:<32} {len(values):>5} {p50 * 1000:>8.0f} {statistics.mean(values) * 1000:>8.0f} "
              f"{p50 / base:>7.2f}")  # fmt: skip
    proxy = statistics.median(times["warm engine + pinning proxy"])
    direct = statistics.median(times["warm engine (context per task)"])
    cost = f"{(proxy - direct) * 1000:+.0f} ms p50 ({proxy / direct - 1:+.0%} of a warm capture)"
    print(f"pinning proxy: {cost}")
    print(f"engine's program: {engine.program}")
    print("load average before: " + " ".join(f"{v:.2f}" for v in load_before)
          + ", after: " + " ".join(f"{v:.2f}" for v in os.getloadavg()))  # fmt: skip
    print(f"warm engine's browser: {memory / 1024**2:.0f} MB proportional set size (all its processes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
