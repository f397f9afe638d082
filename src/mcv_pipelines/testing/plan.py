"""The job a test case sends: the recipe as rendered for the case, plus a way to see each expected task.

Only an export/url task's files come home, so a case that expects something of a processing task (a
convert, a for_each group of them, an import) gets an extra export/url of that task, named
``mcv-test-<task>``. An export to the caller's storage stores its inputs' files as they are, so its
expectations are read through an export of those inputs. Every export/url downloads into a folder of
its own under the case's working folder (never the recipe's ``download_to``), and upload_from paths
are resolved inside the repository.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from mcv_pipelines.pipeline.cases import TestCase
from mcv_pipelines.pipeline.fixtures import resolve_fixture
from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask

__all__ = ["HIDDEN_PREFIX", "CasePlan", "plan_case"]

HIDDEN_PREFIX = "mcv-test-"


@dataclass(frozen=True)
class CasePlan:
    """The pipeline to run and, per expected task, the export/url task whose files are its files."""

    pipeline: RenderedPipeline
    sources: dict[str, str]  # expectation name -> export/url task that downloads its files
    members: dict[str, tuple[str, ...]]  # expectation name -> the job's task names it stands for
    out_dir: Path


def _members(pipeline: RenderedPipeline, name: str) -> tuple[str, ...]:
    if name in pipeline.tasks:
        return (name,)
    return tuple(task.name for task in pipeline.tasks.values() if task.group == name)


def _unused(pipeline: RenderedPipeline, taken: set[str], wanted: str) -> str:
    name, n = wanted, 1
    while name in pipeline.tasks or name in taken:
        n += 1
        name = f"{wanted}-{n}"
    return name


def plan_case(case: TestCase, pipeline: RenderedPipeline, root: Path, out_dir: Path) -> CasePlan:
    """The case's job: fixtures resolved (``FixtureRefused`` when one is outside ``root``), downloads
    into ``out_dir/<export task>/``, and one export/url per expected task that has none of its own."""
    tasks: dict[str, RenderedTask] = {}
    for name, task in pipeline.tasks.items():
        upload = str(resolve_fixture(task.upload_from, root)) if task.upload_from is not None else None
        download = str(out_dir / name) + "/" if task.operation == "export/url" else None
        tasks[name] = replace(task, upload_from=upload, download_to=download)
    sources: dict[str, str] = {}
    members: dict[str, tuple[str, ...]] = {}
    added: set[str] = set()
    for expected in case.expect:
        names = _members(pipeline, expected.task)
        members[expected.task] = names
        if not names or expected.get("fails") is not None:
            continue  # a task expected to fail makes no files to look at
        operations = {pipeline.tasks[n].operation for n in names}
        if operations == {"export/url"} and len(names) == 1:
            sources[expected.task] = names[0]
            continue
        inputs: list[str] = []
        for n in names:
            task = pipeline.tasks[n]
            # An export stores its inputs' files as they are: look at those.
            for source in task.input_names if task.operation.startswith("export/") else (n,):
                if source not in inputs:
                    inputs.append(source)
        export = _unused(pipeline, added, HIDDEN_PREFIX + expected.task)
        added.add(export)
        first = pipeline.tasks[names[0]]
        tasks[export] = RenderedTask(
            name=export,
            operation="export/url",
            body=MappingProxyType({"operation": "export/url", "input": inputs}),
            upload_from=None,
            download_to=str(out_dir / export) + "/",
            group=export,
            location=expected.location,
            inputs=tuple((n, first.location) for n in inputs),
        )
        sources[expected.task] = export
    return CasePlan(replace(pipeline, tasks=MappingProxyType(tasks)), sources, members, out_dir)
