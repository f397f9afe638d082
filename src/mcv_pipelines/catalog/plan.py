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


@dataclass(frozen=True, slots=True)
class Plan:
    tasks: tuple[PlannedTask, ...]
    credits: CreditEstimate
    rows: int = 1
    warnings: tuple[Diagnostic, ...] = ()

    @property
    def credits_per_run(self) -> int:
        return self.credits.per_run

    @property
    def credits_total(self) -> int:
        return self.credits.total(self.rows)


def build_plan(
    catalog: Catalog, tasks: Iterable[PlannedTask], *, rows: int = 1, warnings: Iterable[Diagnostic] = ()
) -> Plan:
    tasks = tuple(tasks)
    estimate = estimate_credits(catalog, (t.key for t in tasks if t.key is not None))
    return Plan(tasks, estimate, rows, tuple(warnings))


def plan_to_json(plan: Plan) -> dict[str, Any]:
    by_key = dict(plan.credits.items)
    return {
        "tasks": [
            {
                "name": t.name,
                "operation": t.operation,
                "conversion_type": list(t.key) if t.key else None,
                "credits": by_key.get(t.key) if t.key else None,
            }
            for t in plan.tasks
        ],
        "rows": plan.rows,
        "credits_per_run": plan.credits_per_run,
        "credits_total": plan.credits_total,
        "credits_complete": plan.credits.complete,
        "warnings": [
            {"rule": w.rule, "severity": str(w.severity), "message": w.message,
             "location": str(w.location) if w.location else None}
            for w in plan.warnings
        ],
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
            lines.append(f"  {t.name:<24} {t.key}  credits {shown}")
    lines.append(f"credits per run: {plan.credits_per_run}"
                 + ("" if plan.credits.complete else " (some conversion types have no credits figure)"))
    if plan.rows != 1:
        lines.append(f"credits for {plan.rows} rows: {plan.credits_total}")
    lines.extend(f"{w.location or '-'}: {w.severity}[{w.rule}]: {w.message}" for w in plan.warnings)
    return "\n".join(["tasks:", *lines]) + "\n"
