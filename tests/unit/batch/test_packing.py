"""Rows packed into one job: the job body each row's tasks make together, what travels inline, how a
row sees the ended job, how rows are grouped into packs, and the journal's moves of a pack."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from mcv_pipelines.api.models import Job, Task
from mcv_pipelines.batch.errors import InvalidTransition
from mcv_pipelines.batch.execute import _Alone, _Group, _groups, _work
from mcv_pipelines.batch.journal import Journal, NewRow
from mcv_pipelines.batch.keys import row_key
from mcv_pipelines.batch.manifest import open_manifest
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.packed import auto_rows_per_job
from mcv_pipelines.batch.packing import build_pack, is_pack_tag, pack_tag, row_view
from mcv_pipelines.batch.prepare import RowRenderer
from mcv_pipelines.batch.states import RowState
from mcv_pipelines.pipeline.check import check_document
from mcv_pipelines.pipeline.document import load_document
from mcv_pipelines.pipeline.model import RenderedPipeline

PIPELINE = """\
version: 1
name: marked
params:
  image: {type: string}
  hook: {type: string, default: "https://example.com/hook"}
job:
  webhook_url: "{{ params.hook }}"
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  logo:
    operation: import/url
    url: https://example.com/logo.png
  marked:
    operation: watermark
    input: source
    image: logo
    position: center
  both:
    operation: archive
    input: [source, marked]
    output_format: zip
  publish:
    operation: export/url
    input: both
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(PIPELINE)
    (tmp_path / "small.png").write_bytes(b"\x89PNG small")
    (tmp_path / "large.png").write_bytes(b"x" * 3000)
    (tmp_path / "noext").write_bytes(b"tiny")
    return tmp_path


def rendered(work: Path, image: str) -> RenderedPipeline:
    result = check_document(load_document(work / "p.yaml"), {"image": image}, use_examples=False)
    assert result.pipeline is not None, result.diagnostics
    return result.pipeline


def test_each_rows_tasks_and_references_take_its_prefix(work: Path) -> None:
    pack = build_pack([(3, rendered(work, "small.png")), (12, rendered(work, "small.png"))], work)
    assert list(pack.tasks) == [f"r{i}-{name}" for i in (3, 12)
                                for name in ("source", "logo", "marked", "both", "publish")]
    assert pack.tasks["r12-marked"]["input"] == "r12-source"
    assert pack.tasks["r12-marked"]["image"] == "r12-logo"  # watermark's image names a task too
    assert pack.tasks["r3-both"]["input"] == ["r3-source", "r3-marked"]
    assert pack.tasks["r3-publish"]["input"] == "r3-both"
    assert pack.tasks["r3-logo"]["url"] == "https://example.com/logo.png"  # not a reference


def test_small_files_travel_inline_and_large_ones_are_uploaded(work: Path) -> None:
    rows = [(1, rendered(work, "small.png")), (2, rendered(work, "large.png")), (3, rendered(work, "noext"))]
    pack = build_pack(rows, work, inline_limit=1000)
    inline = pack.tasks["r1-source"]
    assert inline == {"operation": "import/base64", "filename": "small.png",
                      "file": base64.b64encode(b"\x89PNG small").decode()}
    # Above the limit, or without the extension import/base64 requires: an upload, under its prefix.
    assert pack.tasks["r2-source"]["operation"] == "import/upload"
    assert pack.tasks["r3-source"]["operation"] == "import/upload"
    assert [(u.task.name, u.path.name, u.size) for u in pack.uploads] == [
        ("r2-source", "large.png", 3000), ("r3-source", "noext", 4)]
    assert pack.inline_bytes == len(b"\x89PNG small")
    assert pack.upload_bytes == 3004


def test_inline_files_stop_at_the_jobs_budget(work: Path) -> None:
    rows = [(i, rendered(work, "small.png")) for i in range(1, 6)]
    pack = build_pack(rows, work, inline_limit=1000, inline_budget=25)  # two files of 10 bytes fit
    operations = [pack.tasks[f"r{i}-source"]["operation"] for i in range(1, 6)]
    assert operations == ["import/base64"] * 2 + ["import/upload"] * 3


def _task(name: str, status: str, code: str | None = None, operation: str = "convert") -> Task:
    return Task(id=f"id-{name}", operation=operation, status=status, name=name, code=code)


