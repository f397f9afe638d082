"""The service's state at N stored jobs (issue 27): creation rate, list routes at page 1 and at the
last page, the retention sweep, and what the database holds, on SQLite or PostgreSQL.

    .venv/bin/python bench/state.py --jobs 1000 [--database URL | --database temp-postgres]
        [--api-share 0.01] [--expired 0.2] [--requests 40]

Every job is an import/raw task and an export/url task of one user (the worst case for that
user's lists), as the API makes them: one real job is created through the API and its stored
documents are the template of the rest.
- fill: ``N * (1 - api-share)`` jobs written in bulk through the store's transactions (multi-row
  INSERTs of the store's own columns; on PostgreSQL an ANALYZE after it), then ``N * api-share``
  (at least 100) through POST /v2/jobs at full size, 8 requests in flight: "API jobs/s" (each
  created and run to its end).
- lists: GET /v2/jobs (plain, filter[status], filter[tag]) and /v2/tasks (plain, filter[status],
  filter[job_id]), per_page=100, ``--requests`` times each: p50 and p99 at page 1, at the last page
  through its ``next`` link (seq_below) and at the last page by its number alone (offset, a fifth of
  the requests: it walks every skipped row).
- sweep: ``--expired`` of the bulk jobs ended two days ago (past the 24 h retention); the
  scheduler's sweep deletes them while a client lists page 1 and creates jobs, one request after
  the other: tasks/s deleted, the batch size it settled on, each request's p50/p99 for 3 s before
  the sweep and during it, and the CPU seconds the sweeping thread used (what the machine's load
  does not change). (The client runs in the service's process: both share one GIL.)
- size: the database's bytes (SQLite: file + WAL; PostgreSQL: pg_database_size), bytes per job and
  per task (tables with their indexes), the average stored document, on PostgreSQL also as jsonb,
  and what a day of 100,000 such jobs adds.
``--database temp-postgres`` starts a throwaway PostgreSQL (initdb + pg_ctl, as the team tests do).
Prints a table.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "integration" / "team"))

from mcv_pipelines.service.server import LocalService
from mcv_pipelines.service.state import jsontext
from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.store import Store
from mcv_pipelines.service.state.tasks import new_id

KEY = "sk-bench-state-0123456789abcdef"
JOB = {
    "tasks": {
        "in": {"operation": "import/raw", "file": "hello", "filename": "a.txt"},
        "out": {"operation": "export/url", "input": "in"},
    },
    "tag": "t0",
}
TAGS = 100
PER_PAGE = 100
CHUNK = 500  # jobs per bulk statement


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _service(data_dir: Path, url: str | None) -> LocalService:
    settings = {"rate_limit": 0, "janitor_interval": 10**6}
    return LocalService(data_dir=data_dir, api_key=KEY, engines=[], database=url, settings=settings).start()


def _template(data_dir: Path, url: str | None) -> tuple[Any, list[Any]]:
    """One job made through the API, as stored (it stays: the first job of the history)."""
    svc = _service(data_dir, url)
    try:
        with httpx.Client(base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}) as client:
            job_id = client.post("/v2/jobs", json=JOB).json()["data"]["id"]
            client.get(f"/v2/jobs/{job_id}/wait").raise_for_status()
        job, tasks = svc.ctx.store.get_job(job_id), svc.ctx.store.job_tasks(job_id)
        assert job is not None
        return job, tasks
    finally:
        svc.stop()


def _clone(job: Any, tasks: list[Any], n: int, ended: str) -> tuple[Any, list[Any]]:
    """Job ``n`` of the bulk: the template with new ids (replaced everywhere in the documents)."""
    text = jsontext.dumps({"job": job, "tasks": tasks})
    for old in [job["id"], *(t["id"] for t in tasks)]:
        text = text.replace(old, new_id())  # time-ordered, as the service makes them
    docs = jsontext.loads(text)
    new_job, new_tasks = docs["job"], docs["tasks"]
    new_job["tag"] = f"t{n % TAGS}"
    new_job["status"] = "error" if n % 20 == 0 else "finished"
    for doc in (new_job, *new_tasks):
        doc["created_at"] = doc["started_at"] = doc["ended_at"] = ended
    if n % 20 == 0:
        new_tasks[-1]["status"] = "error"
    return new_job, new_tasks


def _fill(store: Store, template: tuple[Any, list[Any]], jobs: int, expired: float) -> float:
    """``jobs`` jobs in bulk; jobs per second."""
    now = datetime.now(UTC)
    old, recent = (now - timedelta(days=2)).isoformat(timespec="seconds"), now.isoformat(timespec="seconds")
    pg = store.db.dialect == "postgresql"
    top = "SELECT MAX(m) FROM (SELECT MAX(seq) AS m FROM tasks UNION ALL SELECT MAX(seq) FROM jobs) AS s"
    seq = [int(store.db.read(top)[0][0] or 0)]

    def next_seq() -> str:
        seq[0] += 1
        return "nextval('mcv_seq')" if pg else str(seq[0])

    started = time.perf_counter()
    for first in range(0, jobs, CHUNK):
        job_rows: list[Any] = []
        task_rows: list[Any] = []
        job_seqs, task_seqs = [], []
        for n in range(first, min(jobs, first + CHUNK)):
            job, tasks = _clone(*template, n, old if n < jobs * expired else recent)
            job_rows += [job["user_id"], job["tag"], job["status"], jsontext.dumps(job), job["id"]]
            job_seqs.append(next_seq())
            for task in tasks:
                deps = " ".join(task.get("depends_on", {}).values())
                task_rows += [task["job_id"], task["user_id"], task["operation"], task["status"]]
                task_rows += [task["ended_at"], jsontext.dumps(task), deps, None, task["id"]]
                task_seqs.append(next_seq())
        with store.transaction() as tx:
            marks = ",".join(f"(?, ?, ?, ?, ?, {s})" for s in job_seqs)
            tx.execute(f"INSERT INTO jobs (user_id, tag, status, doc, id, seq) VALUES {marks}", job_rows)  # noqa: S608  # table and column names of ours, values bound
            marks = ",".join(f"(?, ?, ?, ?, ?, ?, ?, ?, ?, {s})" for s in task_seqs)
            columns = "job_id, user_id, operation, status, ended_at, doc, deps, retry_of, id, seq"
            tx.execute(f"INSERT INTO tasks ({columns}) VALUES {marks}", task_rows)  # noqa: S608  # table and column names of ours, values bound
    return jobs / (time.perf_counter() - started)


def _api_create(base: str, jobs: int) -> float:
    """Jobs through the API, 8 in flight, each waited for: jobs per second."""

    def one(client: httpx.Client) -> None:
        created = client.post("/v2/jobs", json=JOB)
        created.raise_for_status()
        client.get(f"/v2/jobs/{created.json()['data']['id']}/wait").raise_for_status()

    started = time.perf_counter()
    with (
        httpx.Client(base_url=base, headers={"Authorization": f"Bearer {KEY}"}, timeout=600) as client,
        ThreadPoolExecutor(8) as pool,
    ):
        list(pool.map(lambda _: one(client), range(jobs)))
    return jobs / (time.perf_counter() - started)


def _timed(client: httpx.Client, url: str, params: dict[str, Any], times: int) -> list[float]:
    seconds = []
    for _ in range(times):
        began = time.perf_counter()
        answer = client.get(url, params=params)
        seconds.append(time.perf_counter() - began)
        answer.raise_for_status()
    return seconds


def _last_page(store: Store, table: str, where: str, args: list[Any]) -> tuple[int, int | None]:
    """The last page's number and the seq_below its next link carries (None: page 1 is the last)."""
    count = int(store.db.read(f"SELECT COUNT(*) FROM {table} WHERE {where}", args)[0][0])  # noqa: S608  # table and column names of ours, values bound
    last = max(1, math.ceil(count / PER_PAGE))
    if last == 1:
        return 1, None
    row = store.db.read(
        f"SELECT seq FROM {table} WHERE {where} ORDER BY seq DESC LIMIT 1 OFFSET ?",  # noqa: S608  # table and column names of ours, values bound
        [*args, (last - 1) * PER_PAGE - 1],
    )
    return last, int(row[0][0])


