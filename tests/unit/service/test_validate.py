from __future__ import annotations

from typing import Any

import pytest

from mcv_pipelines.service.http.errors import InvalidData
from mcv_pipelines.service.http.validate import validate_job, validate_task


def errors_of(body: Any) -> dict[str, list[str]]:
    with pytest.raises(InvalidData) as caught:
        validate_job(body)
    assert caught.value.status == 422
    return {k: list(v) for k, v in (caught.value.errors or {}).items()}


def test_a_valid_job_passes() -> None:
    validate_job(
        {
            "tag": "x",
            "ignore_error": True,
            "tasks": {
                "in-1": {"operation": "import/upload"},
                "wm": {"operation": "watermark", "input": "in-1", "image": "logo"},
                "logo": {"operation": "import/url", "url": "https://example.org/l.png"},
                "out_1": {"operation": "export/url", "input": ["wm"]},
            },
        }
    )


def test_every_problem_is_reported_at_once() -> None:
    errors = errors_of(
        {
            "tasks": {
                "ok": {"operation": "convert", "input": "ghost"},
                "x y": {"operation": "import/raw"},
            }
        }
    )
    assert errors["tasks.ok.input"] == ["The task 'ghost' does not exist."]
    assert errors["tasks.ok.output_format"] == ["The output_format field is required."]
    assert "tasks.x y" in errors
    assert set(errors) >= {"tasks.x y.file", "tasks.x y.filename"}


def test_watermark_image_must_name_a_task() -> None:
    errors = errors_of(
        {
            "tasks": {
                "a": {"operation": "import/upload"},
                "w": {"operation": "watermark", "input": "a", "image": "nope"},
            }
        }
    )
    assert "tasks.w.image" in errors


def test_self_reference_is_a_cycle() -> None:
    errors = errors_of({"tasks": {"a": {"operation": "convert", "input": "a", "output_format": "md"}}})
    assert errors["tasks"] == ["The inputs form a cycle: a -> a."]


def test_body_must_be_an_object() -> None:
    assert errors_of([1, 2]) == {"body": ["The body must be a JSON object."]}


@pytest.mark.parametrize(
    ("task", "field"),
    [
        ({"operation": "import/azure/blob", "storage_account": "a", "container": "c"}, "storage_access_key"),
        (
            {"operation": "export/azure/blob", "input": "a", "storage_account": "a", "container": "c"},
            "storage_access_key",
        ),
        ({"operation": "export/url", "input": ["a", 3]}, "input"),
        ({"operation": "export/url", "input": "a", "inline": "yes"}, "inline"),
        ({"operation": "import/url", "url": "https://x", "headers": {"a": 1}}, "headers"),
        ({"operation": "convert", "input": "a", "output_format": 5}, "output_format"),
        ({"operation": "capture-website", "output_format": "pdf"}, "url"),
    ],
)
def test_task_parameter_errors(task: dict[str, Any], field: str) -> None:
    assert field in validate_task(task)


def test_job_webhook_url_must_be_http() -> None:
    errors = errors_of({"webhook_url": "mailto:x@y", "tasks": {"a": {"operation": "import/upload"}}})
    assert errors == {"webhook_url": ["The webhook_url must be an http or https URL."]}
