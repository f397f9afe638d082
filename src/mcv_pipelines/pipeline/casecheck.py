"""Offline checks of a recipe's test cases: what `mcv validate` and the editor say before anything runs.

Each case is rendered as `mcv test` will render it (its params, the params' examples for the rest)
and held to: params of the declared types, expectations naming tasks (or for_each groups) the run
makes, fixture files that exist inside the repository, golden folders that exist. Every finding sits
at the line of the case's own key, never at the recipe's declaration it broke.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.pipeline.cases import TestCase, case_slug, read_cases
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.expand import render_pipeline
from mcv_pipelines.pipeline.fixtures import FixtureRefused, repository_root, resolve_fixture
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.pipeline.params import declared_params, resolve_params
from mcv_pipelines.pipeline.suggest import did_you_mean

__all__ = ["RenderedCase", "case_values", "check_cases", "golden_dir", "render_case"]

_PARAM_NAME = re.compile(r"param '?([A-Za-z_][A-Za-z0-9_]*)'?")


@dataclass(frozen=True)
class RenderedCase:
    """A case and the pipeline it renders to (None when it does not render)."""

    case: TestCase
    pipeline: RenderedPipeline | None
    diagnostics: tuple[Diagnostic, ...]


def case_values(case: TestCase, environ: Mapping[str, str]) -> dict[str, Any]:
    """The case's param values, those read from the environment included (when set)."""
    values = dict(case.params)
    for param, variable in case.env_params.items():
        if variable in environ:
            values[param] = environ[variable]
    return values


def golden_dir(document_path: str, case: TestCase, task: str, value: object) -> Path:
    """The folder of a task's golden files: ``<stem>.golden/<case>/<task>/`` beside the recipe, or the
    folder ``golden:`` names (relative to the recipe)."""
    here = Path(document_path).parent
    if isinstance(value, str):
        return here / value
    return here / f"{Path(document_path).stem}.golden" / case_slug(case.name) / task


def _relocate(case: TestCase, found: list[Diagnostic]) -> list[Diagnostic]:
    """Param problems of a case point at the case's value, not at the recipe's declaration."""
    moved: list[Diagnostic] = []
    for d in found:
        match = _PARAM_NAME.search(d.message) if d.rule.startswith("param-") else None
        if match and match.group(1) in case.param_locations:
            d = replace(
                d, location=case.param_locations[match.group(1)], related=(d.location,) if d.location else ()
            )
        elif d.rule.startswith("param-") or d.rule.startswith("template-"):
            d = replace(d, related=(case.location,))
        message = d.message.replace(f" (from case {case.name!r})", "")
        moved.append(replace(d, message=f"case {case.name!r}: {message}"))
    return moved


def render_case(
    document: Document, case: TestCase, environ: Mapping[str, str], *, placeholders: bool
) -> RenderedCase:
    """Render the recipe for ``case`` (examples stand in for params it does not give)."""
    values = case_values(case, environ)
    params, problems = resolve_params(document, values, source=f"case {case.name!r}", use_examples=True)
    found = _relocate(case, problems)
    if params is None:
        return RenderedCase(case, None, tuple(found))
    pipeline, problems = render_pipeline(document, params, environ=environ, placeholders=placeholders)
    found.extend(_relocate(case, problems))
    return RenderedCase(case, pipeline, tuple(found))


def _error(rule: str, message: str, where: Location, hint: str | None = None) -> Diagnostic:
    return Diagnostic(rule, Severity.ERROR, message, where, hint=hint)


def _task_names(document: Document, case: TestCase, pipeline: RenderedPipeline) -> list[Diagnostic]:
    made = set(pipeline.tasks) | {task.group for task in pipeline.tasks.values()}
    written = set(document.data.get("tasks") or {})
    found: list[Diagnostic] = []
    for expected in case.expect:
        if expected.task in made:
            continue
        if expected.task in written:
            message = f"case {case.name!r}: task {expected.task} is not made with this case's params"
            hint = "its `when:` is false here, or its for_each is empty: expect another task or other params"
        else:
            message = f"case {case.name!r}: no task or for_each group named {expected.task!r}"
            hint = did_you_mean(expected.task, sorted(made)) or f"tasks: {', '.join(sorted(made))}"
        found.append(_error("test-unknown-task", message, expected.location, hint))
    return found


def _fixture_location(document: Document, case: TestCase, value: str) -> tuple[Location, bool]:
    """Where the fixture ``value`` is written: the case's param, else the example of a declared param
    (True when it is the case's own)."""
    for param, given in case.params.items():
        if given == value or (isinstance(given, list) and value in given):
            return case.param_locations[param], True
    for param, spec in declared_params(document).items():
        example = spec.get("example")
        if example == value or (isinstance(example, list) and value in example):
            return document.locate(("params", param, "example")), False
    return document.locate(("tests", case.index)), True


def _fixtures(
    document: Document, case: TestCase, pipeline: RenderedPipeline, root: Path, said: set[str]
) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for task in pipeline.tasks.values():
        if task.upload_from is None:
            continue
        try:
            resolve_fixture(task.upload_from, root)
        except FixtureRefused as exc:
            where, own = _fixture_location(document, case, task.upload_from)
            if not own and task.upload_from in said:
                continue  # an example every case takes: said once, at the example
            said.add(task.upload_from)
            whose = f"case {case.name!r}" if own else f"case {case.name!r} (and any case taking the example)"
            found.append(
                _error(
                    "test-fixture",
                    f"{whose}: task {task.name}: upload_from {exc}",
                    where,
                    hint="keep fixtures in the repository, beside the recipe or under tests/",
                )
            )
    return found


def _goldens(document: Document, case: TestCase) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for expected in case.expect:
        golden = expected.get("golden")
        if golden is None or golden.value is False:
            continue
        folder = golden_dir(document.path, case, expected.task, golden.value)
        if not folder.is_dir():
            found.append(
                Diagnostic(
                    "test-golden-missing",
                    Severity.WARNING,
                    f"case {case.name!r}: {expected.task}: no golden files yet ({folder})",
                    golden.location,
                    hint="run `mcv test --update-golden` once, look at the files, and commit them",
                )
            )
    return found


def check_cases(
    document: Document, *, root: str | Path | None = None, environ: Mapping[str, str] | None = None
) -> list[Diagnostic]:
    """Every problem of the file's cases, offline (missing secrets and env vars get stand-ins)."""
    cases, found = read_cases(document)
    env = os.environ if environ is None else environ
    base = repository_root(document.path, root)
    said: set[str] = set()
    for case in cases:
        rendered = render_case(document, case, env, placeholders=True)
        found.extend(rendered.diagnostics)
        if rendered.pipeline is None:
            continue
        found.extend(_task_names(document, case, rendered.pipeline))
        missing_env = [name for name in case.env_params.values() if name not in env]
        if not missing_env:
            found.extend(_fixtures(document, case, rendered.pipeline, base, said))
        found.extend(_goldens(document, case))
    return found
