"""The journal: transitions, resume queries, batch identity, masking, locking and concurrent use."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcv_pipelines.batch.errors import DuplicateKey, InvalidTransition, JournalMismatch
from mcv_pipelines.batch.journal import Journal, NewRow, OpenMode
from mcv_pipelines.batch.keys import attempt_tag
from mcv_pipelines.batch.manifest import open_manifest
from mcv_pipelines.batch.meta import BatchMeta, default_journal_path
from mcv_pipelines.batch.states import RowError, RowState, StateCounts
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import register_secret

META = BatchMeta("p.yaml", "p-hash", "m.csv", "m-hash", options={"concurrency": 4})


def new_rows(count: int) -> list[NewRow]:
    return [NewRow(f"k{i}", i, {"photo": f"{i}.jpg"}, line=i + 1) for i in range(1, count + 1)]


@pytest.fixture
def journal(tmp_path: Path) -> Journal:
    opened = Journal.open(tmp_path / "j.sqlite", META)
    opened.add_rows(new_rows(5))
    return opened


def test_new_journal_records_rows_as_pending(journal: Journal) -> None:
    assert journal.is_new
    assert journal.rows_complete
    assert journal.counts() == StateCounts(pending=5)
    first = journal.get("k1")
    assert first is not None
    assert (first.index, first.line, first.params, first.state, first.attempts) == (
        1, 2, {"photo": "1.jpg"}, RowState.PENDING, 0)
    assert journal.get("nope") is None
    journal.close()


def test_a_row_goes_through_every_step(journal: Journal) -> None:
    journal.mark_submitting("k1", "tag-1")
    journal.mark_submitted("k1", "job-1")
    journal.mark_finished("k1", ["out/1.webp", "out/1.pdf"], credits=2)
    row = journal.get("k1")
    assert row is not None
    assert (row.state, row.tag, row.job_id, row.outputs, row.credits, row.attempts, row.error) == (
        RowState.FINISHED, "tag-1", "job-1", ("out/1.webp", "out/1.pdf"), 2, 1, None)
    journal.close()


@pytest.mark.parametrize(
    ("steps", "move"),
    [
        ([], "submitted"),
        ([], "finished"),
        ([], "pending"),
        (["submitting", "submitted", "finished"], "submitting"),
        (["submitting", "submitted", "finished"], "failed"),
        (["submitting", "submitted"], "submitting"),
        (["submitting"], "submitting"),
    ],
)
def test_invalid_transitions_are_refused(journal: Journal, steps: list[str], move: str) -> None:
    moves: dict[str, Callable[[], object]] = {
        "submitting": lambda: journal.mark_submitting("k1", "t"),
        "submitted": lambda: journal.mark_submitted("k1", "j"),
        "finished": lambda: journal.mark_finished("k1"),
        "failed": lambda: journal.mark_failed("k1", "E", "m"),
        "pending": lambda: journal.mark_pending("k1"),
    }
    for step in steps:
        moves[step]()
    before = journal.get("k1")
    with pytest.raises(InvalidTransition, match=f"row 1 \\(key 'k1'\\) is {before.state if before else ''}"):
        moves[move]()
    assert journal.get("k1") == before
    journal.close()


def test_unknown_key_is_refused(journal: Journal) -> None:
    with pytest.raises(InvalidTransition, match="no row with key 'k99'"):
        journal.mark_submitting("k99", "t")
    journal.close()


def test_resume_queries_after_reopening(tmp_path: Path, journal: Journal) -> None:
    journal.mark_submitting("k1", "t1")  # outcome unknown: killed during the POST
    journal.mark_submitting("k2", "t2")
    journal.mark_submitted("k2", "job-2")  # to follow
    journal.mark_submitting("k3", "t3")
    journal.mark_submitted("k3", "job-3")
    journal.mark_finished("k3", ["o3"])
    journal.mark_failed("k4", "UPLOAD_FAILED", "photo 4.jpg: no such file")
    journal.close()

    resumed = Journal.open(tmp_path / "j.sqlite", META)
    assert not resumed.is_new
    assert resumed.batch_id == journal.batch_id
    assert [(r.key, r.tag) for r in resumed.rows_to_reconcile()] == [("k1", "t1")]
    assert [(r.key, r.job_id) for r in resumed.rows_to_follow()] == [("k2", "job-2")]
    assert [r.key for r in resumed.rows_to_run()] == ["k5"]
    assert [(r.key, r.error) for r in resumed.failed_rows()] == [
        ("k4", RowError("UPLOAD_FAILED", "photo 4.jpg: no such file"))]
    assert resumed.counts() == StateCounts(pending=1, submitting=1, submitted=1, finished=1, failed=1)

    resumed.mark_pending("k1")  # reconciled: no job had been created
    assert resumed.retry_failed() == 1
    assert [r.key for r in resumed.rows_to_run()] == ["k1", "k4", "k5"]
    retried = resumed.get("k4")
    assert retried is not None
    assert retried.error is None
    tag = resumed.mark_submitting("k1")
    assert tag == attempt_tag(resumed.batch_id, "k1", 2)
    again = resumed.get("k1")
    assert again is not None
    assert (again.attempts, again.tag) == (2, tag)
    resumed.close()


def test_rows_come_in_manifest_order_across_pages(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite", META) as journal:
        journal.add_rows(reversed(new_rows(1234)))
        assert [r.index for r in journal.rows()] == list(range(1, 1235))
        assert journal.counts().total == 1234


def test_duplicate_key_names_both_rows(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.sqlite", META) as journal:
        rows = [*new_rows(3), NewRow("k2", 4, {"photo": "again.jpg"}, line=9)]
        with pytest.raises(DuplicateKey, match=r"row 4 \(line 9\) has the key 'k2', already used by row 2"):
            journal.add_rows(rows)
        assert not journal.rows_complete


def test_interrupted_add_rows_can_run_again(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"

    def stop_after_seven() -> Iterator[NewRow]:
        yield from new_rows(7)
        raise KeyboardInterrupt

    with Journal.open(path, META) as journal, pytest.raises(KeyboardInterrupt):
        journal.add_rows(stop_after_seven())
    with Journal.open(path, META) as journal:
        complete_before = journal.rows_complete
        assert journal.add_rows(new_rows(10)) in (3, 10)  # rows committed before the stop are kept
        assert (complete_before, journal.rows_complete) == (False, True)
        assert journal.counts().pending == 10


def test_resuming_another_batch_is_refused_with_a_hint(tmp_path: Path, journal: Journal) -> None:
    journal.mark_submitting("k1", "t")
    journal.close()
    other = BatchMeta("p.yaml", "changed", "m.csv", "m-hash", shard="1/2")
    with pytest.raises(JournalMismatch) as caught:
        Journal.open(tmp_path / "j.sqlite", other)
    message = str(caught.value)
    assert "pipeline p.yaml is not the one it was started with" in message
    assert "--shard was not given, now 1/2" in message
    assert "--restart" in message
    assert caught.value.exit_code == 2
    restarted = Journal.open(tmp_path / "j.sqlite", other, mode="restart")
    assert restarted.is_new
    assert restarted.counts().total == 0
    assert restarted.meta == other
    restarted.close()


def test_a_journal_where_nothing_was_sent_is_replaced_quietly(tmp_path: Path, journal: Journal) -> None:
    journal.close()  # e.g. validation found bad rows; the user fixed the manifest
    fixed = BatchMeta("p.yaml", "p-hash", "m.csv", "fixed-hash")
    with Journal.open(tmp_path / "j.sqlite", fixed) as replaced:
        assert replaced.is_new
        assert replaced.counts().total == 0


def test_meta_describes_files_and_settings(tmp_path: Path) -> None:
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text("version: 1\n")
    manifest_path = tmp_path / "m.csv"
    manifest_path.write_text("photo\na.jpg\n")
    manifest = open_manifest(manifest_path)
    meta = BatchMeta.describe(pipeline, manifest, settings={"quality": 80}, options={"concurrency": 4})
    with Journal.open(tmp_path / "j.sqlite", meta) as journal:
        journal.add_rows([NewRow("a", 1, {"photo": "a.jpg"})])
        journal.mark_submitting("a")
    assert BatchMeta.describe(pipeline, manifest, settings={"quality": 80}).differences(meta) == []
    changed = BatchMeta.describe(pipeline, manifest, settings={"quality": 81})
    with pytest.raises(JournalMismatch, match="params or settings given on the command line"):
        Journal.open(tmp_path / "j.sqlite", changed)
    pipeline.write_text("version: 1\nname: x\n")
    manifest_path.write_text("photo\nb.jpg\n")
    differences = BatchMeta.describe(pipeline, manifest, settings={"quality": 80}).differences(meta)
    assert len(differences) == 2


def test_resume_mode_needs_a_journal(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no journal to resume"):
        Journal.open(tmp_path / "none.sqlite", META, mode="resume")


def test_a_file_that_is_not_a_journal_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "report.csv"
    path.write_text("key,status\n" * 100)
    modes: list[OpenMode] = ["auto", "restart"]
    for mode in modes:
        with pytest.raises(JournalMismatch, match="not an mcv batch journal"):
            Journal.open(path, META, mode=mode)
    assert path.read_text() == "key,status\n" * 100


def test_a_journal_in_use_is_refused(journal: Journal, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="in use by another mcv batch"):
        Journal.open(tmp_path / "j.sqlite", META)
    journal.close()
    Journal.open(tmp_path / "j.sqlite", META).close()


def test_secrets_never_reach_the_journal_file(tmp_path: Path) -> None:
    secret = f"sk-{uuid.uuid4().hex}"
    register_secret(secret)
    path = tmp_path / "j.sqlite"
    meta = BatchMeta("p.yaml", "h", "m.csv", "h", options={"api_key": secret})
    with Journal.open(path, meta) as journal:
        journal.add_rows([NewRow("k1", 1, {"token": secret, "nested": [f"x{secret}y"]})])
        journal.mark_submitting("k1", "t")
        journal.mark_failed("k1", "AUTH", f"key {secret} refused")
        row = journal.get("k1")
        assert row is not None
        assert row.params == {"token": "***", "nested": ["x***y"]}
        assert row.error == RowError("AUTH", "key *** refused")
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert secret.encode() not in stored


async def test_many_tasks_can_write_at_once(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "j.sqlite", META)
    journal.add_rows(new_rows(200))

    async def run(key: str) -> None:
        await asyncio.to_thread(journal.mark_submitting, key, f"t-{key}")
        await asyncio.sleep(0)
        await asyncio.to_thread(journal.mark_submitted, key, f"job-{key}")
        journal.mark_finished(key, [f"{key}.png"])

    await asyncio.gather(*(run(f"k{i}") for i in range(1, 201)))
    assert journal.counts() == StateCounts(finished=200)
    assert all(r.job_id == f"job-{r.key}" for r in journal.rows())
    journal.close()


def test_default_journal_path() -> None:
    assert default_journal_path("p.yaml", "m.csv", report="out/r.jsonl") == Path("out/r.journal.sqlite")
    assert default_journal_path("x/p.yaml", "data/m.csv") == Path("p.m.journal.sqlite")
    assert default_journal_path("p.yaml", "m.csv", shard="2/4") == Path("p.m.2-of-4.journal.sqlite")
    assert default_journal_path("p.yaml", "glob:photos/*.jpg as photo") == Path("p.all.journal.sqlite")
