"""Memory of a worker with warm pools: the service process and every process under it (issue 24).

    .venv/bin/python bench/memory.py [--tasks 200] [--at-once 4] [--idle 20]

Starts a local service in a process of its own (office and web engines only, so what is measured
is the worker, not this script), then reads the memory of its whole process tree (the service, its
LibreOffice processes and their UNO bridges, Chromium and its helpers, the bwrap and unshare around
them), summed two ways: RSS (resident set, shared pages counted once per process: what the target
of issue 24 names) and PSS (proportional set, shared pages split between the processes that share
them: what the tree really costs the machine). Read three times:

1. warm: after one docx -> pdf and one page -> pdf job (one LibreOffice, one Chromium running);
2. after ``--tasks`` mixed jobs (docx -> pdf, page -> pdf, html file -> pdf), ``--at-once`` at a time,
   so every task slot started its LibreOffice;
3. after ``--idle`` seconds of nothing (the office pool's idle time is set to ``--idle`` less 5 s; the
   service's default is 60 s).
"""

from __future__ import annotations

import argparse
import base64
import json
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

DOCX = Path(__file__).resolve().parents[1] / "pipelines" / "assets" / "letter.docx"
HTML = b"""<!doctype html><html><head><title>bench</title><style>h1{color:#1a4fb0}</style></head>
<body><h1>Invoice 42</h1><p>Some text to lay out and print.</p></body></html>"""


def _serve_worker(idle: float) -> None:
    """The measured process: a local service with the warm engines, until stdin closes."""
    from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
    from mcv_pipelines.service.engines.web.chromium import ChromiumEngine
    from mcv_pipelines.service.server import LocalService

    engines = [LibreOfficeEngine(idle_seconds=idle), ChromiumEngine()]
    with tempfile.TemporaryDirectory() as tmp, LocalService(data_dir=tmp, engines=engines) as service:
        print(json.dumps({"url": service.base_url, "key": service.api_key}), flush=True)
        sys.stdin.read()
        office, web = engines
        starts = {"LibreOffice": office.pool.started, "Chromium": web.browser.starts}
        print(json.dumps(starts), flush=True)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        del format, args


def _page_server(root: Path) -> tuple[ThreadingHTTPServer, str]:
    (root / "index.html").write_bytes(HTML)
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def _tree(root: int) -> list[int]:
    """``root`` and every process descended from it."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = [root], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _group(pid: int, root: int) -> str:
    if pid == root:
        return "service"
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "other"
    if "soffice" in command or "oosplash" in command or "uno_bridge" in command:
        return "libreoffice"
    if "chrom" in command:
        return "chromium"
    return "other"


def _kib(path: str, field: str) -> int:
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(root: int) -> dict[str, tuple[int, float, float]]:
    """Per group: processes, RSS MiB, PSS MiB."""
    groups: dict[str, list[float]] = {}
    for pid in _tree(root):
        totals = groups.setdefault(_group(pid, root), [0, 0.0, 0.0])
        totals[0] += 1
        totals[1] += _kib(f"/proc/{pid}/status", "VmRSS:") / 1024
        totals[2] += _kib(f"/proc/{pid}/smaps_rollup", "Pss:") / 1024
    return {name: (int(n), rss, pss) for name, (n, rss, pss) in groups.items()}


def _job(client: httpx.Client, tasks: dict[str, Any]) -> None:
    created = client.post("/v2/jobs", json={"tasks": tasks})
    created.raise_for_status()
    ended = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}").json()["data"]
    if ended["status"] != "finished":
        raise SystemExit(f"a job failed: {ended}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--at-once", type=int, default=4)
    parser.add_argument("--idle", type=float, default=20.0)
    parser.add_argument("--serve-worker", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_worker is not None:
        _serve_worker(args.serve_worker)
        return 0
    pool_idle = max(1.0, args.idle - 5)
    worker = subprocess.Popen(
        [sys.executable, __file__, "--serve-worker", str(pool_idle)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert worker.stdout is not None
    assert worker.stdin is not None
    hello = json.loads(worker.stdout.readline())
    docx = base64.b64encode(DOCX.read_bytes()).decode()
    html = base64.b64encode(HTML).decode()
    readings: list[tuple[str, dict[str, tuple[int, float, float]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        server, url = _page_server(Path(tmp))
        kinds: list[dict[str, Any]] = [
            {"doc": {"operation": "import/base64", "file": docx, "filename": "letter.docx"},
             "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"}},
            {"page": {"operation": "capture-website", "url": url, "output_format": "pdf"}},
            {"doc": {"operation": "import/base64", "file": html, "filename": "invoice.html"},
             "pdf": {"operation": "convert", "input": "doc", "output_format": "pdf"}},
        ]  # fmt: skip
        headers = {"Authorization": f"Bearer {hello['key']}"}
        with httpx.Client(base_url=hello["url"], headers=headers, timeout=300) as client:
            _job(client, kinds[0])
            _job(client, kinds[1])
            time.sleep(2)
            readings.append(("warm (1 office + 1 web job done)", measure(worker.pid)))
            with ThreadPoolExecutor(args.at_once) as threads:
                list(threads.map(lambda n: _job(client, kinds[n % len(kinds)]), range(args.tasks)))
            readings.append((f"after {args.tasks} mixed jobs, {args.at_once} at once", measure(worker.pid)))
            time.sleep(args.idle)
            readings.append((f"after {args.idle:g} s idle", measure(worker.pid)))
        server.shutdown()
        server.server_close()
    worker.stdin.close()
    starts = json.loads(worker.stdout.readline())
    worker.wait(60)
    groups = ("service", "libreoffice", "chromium", "other")
    print(f"{'reading':<34} {'group':<12} {'procs':>5} {'RSS MiB':>8} {'PSS MiB':>8}")
    for label, reading in readings:
        for group in groups:
            if group in reading:
                n, rss, pss = reading[group]
                print(f"{label:<34} {group:<12} {n:>5} {rss:>8.0f} {pss:>8.0f}")
        n = sum(r[0] for r in reading.values())
        rss = sum(r[1] for r in reading.values())
        pss = sum(r[2] for r in reading.values())
        print(f"{label:<34} {'ALL':<12} {n:>5} {rss:>8.0f} {pss:>8.0f}   (target: RSS under 600)")
    print("processes started over the run: " + ", ".join(f"{name} {n}" for name, n in starts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
