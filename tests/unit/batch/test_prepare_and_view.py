"""Pure parts of the batch executor: per-row rendering with manifest cells, known output paths,
the preparation pass (shards, collisions, journal rows), the work join and the progress lines."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mcv_pipelines.batch.execute import _work
from mcv_pipelines.batch.journal import Journal
from mcv_pipelines.batch.manifest import open_manifest
from mcv_pipelines.batch.meta import BatchMeta
from mcv_pipelines.batch.prepare import RowRenderer, known_targets, prepare_rows
from mcv_pipelines.batch.progress import Progress, ProgressSnapshot
from mcv_pipelines.batch.shard import parse_shard
from mcv_pipelines.batch.view import PlainBatchView, describe_snapshot
from mcv_pipelines.errors import McvError
from mcv_pipelines.pipeline.document import load_document
from mcv_pipelines.run.model import RunOptions

PIPELINE = """\
version: 1
name: shrink
params:
  image: {type: string}
  width: {type: integer, default: 64}
tasks:
  source:
    operation: import/upload
    upload_from: "{{ params.image }}"
  small:
    operation: convert
    input: source
    output_format: webp
    width: "{{ params.width }}"
    filename: "{{ params.image | stem }}-{{ row.label }}.webp"
  publish:
    operation: export/url
    input: small
    download_to: "out/"
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.yaml").write_text(PIPELINE)
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"{name}.png").write_bytes(b"png")
    return tmp_path


def renderer(work: Path) -> RowRenderer:
    return RowRenderer(load_document(work / "p.yaml"), base_dir=work)


def test_a_bad_cell_is_placed_at_its_row_and_column_and_the_param_declaration(work: Path) -> None:
    rows = list(open_manifest(_csv(work, "image,width,label\na.png,wide,x\n"), params={"image", "width"}))
    pipeline, found = renderer(work).render(rows[0], "k1")
    assert pipeline is None
    errors = [d for d in found if d.rule == "param-type"]
    assert errors
    assert errors[0].manifest is not None
    assert errors[0].manifest.row == 1
    assert errors[0].manifest.column == "width"
    assert errors[0].location is not None
    assert errors[0].location.line == 5


def test_row_columns_reach_templates_and_known_targets(work: Path) -> None:
    rows = list(open_manifest(_csv(work, "image,label\nb.png,hi\n"), params={"image", "width"}))
    pipeline, found = renderer(work).render(rows[0], "k1")
    assert pipeline is not None, found
    assert known_targets(pipeline, RunOptions(base_dir=work)) == [work / "out" / "b-hi.webp"]
    assert known_targets(pipeline, RunOptions(base_dir=work, out_dir=Path("elsewhere"))) == [
        work / "elsewhere" / "b-hi.webp"
    ]


def test_a_missing_upload_file_names_the_column(work: Path) -> None:
    rows = list(open_manifest(_csv(work, "image,label\nnope.png,x\n"), params={"image", "width"}))
    pipeline, found = renderer(work).render(rows[0], "k1")
    assert pipeline is None
    assert found[-1].rule == "batch-upload-missing"
    assert found[-1].manifest is not None
    assert found[-1].manifest.column == "image"


def _csv(work: Path, text: str) -> Path:
    path = work / "m.csv"
    path.write_text(text)
    return path


def _journal(work: Path, source: Path, shard: str | None = None) -> Journal:
    meta = BatchMeta.describe(work / "p.yaml", open_manifest(source), shard=shard)
    return Journal.open(work / "j.sqlite", meta)


def test_prepare_counts_invalid_rows_finds_collisions_and_records_rows(work: Path) -> None:
    source = _csv(work, "image,width,label\na.png,10,x\nb.png,bad,x\nc.png,12,same\nc.png,13,same\n")
    with _journal(work, source) as journal:
        found = prepare_rows(open_manifest(source, params={"image", "width"}), renderer(work), journal,
                             options=RunOptions(base_dir=work))
        assert (found.rows, found.valid_rows, found.invalid_rows) == (4, 3, 1)
        assert found.collision_count == 1
        assert "c-same.webp is written by row 3" in str(found.collisions[0])
        assert not found.ok
        assert journal.counts().pending == 4
        assert [r.index for r in journal.rows()] == [1, 2, 3, 4]


def test_prepare_takes_only_the_shard_and_two_shards_split_the_rows(work: Path) -> None:
    text = "image,width,label\n" + "".join(f"a.png,{w},l{w}\n" for w in range(10, 40))
    source = _csv(work, text)
    seen: list[set[int]] = []
    for shard in ("1/2", "2/2"):
        (work / "j.sqlite").unlink(missing_ok=True)
        with _journal(work, source, shard) as journal:
            found = prepare_rows(open_manifest(source, params={"image", "width"}), renderer(work), journal,
                                 shard=parse_shard(shard))
            assert found.rows + found.other_shards == 30
            seen.append({r.index for r in journal.rows()})
    assert not seen[0] & seen[1]
    assert seen[0] | seen[1] == set(range(1, 31))


def test_work_joins_unfinished_journal_rows_with_their_manifest_rows(work: Path) -> None:
    source = _csv(work, "image,width,label\na.png,10,x\nb.png,11,x\nc.png,12,x\nd.png,13,x\n")
    rows_manifest = open_manifest(source, params={"image", "width"})
    with _journal(work, source) as journal:
        prepare_rows(rows_manifest, renderer(work), journal)
        keys = [r.key for r in journal.rows()]
        journal.mark_submitting(keys[0])
        journal.mark_submitted(keys[0], "job-1")
        journal.mark_finished(keys[0], ["out/a-x.webp"])
        journal.mark_submitting(keys[2], "tag-3")
        joined = list(_work(journal, rows_manifest, None, None))
        assert [(j.index, m.index, m.params["image"]) for j, m in joined] == [
            (2, 2, "b.png"), (3, 3, "c.png"), (4, 4, "d.png")]
        assert joined[1][0].tag == "tag-3"
        # The manifest changed under the journal: refused, not silently mismatched.
        other = open_manifest(_csv(work, "image,width,label\na.png,10,x\nz.png,11,x\n"), params={"image"})
        with pytest.raises(McvError, match="another key"):
            list(_work(journal, other, None, None))


def test_progress_lines() -> None:
    snapshot = ProgressSnapshot(total=200, finished=118, failed=2, in_flight=4, rate=5.0, eta=16.0,
                                elapsed=24.0)
    assert describe_snapshot(snapshot) == "rows 120/200 (2 failed, 4 in flight), 5.0 rows/s, ETA 16s"
    unknown = ProgressSnapshot(total=None, finished=0, failed=0, in_flight=1, rate=None, eta=None,
                               elapsed=1.0)
    assert describe_snapshot(unknown) == "rows 0/? (0 failed, 1 in flight), - rows/s"
    progress = Progress(10)
    stream = io.StringIO()
    view = PlainBatchView(progress.snapshot, stream=stream, interval=3600)
    view.show()
    progress.start()
    progress.finish()
    view.show()  # throttled: no second line within the interval
    view.close()  # the last state always
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[-1].startswith("mcv batch: rows 1/10 (0 failed, 0 in flight)")
