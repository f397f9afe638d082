"""Issue 25's target: a short outage of a dependency delays work, never loses it. One `--role api` and
two `--role worker` processes (real `mcv serve`, no MCV_SIGNING_KEY) on PostgreSQL and S3 (SeaweedFS),
each with a data directory of its own; an 80-row `mcv batch` (the issue's size: it costs no more time
here than 30 rows did, the faults' waits dominate) against the API while PostgreSQL is restarted
(`pg_ctl restart -m fast`) and then the S3 server is SIGKILLed and started again 3 s later.
The batch's first run exits 0 with every row finished by exactly one job."""

from __future__ import annotations

import json
import secrets
import subprocess
from collections import Counter
from pathlib import Path

from chaos_helpers import BATCH, KEY, S3Front, batch_env, failed_rows, make_work, service_jobs, wait_rows
from pg_server import PgServer
from team_helpers import Serve

from seaweed import SeaweedS3

ROWS = 80  # the target batch


def test_a_batch_rides_through_a_postgres_restart_and_an_s3_outage(
    postgres: PgServer, seaweed: SeaweedS3, tmp_path: Path
) -> None:
    url = postgres.url(postgres.new_database())
    storage = f"s3://{seaweed.bucket}/chaos-{secrets.token_hex(4)}"
    front = S3Front(seaweed)
    shared = ["--database", url, "--storage", storage, "--s3-endpoint", front.endpoint]
    env = {"MCV_SERVE_API_KEY": KEY, **seaweed.env, "AWS_ENDPOINT_URL": front.endpoint}
    logs = tmp_path / "logs"
    logs.mkdir()

    def serve(role: str, name: str, *extra: str) -> Serve:
        args = ["--role", role, *extra, *shared, "--data-dir", str(tmp_path / name)]
        return Serve(args, logs / f"{name}.log", env)

    api = serve("api", "api", "--rate-limit", "0")
    workers = [serve("worker", f"worker{n}", "--lease-seconds", "3", "--workers", "2") for n in (1, 2)]
    work = make_work(tmp_path / "work", ROWS)
    client_env = batch_env(api.base, tmp_path)
    batch = subprocess.Popen(
        BATCH, cwd=work, env=client_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        faults = 0
        if wait_rows(work, batch, 10):
            postgres.restart()  # pg_ctl restart -m fast: every connection is cut
            faults += 1
        if wait_rows(work, batch, 30):
            front.away(3)
            faults += 1
        assert faults == 2, "the batch ended before both faults: too few rows to test them"
        _, stderr = batch.communicate(timeout=300)
        assert batch.returncode == 0, failed_rows(work, stderr)
        jobs = service_jobs(api.base)
    finally:
        if batch.poll() is None:
            batch.kill()
            batch.communicate()
        for process in (api, *workers):
            process.stop()
        front.close()
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
