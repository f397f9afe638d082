"""Judging one case's run: failures expected and not, then each task's files against its expectations.

A task expected to fail must fail with its code; a job expected to fail must fail with a task failing
with its code; any other failed task fails the case, with the service's code and message, at the
case's line. Files are judged only for tasks that finished: a task that failed has said why already.
"""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.pipeline.cases import TestCase
from mcv_pipelines.run.model import RunOutcome, TaskFailure
from mcv_pipelines.testing.expect import FileFacts, check_files
from mcv_pipelines.testing.golden import check_golden, update_golden
from mcv_pipelines.testing.outcome import Failure
from mcv_pipelines.testing.plan import CasePlan

__all__ = ["judge_outcome"]

_CASCADE = "INPUT_TASK_FAILED"  # a task failed because its input did; the cause is reported instead


def _said(failure: TaskFailure) -> str:
    return f"task {failure.name} failed with {failure.code or 'no code'}: {failure.message or 'no message'}"


def _failures(case: TestCase, plan: CasePlan, outcome: RunOutcome) -> tuple[list[Failure], set[str]]:
    """Failures about which tasks failed; and the names of the tasks that failed."""
    failed = {f.name: f for f in outcome.failures}
    found: list[Failure] = []
    accounted: set[str] = set()
    for expected in case.expect:
        item = expected.get("fails")
        if item is None:
            continue
        members = plan.members.get(expected.task, ())
        accounted.update(members)
        hits = [failed[name] for name in members if name in failed]
        if not hits:
            found.append(
                Failure(item.location, expected.task, "fails", f"a failure with {item.value}", "it finished")
            )
        elif not any(hit.code == item.value for hit in hits):
            found.append(
                Failure(item.location, expected.task, "fails", f"a failure with {item.value}", _said(hits[0]))
            )
    if case.fails is not None:
        accounted.update(failed)
        if outcome.status == "finished":
            found.append(
                Failure(
                    case.fails.location,
                    "job",
                    "fails",
                    f"a failure with {case.fails.value}",
                    "the job finished",
                )
            )
        elif not any(f.code == case.fails.value for f in outcome.failures):
            said = _said(outcome.failures[0]) if outcome.failures else f"the job ended {outcome.status}"
            found.append(
                Failure(case.fails.location, "job", "fails", f"a failure with {case.fails.value}", said)
            )
    for name, failure in failed.items():
        if name in accounted or failure.code == _CASCADE:
            continue
        where = failure.location or case.location
        found.append(Failure(where, name, "status", "finished", _said(failure)))
    if outcome.status == "cancelled":
        found.append(Failure(case.location, "job", "status", "finished", "the job was cancelled"))
    return found, set(failed)


def judge_outcome(
    recipe: str, case: TestCase, plan: CasePlan, outcome: RunOutcome, update: bool
) -> tuple[list[Failure], list[str]]:
    """Every expectation of ``case`` that the run missed, and the golden files ``update`` changed."""
    found, failed = _failures(case, plan, outcome)
    if case.fails is not None:
        return found, []
    by_task: dict[str, list[Path]] = {}
    for file in outcome.files:
        by_task.setdefault(file.task, []).append(file.path)
    changed: list[str] = []
    for expected in case.expect:
        source = plan.sources.get(expected.task)
        members = plan.members.get(expected.task, ())
        if source is None or failed & {*members, source}:
            continue
        paths = sorted(by_task.get(source, []), key=lambda p: p.name)
        facts = [FileFacts(path) for path in paths]
        found.extend(check_files(expected, facts))
        if update:
            changed.extend(update_golden(recipe, case, expected, paths))
        else:
            formats = {f.path: f.sniffed.format for f in facts}
            found.extend(check_golden(recipe, case, expected, paths, formats))
    found.sort(key=lambda f: (f.location.line, f.location.column))
    return found, changed
