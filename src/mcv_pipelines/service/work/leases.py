"""Claiming and ending tasks on a shared database, each in one transaction.

A worker claims a task by taking its row (``FOR UPDATE SKIP LOCKED``: two workers never take the
same one) and writing itself as the lease owner with an expiry on the database's clock; it extends
the lease while the task runs. A task whose lease expired (its worker died) is claimed again by the
next worker that looks.

Ending a task locks its job's row, then the task's; a worker's result counts only while it still
holds the lease (a stale worker's is dropped). In the same transaction the task's waiting dependants
become ready (or fail, when an input failed) and the job's status is recomputed, so exactly one
transaction moves a job to finished or error: the process that ran it sends the webhook.
"""

# The SQL built with f-strings joins only constant fragments of the Database class (row locks,
# its clock): every value goes through ? marks.
# ruff: noqa: S608

from __future__ import annotations

import json
from dataclasses import dataclass, field

from mcv_pipelines.service.state.database import Tx
from mcv_pipelines.service.state.store import Doc, JobCounts, Store, now_iso
from mcv_pipelines.service.state.tasks import ENDED, TaskFailed
from mcv_pipelines.service.work.operations import Outcome, record_end

__all__ = ["Claim", "Ended", "claim_task", "end_task", "job_status", "renew_leases"]

_INPUT_FAILED = TaskFailed("INPUT_TASK_FAILED", "Input task has failed")


@dataclass
class Claim:
    task: Doc
    lease_lost: bool  # it was claimed before and its lease ran out


@dataclass
class Ended:
    tasks: list[Doc] = field(default_factory=list)  # every task this transaction ended
    jobs: list[tuple[str, str]] = field(default_factory=list)  # (job id, new status) that ended now


def job_status(job: Doc, counts: JobCounts) -> bool:
    """Recompute ``job``'s status from its tasks' counts (``Store.job_counts``, a retry standing in
    for its source); False when it has no tasks left (it keeps its last state until the janitor
    removes it)."""
    if not counts.total:
        return False
    if not counts.open:
        failed = counts.failed > 0 and not job.get("ignore_error")
        job["status"] = "error" if failed else "finished"
        job["ended_at"] = job.get("ended_at") or now_iso()
    else:
        job["status"], job["ended_at"] = "processing", None
    return True


def claim_task(store: Store, owner: str, lease_seconds: float, look_for_lost: bool = True) -> Claim | None:
    """Take the oldest task whose lease expired (when ``look_for_lost``), else the oldest runnable
    waiting one. One read looks first: a claim loop woken for nothing (another worker was quicker, a
    change that readied nothing) costs that single statement, not a transaction of four."""
    db = store.db
    lost_where = f"status = 'processing' AND lease_expires IS NOT NULL AND lease_expires < {db.now_sql}"
    ready_where = "status = 'waiting' AND ready = 1"
    probe = f"SELECT EXISTS (SELECT 1 FROM tasks WHERE {ready_where})"
    if look_for_lost:
        probe += f" OR EXISTS (SELECT 1 FROM tasks WHERE {lost_where})"
    found = db.read(probe)
    if not found or not found[0][0]:
        return None
    with store.transaction() as tx:
        row = None
        if look_for_lost:
            row = tx.one(f"SELECT doc FROM tasks WHERE {lost_where} ORDER BY seq LIMIT 1{db.skip_locked}")
        lost = row is not None
        if row is None:
            row = tx.one(f"SELECT doc FROM tasks WHERE {ready_where} ORDER BY seq LIMIT 1{db.skip_locked}")
        if row is None:
            return None
        task: Doc = json.loads(row[0])
        task.update(status="processing", started_at=now_iso(), message=None, percent=0)
        store._save_task(tx, task)
        tx.execute(
            f"UPDATE tasks SET ready = 0, lease_owner = ?, lease_expires = {db.now_sql} + ?,"
            f" claimed_at = {db.now_sql} WHERE id = ?",
            (owner, lease_seconds, task["id"]),
        )
    return Claim(task, lost)


