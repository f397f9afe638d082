"""What a batch is (pipeline, manifest, key, shard, settings), so a journal resumes only its own batch,
and where its journal lives by default."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcv_pipelines.batch.keys import canonical_json
from mcv_pipelines.batch.manifest import Manifest

__all__ = ["BatchMeta", "default_journal_path"]


@dataclass(frozen=True, slots=True)
class BatchMeta:
    """What a batch is; a journal resumes only the batch it was started for.

    Identity (checked on resume): the pipeline's and the manifest's content hashes, the key column, the
    shard, and ``settings_hash`` (a hash of anything else that changes what rows send: ``-p`` values, a
    params file). Paths and ``options`` (JSON values) are recorded for people reading the journal.
    """

    pipeline_path: str
    pipeline_hash: str
    manifest: str
    manifest_hash: str
    key_column: str | None = None
    shard: str | None = None
    settings_hash: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def describe(
        cls, pipeline: str | os.PathLike[str], manifest: Manifest, *, key_column: str | None = None,
        shard: str | None = None, settings: Any = None, options: Mapping[str, Any] | None = None,
    ) -> BatchMeta:
        """The meta of running ``pipeline`` over ``manifest``: hashes the pipeline file, the manifest's
        content and ``settings`` (any JSON value, e.g. the command-line params)."""
        with open(pipeline, "rb") as stream:
            pipeline_hash = hashlib.file_digest(stream, "sha256").hexdigest()
        settings_hash = None
        if settings is not None:
            settings_hash = hashlib.sha256(canonical_json(settings).encode("utf-8")).hexdigest()
        return cls(os.fspath(pipeline), pipeline_hash, manifest.label, manifest.digest(), key_column, shard,
                   settings_hash, dict(options or {}))

    def differences(self, other: BatchMeta) -> list[str]:
        found = []
        if self.pipeline_hash != other.pipeline_hash:
            found.append(f"the pipeline {other.pipeline_path} is not the one it was started with")
        if self.manifest_hash != other.manifest_hash:
            found.append(f"the manifest {other.manifest} is not the one it was started with")
        if self.key_column != other.key_column:
            found.append(f"--key was {self.key_column or 'not given'}, now {other.key_column or 'not given'}")
        if self.settings_hash != other.settings_hash:
            found.append("the params or settings given on the command line are not the ones it started with")
        if self.shard != other.shard:
            found.append(f"--shard was {self.shard or 'not given'}, now {other.shard or 'not given'}")
        return found


def default_journal_path(
    pipeline: str | os.PathLike[str], manifest_label: str, *, report: str | os.PathLike[str] | None = None,
    shard: str | None = None,
) -> Path:
    """Next to the report (``out/report.jsonl`` -> ``out/report.journal.sqlite``), else in the current
    directory, named for the pipeline, manifest and shard so batches do not share one by accident."""
    suffix = "" if shard is None else "." + shard.replace("/", "-of-")
    if report is not None:
        path = Path(report)
        return path.with_name(f"{path.stem}{suffix}.journal.sqlite")
    manifest_stem = Path(manifest_label.removeprefix("glob:").split(" as ")[0]).stem.replace("*", "all")
    return Path(f"{Path(pipeline).stem}.{manifest_stem or 'glob'}{suffix}.journal.sqlite")
