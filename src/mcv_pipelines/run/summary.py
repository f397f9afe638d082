"""The end-of-run summary a person reads: the job, its tasks, the files written, credits and time."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from mcv_pipelines.redact import redact
from mcv_pipelines.run.model import RunOutcome
from mcv_pipelines.run.progress import human_size

__all__ = ["summary_json", "summary_text"]


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def summary_text(outcome: RunOutcome) -> str:
    counts = Counter(t.status for t in outcome.tasks)
    tasks = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    credits = "?" if outcome.credits is None else str(outcome.credits)
    lines = [
        f"job {outcome.job_id} {outcome.status} in {outcome.elapsed:.1f} s "
        f"(tag {outcome.tag}; tasks: {tasks or 'none'}; credits: {credits})"
    ]
    if outcome.failures:  # each one is on stderr, where errors go
        lines.append(f"{len(outcome.failures)} task(s) failed")
    if outcome.files:
        lines.append(f"{len(outcome.files)} file(s), {human_size(outcome.downloaded_bytes)}:")
        width = max(len(_shown(f.path)) for f in outcome.files)
        lines.extend(f"  {_shown(f.path):<{width}}  {human_size(f.size):>10}" for f in outcome.files)
    if outcome.stored:
        lines.append(f"{len(outcome.stored)} file(s) stored:")
        width = max(len(f.location) for f in outcome.stored)
        sizes = ["" if f.size is None else human_size(f.size) for f in outcome.stored]
        lines.extend(
            f"  {f.location:<{width}}  {size:>10}" for f, size in zip(outcome.stored, sizes, strict=True)
        )
    if not outcome.files and not outcome.stored and outcome.status == "finished":
        lines.append("no files to download (the pipeline has no export/url task)")
    return redact("\n".join(lines))


def summary_json(outcome: RunOutcome) -> str:
    data: dict[str, Any] = {
        "job_id": outcome.job_id,
        "tag": outcome.tag,
        "status": outcome.status,
        "elapsed": round(outcome.elapsed, 3),
        "credits": outcome.credits,
        "uploaded_bytes": outcome.uploaded_bytes,
        "tasks": [
            {"name": t.name, "operation": t.operation, "status": t.status, "message": t.message}
            for t in outcome.tasks
        ],
        "failures": [
            {"task": f.name, "code": f.code, "message": f.message, "location": str(f.location or "") or None}
            for f in outcome.failures
        ],
        "files": [{"task": f.task, "path": str(f.path), "size": f.size} for f in outcome.files],
        "stored": [{"task": f.task, "location": f.location, "size": f.size} for f in outcome.stored],
    }
    return redact(json.dumps(data, indent=2))
