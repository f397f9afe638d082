"""A journal survives SIGKILL of its writer: every acknowledged step is there, no row is half written."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from mcv_pipelines.batch.journal import Journal
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.states import RowState

# Far more steps than the pipe holds unread (about 4,000 lines): the writer is still busy committing
# when it is killed, so the kill lands at an arbitrary point of its loop.
ROWS = 3000

WRITER = """
import sys
from mcv_pipelines.batch.journal import Journal, NewRow
from mcv_pipelines.batch.meta import BatchMeta

journal = Journal.open(sys.argv[1], BatchMeta("p.yaml", "p", "m.csv", "m"))
journal.add_rows(NewRow(f"k{i}", i, {"photo": f"{i}.jpg"}) for i in range(1, ROWS + 1))
print("ready", flush=True)
for i in range(1, ROWS + 1):
    key = f"k{i}"
    journal.mark_submitting(key, f"tag-{key}")
    print("submitting", key, flush=True)
    journal.mark_submitted(key, f"job-{key}")
    print("submitted", key, flush=True)
    if i % 7 == 0:
        journal.mark_failed(key, "TASK_FAILED", f"row {i} failed")
        print("failed", key, flush=True)
    else:
        journal.mark_finished(key, [f"out/{key}.png", f"out/{key}.pdf"], credits=i)
        print("finished", key, flush=True)
""".replace("ROWS", str(ROWS))

ORDER = {RowState.PENDING: 0, RowState.SUBMITTING: 1, RowState.SUBMITTED: 2, RowState.FINISHED: 3,
         RowState.FAILED: 3}


def kill_writer_after(path: Path, acknowledged: int) -> dict[str, RowState]:
    """Run the writer, SIGKILL it after ``acknowledged`` committed steps; return each key's last ack."""
    child = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "ready"
    last: dict[str, RowState] = {}
    for _ in range(acknowledged):
        state, key = child.stdout.readline().split()
        last[key] = RowState(state)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    return last


@pytest.mark.parametrize("acknowledged", [1, 100, 451])
def test_journal_is_consistent_after_sigkill(tmp_path: Path, acknowledged: int) -> None:
    path = tmp_path / "j.sqlite"
    last = kill_writer_after(path, acknowledged)

    with sqlite3.connect(path) as db:  # the file itself is sound
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()

    with Journal.open(path, BatchMeta("p.yaml", "p", "m.csv", "m")) as journal:
        rows = list(journal.rows())
        assert [r.index for r in rows] == list(range(1, ROWS + 1))
        moved = 0
        for row in rows:
            # Every step the writer acknowledged is in the journal (the row may be one step further).
            assert ORDER[row.state] >= ORDER[last.get(row.key, RowState.PENDING)]
            if row.state is RowState.PENDING:
                assert (row.tag, row.job_id, row.attempts) == (None, None, 0)
                continue
            moved += 1
            assert row.tag == f"tag-{row.key}"
            assert row.attempts == 1
            if row.state is RowState.SUBMITTING:
                assert row.job_id is None
            else:
                assert row.job_id == f"job-{row.key}"
            if row.state is RowState.FINISHED:
                assert row.outputs == (f"out/{row.key}.png", f"out/{row.key}.pdf")
                assert row.credits == row.index
            if row.state is RowState.FAILED:
                assert row.index % 7 == 0
                assert row.error is not None
                assert row.error.code == "TASK_FAILED"
        # The writer works row by row: at most one row is between steps, the rest are done or untouched.
        in_between = [r for r in rows if r.state in (RowState.SUBMITTING, RowState.SUBMITTED)]
        assert len(in_between) <= 1
        assert moved >= len(last)
        # And resuming knows what to do with each: reconcile, follow, or run.
        counts = journal.counts()
        assert counts.total == ROWS
        assert counts.pending > 0
        assert len(list(journal.rows_to_reconcile())) == counts.submitting
        assert len(list(journal.rows_to_follow())) == counts.submitted
        assert len(list(journal.rows_to_run())) == counts.pending
        assert json.loads(json.dumps([r.params for r in rows]))[0] == {"photo": "1.jpg"}
