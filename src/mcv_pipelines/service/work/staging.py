"""A worker's start: remove what a worker killed mid-task left on disk (issue 25).

A worker SIGKILLed mid-task leaves its engine's scratch (``DATA_DIR/work/<task_id>/``) and, with a
store other than the data directory, the staged outputs (``DATA_DIR/tasks/<task_id>/``); another worker
ran the task again, so nothing reads them. Processes of a team may share one data directory, so a
directory stays while its task is ``processing`` under a lease that has not run out (another live
worker's).
"""

# ruff: noqa: S608 - the SQL joins a constant of the Database class (its clock), no value

from __future__ import annotations

import logging
import shutil

from mcv_pipelines.service.files.storage.base import Storage
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Store

__all__ = ["clear_stale_staging"]

log = logging.getLogger(__name__)


def clear_stale_staging(config: ServiceConfig, storage: Storage, store: Store) -> int:
    """Remove the stale task directories of this data directory; how many were removed."""
    roots = [config.data_dir / "work"]
    probe = "probe"
    if storage.local_path(probe, "file") != config.task_dir(probe) / "file":  # tasks/ only stages
        roots.append(config.data_dir / "tasks")
    found = [path for root in roots if root.is_dir() for path in root.iterdir() if path.is_dir()]
    if not found:
        return 0
    # Listed before the query: a directory made after it belongs to a lease the query sees.
    live = {
        str(row[0])
        for row in store.db.read(
            f"SELECT id FROM tasks WHERE status = 'processing' AND lease_expires > {store.db.now_sql}"
        )
    }
    removed = 0
    for path in found:
        if path.name not in live:
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    if removed:
        log.info("removed %d stale task directories from %s", removed, config.data_dir)
    return removed
