"""Batch runs: one pipeline over every row of a manifest, journaled, sharded and reported.

This package holds the parts that need no service: manifests, keys, shards, the journal, reports,
progress and output-name collisions. The executor that submits rows builds on them.
"""

from mcv_pipelines.batch.errors import DuplicateKey, InvalidTransition, JournalMismatch, ManifestError
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

__all__ = [
    "ALLOWED_SOURCES",
    "KEY_HASH_LENGTH",
    "MANIFEST_FORMATS",
    "REPORT_WRITERS",
    "BatchMeta",
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
    "Progress",
    "ProgressSnapshot",
    "ReportRow",
    "ReportWriter",
    "RowError",
    "RowState",
    "Shard",
    "StateCounts",
    "attempt_tag",
    "canonical_json",
    "check_report_path",
    "default_journal_path",
    "find_collisions",
    "glob_manifest",
    "open_manifest",
    "open_report",
    "params_hash",
    "parse_shard",
    "read_rows",
    "row_key",
    "shard_of",
    "write_report",
]
