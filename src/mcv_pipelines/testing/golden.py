"""Golden files: a task's outputs kept beside the recipe, and each run's outputs compared with them.

``--update-golden`` writes the folder to hold exactly this run's files (new ones added, changed ones
replaced, ones the task no longer makes removed); a reviewer sees the change in the pull request.
Comparison is by kind (``similarity.compare``): pictures by eye, not by byte, since encoders differ
from one machine to the next.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from mcv_pipelines.pipeline.casecheck import golden_dir
from mcv_pipelines.pipeline.cases import DEFAULT_SIMILARITY, TaskExpectations, TestCase
from mcv_pipelines.testing.outcome import Failure
from mcv_pipelines.testing.similarity import compare

__all__ = ["check_golden", "update_golden"]


def _copy(source: Path, target: Path) -> None:
    """Replace ``target`` with ``source`` at once: a reader never sees half a golden file."""
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(handle)
    try:
        shutil.copyfile(source, temporary)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def update_golden(recipe: str, case: TestCase, expected: TaskExpectations, files: list[Path]) -> list[str]:
    """Make the task's golden folder hold exactly ``files``; returns the paths written or removed."""
    golden = expected.get("golden")
    if golden is None or golden.value is False:
        return []
    folder = golden_dir(recipe, case, expected.task, golden.value)
    folder.mkdir(parents=True, exist_ok=True)
    changed: list[str] = []
    names = {path.name for path in files}
    for stale in sorted(folder.iterdir()):
        if stale.is_file() and stale.name not in names:
            stale.unlink()
            changed.append(f"removed {stale}")
    for path in files:
        target = folder / path.name
        if target.is_file() and target.stat().st_size == path.stat().st_size and _same_bytes(path, target):
            continue
        _copy(path, target)
        changed.append(f"wrote {target}")
    return changed


def _same_bytes(a: Path, b: Path) -> bool:
    with a.open("rb") as one, b.open("rb") as other:
        while True:
            x, y = one.read(1 << 20), other.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def check_golden(
    recipe: str,
    case: TestCase,
    expected: TaskExpectations,
    files: list[Path],
    formats: dict[Path, str | None],
) -> list[Failure]:
    """How ``files`` differ from the task's golden files (none when there is no ``golden:``)."""
    golden = expected.get("golden")
    if golden is None or golden.value is False:
        return []
    folder = golden_dir(recipe, case, expected.task, golden.value)
    where, task = golden.location, expected.task
    if not folder.is_dir():
        return [
            Failure(
                where, task, "golden", f"golden files in {folder}", "none: run `mcv test --update-golden`"
            )
        ]
    threshold_item = expected.get("similarity")
    threshold = float(threshold_item.value) if threshold_item is not None else DEFAULT_SIMILARITY
    failures: list[Failure] = []
    kept = {path.name for path in folder.iterdir() if path.is_file() and not path.name.startswith(".")}
    made = {path.name for path in files}
    for name in sorted(kept - made):
        failures.append(
            Failure(where, task, "golden", f"a file {name} (as in {folder})", "no such file made")
        )
    for path in files:
        reference = folder / path.name
        if not reference.is_file():
            failures.append(
                Failure(
                    where, task, "golden", f"a golden file {reference}", "none for this new file", path.name
                )
            )
            continue
        result = compare(path, reference, formats.get(path), threshold=threshold)
        if not result.same:
            failures.append(Failure(where, task, "golden", f"like {reference}", result.detail, path.name))
    return failures
