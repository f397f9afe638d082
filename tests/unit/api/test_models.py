"""Models accept what the service sends: unknown fields, missing optional ones, both id types."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from mcv_pipelines.api.models import Job, ListPage, ModelError, Task, User, Webhook, parse_timestamp


def test_task_with_unknown_and_missing_fields() -> None:
    task = Task.from_json(
        {
            "id": "t1",
            "status": "waiting",
            "operation": "import/upload",
            "user_id": 5,
            "priority": 10,
            "result": {"form": {"url": "http://h/upload", "parameters": {"b": 1, "a": "x"}}},
        }
    )
    assert task.raw["priority"] == 10
    assert task.created_at is None
    assert task.result is not None
    assert task.result.form is not None
    assert task.result.form.parameters == (("b", "1"), ("a", "x"))
    assert not task.ended


def test_job_with_export_files() -> None:
    job = Job.from_json(
        {
            "id": "j1",
            "status": "finished",
            "created_at": "2026-03-01T10:00:00+01:00",
            "tasks": [
                {
                    "id": "t1",
                    "name": "in",
                    "operation": "import/url",
                    "status": "finished",
                    "result": {"files": [{"filename": "a.jpg", "md5": "abc"}]},
                },
                {
                    "id": "t2",
                    "name": "out",
                    "operation": "export/url",
                    "status": "finished",
                    "result": {
                        "files": [{"filename": "a.webp", "size": "120", "url": "http://h/files/a.webp"}]
                    },
                },
            ],
        }
    )
    assert job.created_at == datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    assert [f.filename for f in job.export_files] == ["a.webp"]
    assert job.export_files[0].size == 120
    assert job.task("in") is not None
    assert job.task("in").files[0].md5 == "abc"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-01-02T03:04:05+00:00", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        ("2026-01-02T03:04:05Z", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        (
            "2026-01-02T03:04:05.123456+02:00",
            datetime(2026, 1, 2, 3, 4, 5, 123456, tzinfo=timezone(timedelta(hours=2))),
        ),
        ("2026-01-02 03:04:05", datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)),
        (None, None),
        ("", None),
        ("not a date", None),
    ],
)
def test_timestamps(value: str | None, expected: datetime | None) -> None:
    assert parse_timestamp(value) == expected


def test_integer_ids_and_hidden_secret() -> None:
    hook = Webhook.from_json(
        {
            "id": 7,
            "url": "https://h/hook",
            "events": ["job.finished"],
            "signing_secret": "whsec-zzz",
            "disabled": False,
        }
    )
    assert hook.id == "7"
    assert "whsec-zzz" not in repr(hook)
    user = User.from_json({"id": 1, "username": "ann", "credits": 99})
    assert (user.id, user.credits) == ("1", 99)


@pytest.mark.parametrize(
    "data", [None, [], {"status": "finished"}, {"id": "j1"}, {"id": "j", "status": "x", "tasks": "nope"}]
)
def test_wrong_shapes_raise_model_error(data: object) -> None:
    with pytest.raises(ModelError):
        Job.from_json(data)


def test_list_page() -> None:
    page = ListPage.from_json(
        {"data": [{"id": "t", "status": "finished"}], "links": {"next": None}, "meta": {"per_page": 100}},
        Task.from_json,
    )
    assert page.next_url is None
    assert page.items[0].id == "t"
    assert page.meta["per_page"] == 100


def test_models_module_imports_only_the_standard_library() -> None:
    # The service shares the models with the client: they (and the two modules they are built from)
    # import nothing but the standard library and each other.
    import ast
    from pathlib import Path

    import mcv_pipelines.api.models as models

    folder = Path(models.__file__).parent
    shared = {"mcv_pipelines.api.model_fields", "mcv_pipelines.api.operation_models"}
    for name in ("models.py", "model_fields.py", "operation_models.py"):
        tree = ast.parse((folder / name).read_text(encoding="utf-8"))
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        allowed = {"__future__", "collections.abc", "dataclasses", "datetime", "typing", *shared}
        assert imported <= allowed, name
