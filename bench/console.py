"""The console's two server-side costs: the checker endpoint the pipeline page calls as the user
types, and how soon a change reaches a page through the event stream.

    .venv/bin/python bench/console.py [--checks 50] [--events 50] [--pipeline pipelines/product-images.yaml]

A local service runs in this process (loopback). ``check``: POST /console/api/check with the pipeline's
text, one after another. ``event``: a stream is open on /console/api/events; each round creates a job
and times from sending POST /v2/jobs to its ``change`` event arriving on the stream (so it includes
the job's creation). Prints a table of milliseconds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from pathlib import Path

import httpx

from mcv_pipelines.service.server import LocalService

ROOT = Path(__file__).resolve().parents[1]


def _row(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return (
        f"| {name} | {len(samples)} | {statistics.median(ordered):.1f} | {p95:.1f} | {ordered[-1]:.1f} |"
    )


def bench_checks(client: httpx.Client, text: str, rounds: int) -> list[float]:
    client.post("/console/api/check", json={"text": text}).raise_for_status()  # load the catalog once
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        client.post("/console/api/check", json={"text": text}).raise_for_status()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def bench_events(client: httpx.Client, rounds: int) -> list[float]:
    arrived: dict[str, float] = {}
    ready = threading.Event()
    done = threading.Event()

    def listen() -> None:
        with client.stream("GET", "/console/api/events") as response:
            for line in response.iter_lines():
                if line.startswith("event: ready"):
                    ready.set()
                elif line.startswith("data:"):
                    data = json.loads(line[5:])
                    if data.get("kind") == "job" and data["id"] not in arrived:
                        arrived[data["id"]] = time.perf_counter()
                if done.is_set():
                    return

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    ready.wait(10)
    samples = []
    body = {"tasks": {"in": {"operation": "import/upload"}}}
    for _ in range(rounds):
        started = time.perf_counter()
        job_id = client.post("/v2/jobs", json=body).json()["data"]["id"]
        while job_id not in arrived:
            time.sleep(0.0005)
        samples.append((arrived[job_id] - started) * 1000)
    done.set()
    client.post("/v2/jobs", json=body)  # one more event, so the listener sees ``done`` and returns
    thread.join(10)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description="console endpoint timings")
    parser.add_argument("--checks", type=int, default=50, help="checker calls (default 50)")
    parser.add_argument(
        "--events", type=int, default=50, help="jobs created while a stream is open (default 50)"
    )
    parser.add_argument("--pipeline", type=Path, default=ROOT / "pipelines" / "product-images.yaml")
    args = parser.parse_args()
    text = args.pipeline.read_text(encoding="utf-8")
    with LocalService(settings={"rate_limit": 100_000}) as service:
        headers = {"Authorization": f"Bearer {service.api_key}"}
        with httpx.Client(base_url=service.base_url, headers=headers, timeout=30) as client:
            checks = bench_checks(client, text, args.checks)
            events = bench_events(client, args.events)
    print("| what | n | median ms | p95 ms | max ms |")
    print("|---|---|---|---|---|")
    print(_row(f"POST /console/api/check ({args.pipeline.name})", checks))
    print(_row("POST /v2/jobs -> its change on the event stream", events))


if __name__ == "__main__":
    main()