def _lists(svc: LocalService, requests: int) -> list[tuple[str, str, float, float]]:
    store, user = svc.ctx.store, 1
    some_job = store.db.read("SELECT id FROM jobs WHERE user_id = ? ORDER BY seq LIMIT 1", [user])[0][0]
    routes = [
        ("/v2/jobs", {}, "jobs", "user_id = ?", [user]),
        (
            "/v2/jobs",
            {"filter[status]": "finished"},
            "jobs",
            "user_id = ? AND status = ?",
            [user, "finished"],
        ),
        ("/v2/jobs", {"filter[tag]": "t7"}, "jobs", "user_id = ? AND tag = ?", [user, "t7"]),
        ("/v2/tasks", {}, "tasks", "user_id = ?", [user]),
        ("/v2/tasks", {"filter[status]": "error"}, "tasks", "user_id = ? AND status = ?", [user, "error"]),
        ("/v2/tasks", {"filter[job_id]": some_job}, "tasks", "user_id = ? AND job_id = ?", [user, some_job]),
    ]
    out = []
    with httpx.Client(
        base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}, timeout=600
    ) as client:
        for path, filters, table, where, args in routes:
            name = path + ("?" + "&".join(f"{k}={v}" for k, v in filters.items()) if filters else "")
            name = name.replace(some_job, "<job>")
            params = {**filters, "per_page": PER_PAGE}
            _timed(client, path, params, 3)  # warm
            first = _timed(client, path, params, requests)
            out.append((name, "page 1", _ms(first, 0.5), _ms(first, 0.99)))
            last, bound = _last_page(store, table, where, args)
            if bound is None:
                continue
            linked = _timed(client, path, {**params, "page": last, "seq_below": bound}, requests)
            out.append((name, f"last ({last}), next link", _ms(linked, 0.5), _ms(linked, 0.99)))
            numbered = _timed(client, path, {**params, "page": last}, max(3, requests // 5))
            out.append((name, f"last ({last}), number only", _ms(numbered, 0.5), _ms(numbered, 0.99)))
    return out


def _sweep(svc: LocalService) -> dict[str, float]:
    """The scheduler's sweep while a client lists page 1 and creates jobs."""
    store = svc.ctx.store
    cutoff = (datetime.now(UTC) - timedelta(seconds=svc.ctx.config.task_retention)).isoformat(
        timespec="seconds"
    )
    expired_sql = "SELECT COUNT(*) FROM tasks WHERE ended_at IS NOT NULL AND ended_at < ?"
    before = int(store.db.read(expired_sql, [cutoff])[0][0])
    done, seconds = threading.Event(), []

    def load() -> None:
        with httpx.Client(
            base_url=svc.base_url, headers={"Authorization": f"Bearer {KEY}"}, timeout=600
        ) as c:
            while not done.is_set():
                for call in (
                    lambda: c.get("/v2/jobs", params={"per_page": PER_PAGE}),
                    lambda: c.post("/v2/jobs", json=JOB),
                ):
                    began = time.perf_counter()
                    call().raise_for_status()
                    seconds.append(time.perf_counter() - began)

    client = threading.Thread(target=load)
    client.start()
    time.sleep(3.0)  # the same load without a sweep first: what the sweep adds is the difference
    quiet, seconds[:] = list(seconds), []
    began, cpu = time.perf_counter(), time.thread_time()
    svc.ctx.scheduler.sweep()  # in this thread: its CPU time is the sweep's (and SQLite's) own work
    took, cpu = time.perf_counter() - began, time.thread_time() - cpu
    done.set()
    client.join()
    deleted = before - int(store.db.read(expired_sql, [cutoff])[0][0])
    swept = svc.ctx.scheduler.retention
    return {
        "deleted": float(deleted),
        "seconds": took,
        "rate": deleted / took if took else 0.0,
        "cpu": cpu,
        "batch": float(swept.batch),
        "p50": _ms(seconds, 0.5) if seconds else 0.0,
        "p99": _ms(seconds, 0.99) if seconds else 0.0,
        "requests": float(len(seconds)),
        "quiet p50": _ms(quiet, 0.5) if quiet else 0.0,
        "quiet p99": _ms(quiet, 0.99) if quiet else 0.0,
    }


def _sizes(store: Store, data_dir: Path) -> dict[str, float]:
    db = store.db
    jobs = int(db.read("SELECT COUNT(*) FROM jobs")[0][0])
    tasks = int(db.read("SELECT COUNT(*) FROM tasks")[0][0])
    out = {"jobs": float(jobs), "tasks": float(tasks)}
    out["job doc"] = float(db.read("SELECT AVG(LENGTH(doc)) FROM jobs")[0][0] or 0)
    out["task doc"] = float(db.read("SELECT AVG(LENGTH(doc)) FROM tasks")[0][0] or 0)
    if db.dialect == "postgresql":
        out["total"] = float(db.read("SELECT pg_database_size(current_database())")[0][0])
        for table in ("jobs", "tasks"):
            out[f"{table} bytes"] = float(db.read("SELECT pg_total_relation_size(?)", [table])[0][0])
        for table in ("jobs", "tasks"):
            text, binary = db.read(
                f"SELECT AVG(pg_column_size(doc)), AVG(pg_column_size(doc::jsonb)) FROM"  # noqa: S608  # table and column names of ours, values bound
                f" (SELECT doc FROM {table} LIMIT 10000) AS s"
            )[0]
            out[f"{table} doc stored"], out[f"{table} doc jsonb"] = float(text), float(binary)
    else:
        db.read("PRAGMA wal_checkpoint(TRUNCATE)")
        out["total"] = float(sum(p.stat().st_size for p in data_dir.glob("service.sqlite3*")))
        sizes = dict(db.read("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))
        for table in ("jobs", "tasks"):  # the table and its indexes (automatic ones too)
            owned = [n for (n,) in db.read("SELECT name FROM sqlite_master WHERE tbl_name = ?", [table])]
            out[f"{table} bytes"] = float(sum(sizes.get(n, 0) for n in owned))
    out["per job"] = out["jobs bytes"] / max(1, jobs)
    out["per task"] = out["tasks bytes"] / max(1, tasks)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1000, help="jobs stored in all (default 1000)")
    parser.add_argument("--database", default="", help="postgresql://... or temp-postgres (default SQLite)")
    parser.add_argument("--api-share", type=float, default=0.01, help="share made through the API")
    parser.add_argument("--expired", type=float, default=0.2, help="share of the bulk the sweep deletes")
    parser.add_argument("--requests", type=int, default=40, help="requests per list measurement")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mcv-bench-state-") as temp:
        server = None
        url: str | None = args.database or None
        if url == "temp-postgres":
            from pg_server import PgServer, find_bin_dir

            bin_dir = find_bin_dir()
            if bin_dir is None:
                print("needs PostgreSQL's initdb and pg_ctl (apt-get install postgresql)", file=sys.stderr)
                return 2
            server = PgServer(bin_dir, Path(tempfile.mkdtemp(prefix="mcv-bench-pg-")))
            server.start()
            url = server.url(server.new_database())
        try:
            return _run(args, Path(temp) / "data", url)
        finally:
            if server is not None:
                server.stop()
                shutil.rmtree(server.root, ignore_errors=True)


def _run(args: argparse.Namespace, data_dir: Path, url: str | None) -> int:
    api_jobs = max(100, int(args.jobs * args.api_share))
    template = _template(data_dir, url)
    store = Store(open_database(url, data_dir / "service.sqlite3"))
    fill_rate = _fill(store, template, max(0, args.jobs - api_jobs - 1), args.expired)
    if store.db.dialect == "postgresql":
        # A live server's autovacuum analyzes the tables as they grow; a bulk load outruns it, and
        # with the statistics of an empty table the planner scans and sorts a filter's every row.
        store.db.read("ANALYZE")
    store.close()
    svc = _service(data_dir, url)
    try:
        api_rate = _api_create(svc.base_url, api_jobs)
        lists = _lists(svc, args.requests)
        sizes = _sizes(svc.ctx.store, data_dir)
        sweep = _sweep(svc)
    finally:
        svc.stop()
    dialect = "PostgreSQL" if url else "SQLite"
    print(f"\n{dialect}, {int(sizes['jobs']):,} jobs / {int(sizes['tasks']):,} tasks stored\n")
    print(f"| {'measure':<60} | {'value':>22} |\n|{'-' * 62}|{'-' * 24}|")
    rows = [
        ("bulk fill (store, jobs/s)", f"{fill_rate:,.0f}"),
        (f"API creation, {api_jobs} jobs run to the end (jobs/s)", f"{api_rate:,.0f}"),
        *((f"{name} {where}", f"p50 {p50:.1f} / p99 {p99:.1f} ms") for name, where, p50, p99 in lists),
        ("sweep: tasks deleted", f"{sweep['deleted']:,.0f} in {sweep['seconds']:.1f} s"),
        ("sweep: tasks/s", f"{sweep['rate']:,.0f}"),
        ("sweep: batch size it settled on (rows)", f"{sweep['batch']:,.0f}"),
        # What the machine's load does not change: CPU seconds the sweeping thread used (with SQLite
        # this includes the database's work; PostgreSQL's server works in its own processes).
        (
            "sweep: CPU of the sweeping thread (s), tasks per CPU second",
            f"{sweep['cpu']:.1f} s, {sweep['deleted'] / max(sweep['cpu'], 1e-9):,.0f}",
        ),
        (
            "API under load, no sweep: list page 1 + create",
            f"p50 {sweep['quiet p50']:.1f} / p99 {sweep['quiet p99']:.1f} ms",
        ),
        (
            f"the same while it sweeps ({sweep['requests']:.0f} requests)",
            f"p50 {sweep['p50']:.1f} / p99 {sweep['p99']:.1f} ms",
        ),
        ("database size", f"{sizes['total'] / 2**20:,.1f} MiB"),
        ("bytes per job (row + indexes)", f"{sizes['per job']:,.0f}"),
        ("bytes per task (row + indexes)", f"{sizes['per task']:,.0f}"),
        ("avg doc text: job / task", f"{sizes['job doc']:,.0f} / {sizes['task doc']:,.0f}"),
    ]
    if "jobs doc jsonb" in sizes:
        rows.append(
            (
                "doc stored as text vs jsonb: job / task",
                f"{sizes['jobs doc stored']:.0f}/{sizes['jobs doc jsonb']:.0f}"
                f"  {sizes['tasks doc stored']:.0f}/{sizes['tasks doc jsonb']:.0f}",
            )
        )
    per_day = 100_000 * (sizes["per job"] + sizes["per task"] * sizes["tasks"] / max(1.0, sizes["jobs"]))
    rows.append(("a day of 100,000 such jobs", f"{per_day / 2**20:,.0f} MiB"))
    for name, value in rows:
        print(f"| {name:<60} | {value:>22} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
