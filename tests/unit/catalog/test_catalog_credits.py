"""Credits per run and per batch, and the plan built from them."""

from __future__ import annotations

from mcv_pipelines.catalog.credits import estimate_credits
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey
from mcv_pipelines.catalog.plan import PlannedTask, build_plan, plan_to_json, plan_to_text
from mcv_pipelines.diagnostics import Diagnostic, Location, Severity

WEBP = ConversionKey("convert", "jpg", "webp", "imagemagick")
PDF = ConversionKey("convert", "docx", "pdf", "libreoffice")
NO_CREDITS = ConversionKey("convert", "png", "jpg", "imagemagick")


def test_credits_sum_per_run_and_for_a_batch(catalog: Catalog) -> None:
    estimate = estimate_credits(catalog, [WEBP, WEBP, PDF])
    assert estimate.per_run == 1 + 1 + 4
    assert estimate.total(250) == 1500
    assert estimate.complete


def test_types_without_credits_are_unknown_not_zero(catalog: Catalog) -> None:
    missing = ConversionKey("convert", "jpg", "bmp", "x")
    estimate = estimate_credits(catalog, [WEBP, NO_CREDITS, missing])
    assert estimate.per_run == 1
    assert estimate.unknown == (NO_CREDITS, missing)
    assert not estimate.complete


def test_plan_text_and_json(catalog: Catalog) -> None:
    warning = Diagnostic(
        "op-deprecated", Severity.WARNING, "task 'old': deprecated", Location("p.yaml", 9, 3)
    )
    plan = build_plan(
        catalog,
        [
            PlannedTask("original", "import/upload"),
            PlannedTask("web-320", "convert", WEBP),
            PlannedTask("web-640", "convert", WEBP),
            PlannedTask("sheet", "convert", PDF),
        ],
        rows=100,
        warnings=[warning],
    )
    assert (plan.credits_per_run, plan.credits_total) == (6, 600)
    text = plan_to_text(plan)
    assert "web-320" in text
    assert "convert jpg -> webp (imagemagick)  credits 1" in text
    assert "credits per run: 6\ncredits for 100 rows: 600\n" in text
    assert "p.yaml:9:3: warning[op-deprecated]: task 'old': deprecated" in text
    data = plan_to_json(plan)
    assert data["credits_per_run"] == 6
    assert data["credits_total"] == 600
    assert data["tasks"][0] == {
        "name": "original",
        "operation": "import/upload",
        "conversion_type": None,
        "default_engine": False,
        "credits": None,
    }
    assert data["tasks"][3]["credits"] == 4
    assert data["warnings"][0]["rule"] == "op-deprecated"
