"""What the chaos tests share: a small thumbnail batch (pipeline, images, manifest), run with
`mcv batch` against a team's API, and a way to wait for its rows."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from PIL import Image
from team_helpers import MCV

from flaky_tcp import FlakyRelay
from seaweed import SeaweedS3

__all__ = [
    "BATCH",
    "KEY",
    "PIPELINE",
    "ROWS",
    "S3Front",
    "batch_env",
    "failed_rows",
    "finished_rows",
    "make_work",
    "service_jobs",
    "wait_rows",
]  # fmt: skip

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
# A job a row: these tests follow each row's requests through the faults (uploads included, which
# rows packed into jobs would carry inside the job's creation); test_team_batch.py packs them.
BATCH = [*MCV, "batch", "thumbs.yaml", "--manifest", "rows.csv", "--concurrency", "6", "--rows-per-job", "1"]
BATCH += ["--report", "report.jsonl", "--events", "events.jsonl", "--progress", "none"]


def make_work(root: Path, rows: int = ROWS) -> Path:
    root.mkdir()
    (root / "thumbs.yaml").write_text(PIPELINE)
    (root / "img").mkdir()
    lines = ["image"]
    for i in range(rows):
        Image.new("RGB", (8, 8), (i * 8 % 256, 40, 90)).save(root / f"img/c{i:03d}.png")
        lines.append(f"img/c{i:03d}.png")
    (root / "rows.csv").write_text("\n".join(lines) + "\n")
    return root


def finished_rows(work: Path) -> int:
    path = work / "events.jsonl"
    return path.read_text().count('"event": "row-finished"') if path.exists() else 0


def failed_rows(work: Path, stderr: str) -> str:
    """The batch's stderr and each unfinished row of its report, for an assertion's message."""
    path = work / "report.jsonl"
    rows = path.read_text().splitlines() if path.exists() else []
    return "\n".join([stderr, *(row for row in rows if '"status": "finished"' not in row)])


def wait_rows(work: Path, batch: subprocess.Popen[str], rows: int) -> bool:
    """Until ``rows`` rows finished (True) or the batch ended (False)."""
    deadline = time.monotonic() + 240
    while finished_rows(work) < rows:
        if batch.poll() is not None:
            return False
        assert time.monotonic() < deadline, "the batch made no progress"
        time.sleep(0.05)
    return True


def batch_env(base: str, home: Path) -> dict[str, str]:
    """The environment of `mcv batch` against ``base``: no setting of the test runner's own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCV_")}
    env |= {"MCV_BASE_URL": base, "MCV_API_KEY": KEY, "MCV_CONFIG": str(home / "none.toml")}
    env["MCV_DATA_DIR"] = str(home / "client")
    return env


class S3Front:
    """The S3 server as the team reaches it (``endpoint``): a relay in front of SeaweedFS, so that an
    outage is what a client sees of a store that crashed (its connections reset, new ones refused) and
    the store is back once it serves its bucket. Restarted weed answers 404 for the bucket for a moment
    before its filer has loaded it, which no store owes us (seen failing another test in CI)."""

    def __init__(self, s3: SeaweedS3) -> None:
        self.s3 = s3
        self.relay = FlakyRelay(self._upstream()).serve()
        self.endpoint = f"http://127.0.0.1:{self.relay.port}"

    def _upstream(self) -> tuple[str, int]:
        where = urlsplit(self.s3.endpoint)
        return where.hostname or "127.0.0.1", where.port or 80

    def away(self, seconds: float = 3.0) -> None:
        """Kill the S3 server outright (SIGKILL: no goodbye to its clients) and bring it back
        ``seconds`` later."""
        assert self.s3.process is not None
        port = self.relay.port
        self.relay.close()  # every connection reset, as the kill does
        self.relay = FlakyRelay(self._upstream(), port=port)  # bound, not listening: refused meanwhile
        self.s3.process.send_signal(signal.SIGKILL)
        self.s3.process.wait(10)
        time.sleep(seconds)  # the store is away this long
        self.s3.start()  # returns once weed serves the bucket
        self.relay.upstream = self._upstream()
        self.relay.serve()

    def close(self) -> None:
        self.relay.close()


def service_jobs(base: str) -> list[dict[str, object]]:
    """Every job of the batch's key (one page of up to 1,000: the batches here are smaller)."""
    answer = httpx.get(
        f"{base}/v2/jobs", params={"per_page": 1000}, headers={"Authorization": f"Bearer {KEY}"}, timeout=30
    )
    answer.raise_for_status()
    jobs: list[dict[str, object]] = answer.json()["data"]
    return jobs