def test_a_row_sees_only_its_tasks_under_their_own_names() -> None:
    job = Job(id="j", status="error", tasks=(
        _task("r1-source", "finished"), _task("r1-convert", "finished"),
        _task("r12-source", "finished"), _task("r12-convert", "error", "INVALID_INPUT_FILE"),
        _task("r2-source", "waiting"),
    ))
    one = row_view(job, 1)
    assert [t.name for t in one.tasks] == ["source", "convert"]
    assert one.status == "finished"  # the other row's failure is not this row's
    assert row_view(job, 12).status == "error"
    # A task the job's end left waiting (a service that stops a job at its first failure).
    assert row_view(job, 2).status == "cancelled"
    assert row_view(Job(id="j", status="processing", tasks=job.tasks), 2).status == "processing"


def test_pack_tags_are_told_from_a_rows_own_tag() -> None:
    tag = pack_tag("mcv-abc-0123456789ab-1", 25)
    assert tag == "mcv-abc-0123456789ab-1-25rows"
    assert is_pack_tag(f"webp~{tag}")
    assert not is_pack_tag("webp~mcv-abc-0123456789ab-1")
    assert not is_pack_tag(None)


@pytest.mark.parametrize(("remaining", "concurrency", "expected"),
                         [(6, 4, 1), (400, 8, 25), (40, 5, 4), (100000, 4, 50), (0, 4, 1)])
def test_rows_per_job_grows_with_the_rows_left_up_to_50(remaining: int, concurrency: int,
                                                         expected: int) -> None:
    assert auto_rows_per_job(remaining, concurrency) == expected


def _journal(work: Path, manifest_text: str) -> tuple[Journal, Any, RowRenderer]:
    (work / "rows.csv").write_text(manifest_text)
    manifest = open_manifest(work / "rows.csv", params={"image", "hook"})
    journal = Journal.open(work / "j.sqlite", BatchMeta.describe(work / "p.yaml", manifest))
    journal.add_rows(NewRow(row_key(r), r.index, r.params, r.line) for r in manifest)
    return journal, manifest, RowRenderer(load_document(work / "p.yaml"), base_dir=work)


def test_pending_rows_fill_packs_and_rows_with_other_job_keys_start_another(work: Path) -> None:
    journal, manifest, renderer = _journal(work, "\n".join(["image,hook",
        "small.png,https://example.com/a", "large.png,https://example.com/a", "noext,https://example.com/a",
        "small.png,https://example.com/b", "large.png,https://example.com/b"]) + "\n")
    groups = list(_groups(_work(journal, manifest, None, None), renderer, 2, work))
    packs = [[m.row.index for m in g.members] for g in groups if isinstance(g, _Group)]
    assert packs == [[1, 2], [3], [4, 5]]
    alone = list(_groups(_work(journal, manifest, None, None), renderer, 1, work))
    assert all(isinstance(g, _Alone) for g in alone)
    assert len(alone) == 5
    journal.close()


def test_rows_an_earlier_run_packed_come_back_together(work: Path) -> None:
    journal, manifest, renderer = _journal(work, "image\nsmall.png\nlarge.png\nnoext\n")
    keys = [r.key for r in journal.rows()]
    journal.mark_pack_submitting(keys[:2], "t~mcv-x-1-2rows")
    journal.mark_pack_submitting(keys[2:], "t~mcv-y-1-1rows")
    journal.mark_pack_submitted(keys[2:], "job-2")
    groups = list(_groups(_work(journal, manifest, None, None), renderer, 50, work))
    assert [([m.row.index for m in g.members], g.members[0].wanted.state) for g in groups
            if isinstance(g, _Group)] == [([1, 2], RowState.SUBMITTING), ([3], RowState.SUBMITTED)]
    journal.close()


def test_a_pack_moves_in_the_journal_all_together_or_not_at_all(work: Path) -> None:
    journal, _, _ = _journal(work, "image\nsmall.png\nlarge.png\nnoext\n")
    keys = [r.key for r in journal.rows()]
    journal.mark_pack_submitting(keys[:2], "t~mcv-x-1-2rows")
    with pytest.raises(InvalidTransition, match=r"row 1 .* is submitting"):
        journal.mark_pack_submitting([keys[2], keys[0]], "t~other")  # the first of them is already sent
    third = journal.get(keys[2])
    assert third is not None
    assert (third.state, third.attempts) == (RowState.PENDING, 0)
    journal.mark_pack_submitted(keys[:2], "job-1")
    assert [(r.state, r.job_id, r.tag, r.attempts) for r in journal.rows()][:2] == [
        (RowState.SUBMITTED, "job-1", "t~mcv-x-1-2rows", 1)] * 2
    journal.close()
