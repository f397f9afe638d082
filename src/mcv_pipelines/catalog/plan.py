"""The data of `mcv plan`: the tasks of a pipeline, their conversion types and credits, warnings.

The command builds ``PlannedTask`` values while walking the checked graph and calls ``build_plan``;
``plan_to_json`` and ``plan_to_text`` are what it prints.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.catalog.credits import CreditEstimate, estimate_credits
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey
from mcv_pipelines.diagnostics import Diagnostic

__all__ = ["Plan", "PlannedTask", "build_plan", "plan_to_json", "plan_to_text"]


@dataclass(frozen=True, slots=True)
class PlannedTask:
    """One task; ``key`` is its resolved conversion type (None for imports, exports, unknowns)."""

    name: str
    operation: str
    key: ConversionKey | None = None
    default_engine: bool = False  # the task names no engine: the catalog's default for the formats


@dataclass(frozen=True, slots=True)
class Plan:
    tasks: tuple[PlannedTask, ...]
    credits: CreditEstimate
    rows: int = 1
    warnings: tuple[Diagnostic, ...] = ()
    # Credits of each row when a manifest's rows were planned one by one (their tasks may differ).
    row_credits: tuple[int, ...] = ()
    errors: tuple[Diagnostic, ...] = ()

    @property
    def credits_per_run(self) -> int:
        return self.credits.per_run

    @property
    def credits_total(self) -> int:
        return sum(self.row_credits) if self.row_credits else self.credits.total(self.rows)


def build_plan(
    catalog: Catalog,
    tasks: Iterable[PlannedTask],
    *,
    rows: int = 1,
    warnings: Iterable[Diagnostic] = (),
    row_credits: Iterable[int] = (),
    errors: Iterable[Diagnostic] = (),
) -> Plan:
    tasks = tuple(tasks)
    estimate = estimate_credits(catalog, (t.key for t in tasks if t.key is not None))
    return Plan(tasks, estimate, rows, tuple(warnings), tuple(row_credits), tuple(errors))


def _diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    return {"rule": d.rule, "severity": str(d.severity), "message": d.message,
            "location": str(d.location) if d.location else None,
            "manifest": str(d.manifest) if d.manifest else None, "hint": d.hint}


def _diagnostic_line(d: Diagnostic) -> str:
    where = str(d.location or d.manifest or "-")
    row = f" ({d.manifest})" if d.manifest and d.location else ""
    return f"{where}: {d.severity}[{d.rule}]: {d.message}{row}" + (f" (hint: {d.hint})" if d.hint else "")


def plan_to_json(plan: Plan) -> dict[str, Any]:
    by_key = dict(plan.credits.items)
    return {
        "tasks": [
            {
                "name": t.name,
                "operation": t.operation,
                "conversion_type": list(t.key) if t.key else None,
                "default_engine": t.default_engine,
                "credits": by_key.get(t.key) if t.key else None,
            }
            for t in plan.tasks
        ],
        "rows": plan.rows,
        "credits_per_run": plan.credits_per_run,
        "credits_total": plan.credits_total,
        "credits_complete": plan.credits.complete,
        "credits_per_row": list(plan.row_credits) if plan.row_credits else None,
        "unknown_credits": [list(k) for k in plan.credits.unknown],
        "valid": not plan.errors,
        "errors": [_diagnostic_json(d) for d in plan.errors],
        "warnings": [_diagnostic_json(w) for w in plan.warnings],
    }


def plan_to_text(plan: Plan) -> str:
    by_key = dict(plan.credits.items)
    lines = []
    for t in plan.tasks:
        if t.key is None:
            lines.append(f"  {t.name:<24} {t.operation}")
        else:
            credits = by_key.get(t.key)
            shown = "?" if credits is None else str(credits)
            engine = " [default engine]" if t.default_engine else ""
            lines.append(f"  {t.name:<24} {t.key}{engine}  credits {shown}")
    lines.append(f"credits per run{' (first valid row)' if plan.row_credits else ''}: {plan.credits_per_run}"
                 + ("" if plan.credits.complete else " (some conversion types have no credits figure)"))
    if plan.rows != 1 or plan.row_credits:
        spread = ""
        if plan.row_credits and min(plan.row_credits) != max(plan.row_credits):
            spread = f" (rows differ: {min(plan.row_credits)} to {max(plan.row_credits)} per row)"
        left_out = plan.rows - len(plan.row_credits) if plan.row_credits or plan.errors else 0
        if left_out:
            spread += f" ({left_out} invalid row{'s' if left_out != 1 else ''} not counted)"
        lines.append(f"credits for {plan.rows} rows: {plan.credits_total}{spread}")
    lines.extend(_diagnostic_line(d) for d in plan.errors)
    lines.extend(_diagnostic_line(w) for w in plan.warnings)
    return "\n".join(["tasks:", *lines]) + "\n"
