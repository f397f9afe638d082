"""A job's status follows one aggregate read of its tasks (``Store.job_counts``), on SQLite and on
PostgreSQL: the counts are those of its tasks read whole, a retried task left out for its retry."""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.state.database import open_database
from mcv_pipelines.service.state.store import Doc, JobCounts, Store


def _task(job: str, n: int, status: str, retry_of: str | None = None) -> Doc:
    task: Doc = {"id": f"{job}-{n}", "job_id": job, "user_id": 1, "operation": "convert", "status": status}
    return task | ({"retry_of_task_id": retry_of} if retry_of else {})


JOBS = {
    "open": ["finished", "processing", "waiting"],
    "failed": ["finished", "error", "finished"],
    "retried-ok": ["finished", "error", ("finished", 1)],  # the failed one was retried and finished
    "retried-running": ["error", ("processing", 0)],
    "other-retried": ["finished"],  # its task's retry is in another job: not counted here
}


def _check(store: Store) -> None:
    for job, states in JOBS.items():
        tasks = []
        for n, state in enumerate(states):
            status, source = state if isinstance(state, tuple) else (state, None)
            tasks.append(_task(job, n, status, None if source is None else f"{job}-{source}"))
        store.save_tasks(tasks, {"id": job, "user_id": 1, "status": "processing"}, new=True)
    store.save_task(_task("elsewhere", 0, "waiting", retry_of="other-retried-0"))
    expected = {
        "open": (3, 2, 0),
        "failed": (3, 0, 1),
        "retried-ok": (2, 0, 0),
        "retried-running": (1, 1, 0),
        "other-retried": (1, 0, 0),
        "none": (0, 0, 0),
    }
    with store.transaction() as tx:
        counts = {job: store.job_counts(tx, job) for job in expected}
    assert counts == expected
    for job in JOBS:
        assert counts[job] == JobCounts.of(store.job_tasks(job))


def test_job_counts_on_sqlite(tmp_path: Path) -> None:
    store = Store(open_database(None, tmp_path / "state.sqlite3"))
    _check(store)
    store.close()


def test_job_counts_on_postgres(pg_url: str, tmp_path: Path) -> None:
    store = Store(open_database(pg_url, tmp_path / "unused"))
    _check(store)
    store.close()
