"""Issue 25's target: a short outage of a dependency delays work, never loses it. One `--role api` and
two `--role worker` processes (real `mcv serve`, no MCV_SIGNING_KEY) on PostgreSQL and S3 (SeaweedFS),
each with a data directory of its own; a `mcv batch` against the API while PostgreSQL is restarted
(`pg_ctl stop -m fast`, then start) and then the S3 server is SIGKILLed and started again 3 s later.
The batch's first run exits 0 with every row finished by exactly one job."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import httpx
from pg_server import PgServer
from PIL import Image
from team_helpers import MCV, Serve

from seaweed import SeaweedS3

ROWS = 30
KEY = "sk-chaos-batch-0123456789abcdef"
PIPELINE = """\
version: 1
name: thumbs
params:
  image: {type: string}
job:
  tag: thumb
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  thumb:
    operation: thumbnail
    input: source
    output_format: png
    width: 4
    height: 4
    filename: "{{ params.image | stem }}.png"
  publish:
    operation: export/url
    input: thumb
    download_to: "out/"
"""
BATCH = [*MCV, "batch", "thumbs.yaml", "--manifest", "rows.csv", "--concurrency", "6"]
BATCH += ["--report", "report.jsonl", "--events", "events.jsonl", "--progress", "none"]


def _work(root: Path) -> Path:
    root.mkdir()
    (root / "thumbs.yaml").write_text(PIPELINE)
    (root / "img").mkdir()
    lines = ["image"]
    for i in range(ROWS):
        Image.new("RGB", (8, 8), (i * 8 % 256, 40, 90)).save(root / f"img/c{i:03d}.png")
        lines.append(f"img/c{i:03d}.png")
    (root / "rows.csv").write_text("\n".join(lines) + "\n")
    return root


def _finished_rows(work: Path) -> int:
    path = work / "events.jsonl"
    return path.read_text().count('"event": "row-finished"') if path.exists() else 0


def _wait_rows(work: Path, batch: subprocess.Popen[str], rows: int) -> bool:
    """Until ``rows`` rows finished (True) or the batch ended (False)."""
    deadline = time.monotonic() + 240
    while _finished_rows(work) < rows:
        if batch.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the batch made no progress"
        time.sleep(0.05)
    return True


def test_a_batch_rides_through_a_postgres_restart_and_an_s3_outage(
    postgres: PgServer, seaweed: SeaweedS3, tmp_path: Path
) -> None:
    url = postgres.url(postgres.new_database())
    storage = f"s3://{seaweed.bucket}/chaos-{secrets.token_hex(4)}"
    shared = ["--database", url, "--storage", storage, "--s3-endpoint", seaweed.endpoint]
    env = {"MCV_SERVE_API_KEY": KEY, **seaweed.env}
    logs = tmp_path / "logs"
    logs.mkdir()

    def serve(role: str, name: str, *extra: str) -> Serve:
        args = ["--role", role, *extra, *shared, "--data-dir", str(tmp_path / name)]
        return Serve(args, logs / f"{name}.log", env)

    api = serve("api", "api", "--rate-limit", "0")
    workers = [serve("worker", f"worker{n}", "--lease-seconds", "3", "--workers", "2") for n in (1, 2)]
    work = _work(tmp_path / "work")
    client_env = {k: v for k, v in os.environ.items() if not k.startswith("MCV_")}
    client_env |= {"MCV_BASE_URL": api.base, "MCV_API_KEY": KEY, "MCV_CONFIG": str(tmp_path / "none.toml")}
    client_env["MCV_DATA_DIR"] = str(tmp_path / "client")
    batch = subprocess.Popen(
        BATCH, cwd=work, env=client_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        faults = 0
        if _wait_rows(work, batch, 5):
            postgres.stop()  # -m fast: every connection is cut
            postgres.start()
            faults += 1
        if _wait_rows(work, batch, 15):
            assert seaweed.process is not None
            seaweed.process.send_signal(signal.SIGKILL)
            seaweed.process.wait(10)
            time.sleep(3)  # the store is away this long
            seaweed.start()
            faults += 1
        assert faults == 2, "the batch ended before both faults: too few rows to test them"
        _, stderr = batch.communicate(timeout=300)
        assert batch.returncode == 0, stderr
        jobs = httpx.get(
            f"{api.base}/v2/jobs",
            params={"per_page": 1000},
            headers={"Authorization": f"Bearer {KEY}"},
            timeout=30,
        ).json()["data"]
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.communicate()
        for process in (api, *workers):
            process.stop()
        if seaweed.process is None:  # the session's other tests need it
            seaweed.start()

    report = [json.loads(line) for line in (work / "report.jsonl").read_text().splitlines()]
    assert [row["status"] for row in report] == ["finished"] * ROWS
    outputs = sorted(p.name for p in (work / "out").iterdir())
    assert outputs == [f"c{i:03d}.png" for i in range(ROWS)]
    per_row = Counter(job["tag"].rsplit("-", 1)[0] for job in jobs)
    assert len(per_row) == ROWS
    assert set(per_row.values()) == {1}, per_row  # exactly one job per row: nothing submitted twice
    assert {job["status"] for job in jobs} == {"finished"}
