"""Issue 25: three `--role api` processes behind a load balancer and two workers, on PostgreSQL + S3;
one API process is SIGKILLed mid-batch, with an upload surely in flight to it (the balancer holds the
rest of that upload's bytes, as a slow link would). Requests in flight to it are cut; the client's
retries, its reconciliation of a job creation whose answer was lost, and its re-sending of an upload
cut midway while the task still waits for the file (ApiClient.upload_file) carry the batch through on
the other two: the first run exits 0 with every row finished by exactly one job."""

from __future__ import annotations

import json
import secrets
import subprocess
from collections import Counter
from pathlib import Path

import httpx
from chaos_helpers import BATCH, KEY, ROWS, batch_env, failed_rows, make_work, wait_rows
from pg_server import PgServer, free_port
from round_robin import RoundRobin
from team_helpers import Serve, wait_until

from seaweed import SeaweedS3


def test_a_batch_rides_through_an_api_process_killed_behind_two_others(
    postgres: PgServer, seaweed: SeaweedS3, tmp_path: Path
) -> None:
    url = postgres.url(postgres.new_database())
    storage = f"s3://{seaweed.bucket}/api-kill-{secrets.token_hex(4)}"
    shared = ["--database", url, "--storage", storage, "--s3-endpoint", seaweed.endpoint]
    env = {"MCV_SERVE_API_KEY": KEY, **seaweed.env}
    logs = tmp_path / "logs"
    logs.mkdir()
    ports = [free_port() for _ in range(3)]
    balancer = RoundRobin([("127.0.0.1", port) for port in ports])

    def serve(role: str, name: str, *extra: str) -> Serve:
        # Links name the balancer (--public-url), as in a deployment behind one.
        args = [
            "--role",
            role,
            *extra,
            *shared,
            "--data-dir",
            str(tmp_path / name),
            "--public-url",
            balancer.base,
        ]
        return Serve(args, logs / f"{name}.log", env)

    apis = [serve("api", f"api{n}", "--rate-limit", "0", "--port", str(port)) for n, port in enumerate(ports)]
    workers = [serve("worker", f"worker{n}", "--workers", "3") for n in (1, 2)]
    work = make_work(tmp_path / "work")
    batch = subprocess.Popen(
        BATCH,
        cwd=work,
        env=batch_env(balancer.base, tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_rows(work, batch, 5), "the batch ended before the kill: too few rows to test it"
        held = balancer.stall_upload(0)  # the next upload to api0 is midway when api0 dies
        wait_until(lambda: held.is_set() or batch.poll() is not None, 120, "an upload to api0")
        assert held.is_set(), "no upload went to api0 after the first rows"
        apis[0].kill()
        _, stderr = batch.communicate(timeout=300)
        assert batch.returncode == 0, failed_rows(work, stderr)
        auth = {"Authorization": f"Bearer {KEY}"}
        listed = httpx.get(f"{apis[1].base}/v2/jobs", params={"per_page": 1000}, headers=auth, timeout=30)
        jobs = listed.json()["data"]
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.communicate()
        for process in (*apis, *workers):
            process.stop()
        balancer.close()

    report = [json.loads(line) for line in (work / "report.jsonl").read_text().splitlines()]
    assert [row["status"] for row in report] == ["finished"] * ROWS
    assert sorted(p.name for p in (work / "out").iterdir()) == [f"c{i:03d}.png" for i in range(ROWS)]
    per_row = Counter(job["tag"].rsplit("-", 1)[0] for job in jobs)
    assert len(per_row) == ROWS
    assert set(per_row.values()) == {1}, per_row
    assert {job["status"] for job in jobs} == {"finished"}
