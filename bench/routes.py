"""What a route costs against its hops run as separate jobs, on the embedded service over loopback.

    .venv/bin/python bench/routes.py [--repeat 5]

For each pair below, in the same run and alternating, so that a warm LibreOffice or Chromium serves
both sides alike:

- routed: one job (import, convert along the route, export), the output downloaded;
- as jobs: one job per hop, each hop's output downloaded and uploaded again as the next job's input,
  which is what a user had to do before routes.

It prints the median wall time of each side (of ``--repeat`` runs, after one warm-up of each) and
their ratio. The inputs are the bundled assets (pipelines/assets): a one-page letter, two PDF pages,
an SVG badge and a web page. No assertion on time: read the table.
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from mcv_pipelines.service.server import LocalService

ASSETS = Path(__file__).resolve().parents[1] / "pipelines" / "assets"
# (input file, target, the hops' formats when run as jobs)
PAIRS = (
    ("letter.docx", "png", ("pdf", "png")),
    ("letter.docx", "webp", ("pdf", "png", "webp")),
    ("pages.pdf", "tiff", ("png", "tiff")),
    ("badge.svg", "jpg", ("png", "jpg")),
    ("capture.html", "jpg", ("png", "jpg")),
)


def _job(client: httpx.Client, files: list[tuple[str, bytes]], target: str) -> list[tuple[str, bytes]]:
    """Each file converted to ``target`` in one job (a task per file); the outputs' names and bytes."""
    tasks: dict[str, Any] = {}
    for number, (name, data) in enumerate(files):
        tasks[f"in{number}"] = {"operation": "import/base64", "file": base64.b64encode(data).decode(),
                                "filename": name}  # fmt: skip
        tasks[f"out{number}"] = {"operation": "convert", "input": f"in{number}", "output_format": target}
    tasks["export"] = {"operation": "export/url", "input": [f"out{n}" for n in range(len(files))]}
    created = client.post("/v2/jobs", json={"tasks": tasks})
    created.raise_for_status()
    job = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}").json()["data"]
    failed = [t for t in job["tasks"] if t["status"] == "error"]
    if failed:
        raise RuntimeError(f"{failed[0]['name']}: {failed[0].get('message')}")
    export = next(t for t in job["tasks"] if t["name"] == "export")
    return [(item["filename"], client.get(item["url"]).content) for item in export["result"]["files"]]


def _routed(client: httpx.Client, source: Path, target: str) -> float:
    started = time.perf_counter()
    _job(client, [(source.name, source.read_bytes())], target)
    return time.perf_counter() - started


def _as_jobs(client: httpx.Client, source: Path, hops: tuple[str, ...]) -> float:
    started = time.perf_counter()
    files = [(source.name, source.read_bytes())]
    for fmt in hops:
        files = _job(client, files, fmt)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as data, LocalService(
        data_dir=Path(data), settings={"rate_limit": 10_000}
    ) as service, httpx.Client(
        base_url=service.base_url, timeout=300, headers={"Authorization": f"Bearer {service.api_key}"}
    ) as client:  # fmt: skip
        print(f"{'pair':<22} {'route':<34} {'routed s':>9} {'as jobs s':>10} {'ratio':>6}")
        for name, target, hops in PAIRS:
            source = ASSETS / name
            listed = client.get("/v2/operations", params={
                "filter[operation]": "convert", "filter[input_format]": source.suffix[1:],
                "filter[output_format]": target}).json()["data"]  # fmt: skip
            if not listed:
                print(f"{name} -> {target}: not listed here (an engine is missing)", file=sys.stderr)
                continue
            _routed(client, source, target)  # a warm-up of each side
            _as_jobs(client, source, hops)
            routed, jobs = [], []
            for _ in range(args.repeat):
                routed.append(_routed(client, source, target))
                jobs.append(_as_jobs(client, source, hops))
            one, two = statistics.median(routed), statistics.median(jobs)
            print(f"{name + ' -> ' + target:<22} {listed[0]['engine']:<34} {one:>9.3f} {two:>10.3f} "
                  f"{one / two:>6.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
