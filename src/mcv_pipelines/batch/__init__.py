"""Batch runs: one pipeline over every row of a manifest, journaled, sharded and reported.

Parts that need no service: manifests, keys, shards, the journal, reports, progress and output-name
collisions. On them: ``prepare_rows`` (every row checked before the first request, with a
``RowRenderer`` that parses the pipeline once) and ``execute_batch`` (rows over one shared client);
``PlainBatchView``/``RichBatchView`` show progress.
"""

from mcv_pipelines.batch.errors import DuplicateKey, InvalidTransition, JournalMismatch, ManifestError
from mcv_pipelines.batch.execute import BatchInterrupted, BatchOptions, BatchOutcome, execute_batch
from mcv_pipelines.batch.journal import Journal, NewRow, OpenMode
from mcv_pipelines.batch.keys import (
    KEY_HASH_LENGTH,
    KeyRegistry,
    attempt_tag,
    canonical_json,
    params_hash,
    row_key,
)
from mcv_pipelines.batch.manifest import (
    MANIFEST_FORMATS,
    Manifest,
    ManifestRow,
    glob_manifest,
    open_manifest,
    read_rows,
)
from mcv_pipelines.batch.meta import BatchMeta, default_journal_path
from mcv_pipelines.batch.naming import Collision, CollisionFinder, find_collisions
from mcv_pipelines.batch.prepare import Preparation, RowRenderer, known_targets, prepare_rows
from mcv_pipelines.batch.progress import Progress, ProgressSnapshot
from mcv_pipelines.batch.report import (
    REPORT_WRITERS,
    CsvReport,
    JsonlReport,
    JunitReport,
    ReportRow,
    ReportWriter,
    check_report_path,
    open_report,
    write_report,
)
from mcv_pipelines.batch.shard import Shard, parse_shard, shard_of
from mcv_pipelines.batch.states import ALLOWED_SOURCES, JournalRow, RowError, RowState, StateCounts
from mcv_pipelines.batch.view import PlainBatchView, RichBatchView, describe_snapshot

__all__ = [
    "ALLOWED_SOURCES",
    "KEY_HASH_LENGTH",
    "MANIFEST_FORMATS",
    "REPORT_WRITERS",
    "BatchInterrupted",
    "BatchMeta",
    "BatchOptions",
    "BatchOutcome",
    "Collision",
    "CollisionFinder",
    "CsvReport",
    "DuplicateKey",
    "InvalidTransition",
    "Journal",
    "JournalMismatch",
    "JournalRow",
    "JsonlReport",
    "JunitReport",
    "KeyRegistry",
    "Manifest",
    "ManifestError",
    "ManifestRow",
    "NewRow",
    "OpenMode",
    "PlainBatchView",
    "Preparation",
    "Progress",
    "ProgressSnapshot",
    "ReportRow",
    "ReportWriter",
    "RichBatchView",
    "RowError",
    "RowRenderer",
    "RowState",
    "Shard",
    "StateCounts",
    "attempt_tag",
    "canonical_json",
    "check_report_path",
    "default_journal_path",
    "describe_snapshot",
    "execute_batch",
    "find_collisions",
    "glob_manifest",
    "known_targets",
    "open_manifest",
    "open_report",
    "params_hash",
    "parse_shard",
    "prepare_rows",
    "read_rows",
    "row_key",
    "shard_of",
    "write_report",
]