def renew_leases(store: Store, owner: str, lease_seconds: float) -> set[str]:
    """Extend every lease ``owner`` holds; the ids of the tasks it still holds."""
    with store.transaction() as tx:
        rows = tx.execute(
            f"UPDATE tasks SET lease_expires = {store.db.now_sql} + ?"
            " WHERE lease_owner = ? AND status = 'processing' RETURNING id",
            (lease_seconds, owner),
        )
    return {str(r[0]) for r in rows}


def end_task(
    store: Store, task_id: str, outcome: Outcome | TaskFailed, allowed: tuple[str, ...], owner: str | None
) -> Ended:
    """End the task once, if its status is in ``allowed`` (and ``owner`` still holds its lease)."""
    ended = Ended()
    first = store.get_task(task_id)
    if first is None:
        return ended
    with store.transaction() as tx:
        job_id = first.get("job_id")
        jobs: dict[str, Doc] = {}
        if job_id:
            row = tx.one("SELECT doc FROM jobs WHERE id = ?" + store.db.lock_rows, (job_id,))
            if row is not None:
                jobs[job_id] = json.loads(row[0])
        _end_one(store, tx, task_id, outcome, allowed, owner, jobs, ended)
        touched = {t["job_id"] for t in ended.tasks if t.get("job_id") in jobs}
        for jid in touched:
            job = jobs[jid]
            before = job["status"]
            if job_status(job, store.job_counts(tx, jid)):
                store._save_job(tx, job)
                if job["status"] != before and job["status"] in ENDED:
                    ended.jobs.append((jid, job["status"]))
    return ended


def _end_one(
    store: Store,
    tx: Tx,
    task_id: str,
    outcome: Outcome | TaskFailed,
    allowed: tuple[str, ...],
    owner: str | None,
    jobs: dict[str, Doc],
    ended: Ended,
) -> None:
    row = tx.one("SELECT doc, lease_owner FROM tasks WHERE id = ?" + store.db.lock_rows, (task_id,))
    if row is None:
        return
    task = _doc(row[0])
    if task["status"] not in allowed:
        return
    if owner is not None and (task["status"] != "processing" or row[1] != owner):
        return  # the lease went to another worker: this result is not recorded
    record_end(task, outcome)
    if not isinstance(outcome, TaskFailed) and outcome.credits:
        tx.execute("UPDATE users SET credits = credits - ? WHERE id = ?", (outcome.credits, task["user_id"]))
    store._save_task(tx, task)
    tx.execute(
        "UPDATE tasks SET ready = 0, lease_owner = NULL, lease_expires = NULL WHERE id = ?", (task_id,)
    )
    ended.tasks.append(task)
    rows = tx.execute(
        "SELECT doc FROM tasks WHERE status = 'waiting' AND ready = 0 AND deps LIKE ? ORDER BY seq"
        + store.db.lock_rows,
        (f"%{task_id}%",),
    )
    for (doc,) in rows:
        dependant = _doc(doc)
        inputs = list(dependant.get("depends_on", {}).values())
        if task_id not in inputs or dependant["operation"] == "import/upload":
            continue
        statuses = [tx.one("SELECT status FROM tasks WHERE id = ?", (i,)) for i in inputs]
        if any(s is not None and s[0] not in ENDED for s in statuses):
            continue  # an input still to end (as ``Store.inputs_ended``, from the same one read)
        job = jobs.get(dependant.get("job_id") or "")
        ignore = bool(job and job.get("ignore_error"))
        if any(s is None or s[0] == "error" for s in statuses) and not ignore:
            _end_one(store, tx, dependant["id"], _INPUT_FAILED, ("waiting",), None, jobs, ended)
        else:
            tx.execute(
                f"UPDATE tasks SET ready = 1, ready_at = {store.db.now_sql} WHERE id = ?", (dependant["id"],)
            )


def _doc(text: str) -> Doc:
    value: Doc = json.loads(text)
    return value
