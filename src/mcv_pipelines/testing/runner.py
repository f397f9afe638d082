"""Running a recipe's cases on a service and judging what each run made.

A case is rendered with its params, checked as a run would be, and skipped (reason said) when an
environment variable it needs is unset or when the service it runs on cannot convert one of its pairs
(an engine missing on this machine: the live listing says so); otherwise it runs as one job through
the same runner as `mcv run`, and its expectations are held to the files that came home. Cases run
several at once on one client; the readers of output files run in threads.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.pipelinecheck import check_pipeline_catalog
from mcv_pipelines.diagnostics import Diagnostic, Severity, has_errors
from mcv_pipelines.errors import InterruptedRun, McvError
from mcv_pipelines.pipeline.casecheck import render_case
from mcv_pipelines.pipeline.cases import TestCase
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.fixtures import FixtureRefused, repository_root
from mcv_pipelines.pipeline.graph import check_graph
from mcv_pipelines.pipeline.opcheck import OperationSchemas, check_operations
from mcv_pipelines.run.events import NullEvents
from mcv_pipelines.run.model import RunOptions, RunOutcome
from mcv_pipelines.run.runner import run_pipeline
from mcv_pipelines.run.submit import new_run_id
from mcv_pipelines.testing.judge import judge_outcome
from mcv_pipelines.testing.outcome import CaseResult, CaseStatus
from mcv_pipelines.testing.plan import plan_case
from mcv_pipelines.testing.probe import ReaderMissing

__all__ = ["Recipe", "TestOptions", "run_cases"]


@dataclass(frozen=True)
class Recipe:
    """A loaded pipeline file and the cases to run of it."""

    document: Document
    cases: tuple[TestCase, ...]


@dataclass(frozen=True)
class TestOptions:
    """How `mcv test` runs: where fixtures may come from, how many cases at once, what to keep."""

    __test__ = False

    root: Path | None = None
    jobs: int = 4
    timeout: float | None = 300.0  # seconds for one case's job
    update_golden: bool = False
    fail_on_skip: bool = False
    keep_outputs: Path | None = None
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    schemas: OperationSchemas | None = None
    fast_polls: bool = True  # the embedded service: poll often, it is on this machine


Reporter = Callable[[CaseResult], None]


def _missing_env(case: TestCase, environ: Mapping[str, str]) -> list[str]:
    wanted = [*case.requires_env, *case.env_params.values()]
    return sorted({name for name in wanted if not environ.get(name)})


_UNSET = re.compile(r"(?:environment variable|secret) (\S+) is not set")


def _unset_variables(found: list[Diagnostic]) -> list[str]:
    """The variables a case's render found unset, when nothing else is wrong with it: a secret of the
    recipe that this environment does not have (a fork's pull request) skips the case, saying which."""
    errors = [d for d in found if d.severity is Severity.ERROR]
    if not errors or any(d.rule not in ("template-env", "secret-missing") for d in errors):
        return []
    return sorted({m.group(1) for d in errors if (m := _UNSET.search(d.message))})


def _needs(names: list[str]) -> str:
    return f"needs the environment variable{'s' if len(names) > 1 else ''} {', '.join(names)}"


def _skip(recipe: Recipe, case: TestCase, reason: str, options: TestOptions) -> CaseResult:
    status = CaseStatus.FAILED if options.fail_on_skip else CaseStatus.SKIPPED
    return CaseResult(recipe.document.path, case.name, case.location, status, reason=reason)


def _unsupported(pipeline_problems: list[Diagnostic]) -> str | None:
    errors = [d for d in pipeline_problems if d.severity is Severity.ERROR]
    if not errors:
        return None
    said = "; ".join(f"{d.location}: {d.message}" if d.location else d.message for d in errors[:3])
    return f"the service cannot run it: {said}"


async def _run_case(
    client: ApiClient,
    recipe: Recipe,
    case: TestCase,
    listing: Catalog | None,
    options: TestOptions,
    work: Path,
) -> CaseResult:
    document = recipe.document
    started = time.monotonic()
    missing = _missing_env(case, options.environ)
    if missing:
        return _skip(recipe, case, _needs(missing), options)
    rendered = render_case(document, case, options.environ, placeholders=False)
    found = list(rendered.diagnostics)
    pipeline = rendered.pipeline
    if pipeline is not None:
        found.extend(check_graph(pipeline))
        found.extend(check_operations(pipeline, options.schemas))
    unset = _unset_variables(found)
    if unset:
        return _skip(recipe, case, _needs(unset), options)
    if pipeline is None or has_errors(found):
        return CaseResult(
            document.path, case.name, case.location, CaseStatus.INVALID, diagnostics=tuple(found)
        )
    if listing is not None:
        reason = _unsupported(check_pipeline_catalog(listing, pipeline))
        if reason is not None:
            return _skip(recipe, case, reason, options)
    root = repository_root(document.path, options.root)
    try:
        plan = plan_case(case, pipeline, root, work)
    except FixtureRefused as exc:
        problem = Diagnostic("test-fixture", Severity.ERROR, f"case {case.name!r}: {exc}", case.location)
        return CaseResult(document.path, case.name, case.location, CaseStatus.INVALID, diagnostics=(problem,))
    expects_failure = any(e.get("fails") is not None for e in case.expect)
    run_options = RunOptions(
        timeout=options.timeout,
        base_dir=root,
        overwrite=True,
        keep_going=expects_failure,
        run_id=new_run_id(),
        status_interval=0.5 if options.fast_polls else 2.0,
        poll_interval=0.5 if options.fast_polls else 1.0,
    )
    try:
        outcome: RunOutcome = await run_pipeline(client, plan.pipeline, run_options, NullEvents())
    except InterruptedRun:
        raise
    except McvError as exc:
        return CaseResult(
            document.path,
            case.name,
            case.location,
            CaseStatus.ERROR,
            reason=str(exc),
            elapsed=time.monotonic() - started,
        )
    try:
        failures, updated = await asyncio.to_thread(
            judge_outcome, document.path, case, plan, outcome, options.update_golden
        )
    except ReaderMissing as exc:
        return _skip(recipe, case, f"checking it needs {exc}", options)
    status = CaseStatus.FAILED if failures else CaseStatus.PASSED
    return CaseResult(
        document.path,
        case.name,
        case.location,
        status,
        elapsed=time.monotonic() - started,
        failures=tuple(failures),
        job_id=outcome.job_id,
        updated=tuple(updated),
    )


async def run_cases(
    client: ApiClient,
    recipes: list[Recipe],
    options: TestOptions,
    report: Reporter,
    listing: Catalog | None = None,
) -> list[CaseResult]:
    """Run every case of ``recipes``, ``options.jobs`` at a time; ``report`` hears each as it ends.

    Results come back in file and case order, whatever order they finished in.
    """
    gate = asyncio.Semaphore(max(1, options.jobs))
    with tempfile.TemporaryDirectory(prefix="mcv-test-") as scratch:

        async def one(number: int, recipe: Recipe, case: TestCase) -> CaseResult:
            async with gate:
                base = options.keep_outputs if options.keep_outputs is not None else Path(scratch)
                work = base / f"{number:03d}-{Path(recipe.document.path).stem}-{case.index}"
                result = await _run_case(client, recipe, case, listing, options, work)
            report(result)
            return result

        pending = [
            one(number, recipe, case)
            for number, (recipe, case) in enumerate((r, c) for r in recipes for c in r.cases)
        ]
        return list(await asyncio.gather(*pending))
