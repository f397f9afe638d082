"""Changes made by other processes, heard through PostgreSQL LISTEN and published into this
process's change feed (marked ``remote``), so waits and idle workers wake whichever process made
the change."""

from __future__ import annotations

import json
import logging

from mcv_pipelines.service.state.changes import Change, ChangeFeed
from mcv_pipelines.service.state.database import Database
from mcv_pipelines.service.state.store import PROCESS

__all__ = ["relay_notices"]

log = logging.getLogger(__name__)


def relay_notices(db: Database, changes: ChangeFeed) -> None:
    """Run in a thread until the database is closed."""
    for payload in db.listen():
        if not payload:
            continue
        try:
            data = json.loads(payload)
        except ValueError:
            log.warning("ignored a malformed change notice")
            continue
        if data.get("from") == PROCESS or data.get("kind") not in ("job", "task"):
            continue  # this process published its own changes already
        changes.publish(
            Change(
                "job" if data["kind"] == "job" else "task",
                str(data["id"]),
                str(data.get("status")),
                user_id=data.get("user_id"),
                job_id=data.get("job_id"),
                remote=True,
            )
        )
