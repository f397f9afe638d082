"""Typed, immutable views of the service's JSON resources.

Each model is a frozen dataclass built by ``from_json(dict)``: unknown fields are kept in ``raw`` and
otherwise ignored, missing optional fields get defaults, timestamps become aware datetimes. A value of
the wrong shape raises ``ModelError`` (a ``ValueError``), which the client turns into ``BadResponse``
naming the endpoint.

These modules (models, model_fields, operation_models) import only the standard library: the local
service shares them with the client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from mcv_pipelines.api.model_fields import (
    ModelError,
    as_object,
    flag,
    links_of,
    optional_int,
    optional_str,
    parse_timestamp,
    required_str,
    str_tuple,
)
from mcv_pipelines.api.operation_models import EngineVersionInfo, Operation, OptionInfo

__all__ = [
    "EngineVersionInfo",
    "File",
    "Job",
    "ListPage",
    "ModelError",
    "Operation",
    "OptionInfo",
    "Task",
    "TaskResult",
    "UploadForm",
    "User",
    "Webhook",
    "parse_timestamp",
]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class File:
    """One file of a task result; export/url files have ``url``, imports have ``md5``."""

    filename: str
    url: str | None = None
    size: int | None = None
    md5: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> File:
        obj = as_object(data, "a result file")
        return cls(
            filename=required_str(obj, "filename", "a result file"),
            url=optional_str(obj, "url"),
            size=optional_int(obj, "size"),
            md5=optional_str(obj, "md5"),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class UploadForm:
    """Where and how to upload the file of an import/upload task. ``parameters`` keep their order."""

    url: str
    parameters: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> UploadForm:
        obj = as_object(data, "an upload form")
        params = obj.get("parameters") or {}
        if not isinstance(params, Mapping):
            raise ModelError("an upload form's parameters are not an object")
        pairs = tuple((str(k), v if isinstance(v, str) else _scalar_text(v)) for k, v in params.items())
        return cls(url=required_str(obj, "url", "an upload form"), parameters=pairs)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


@dataclass(frozen=True, slots=True)
class TaskResult:
    """A task's ``result``: files, the upload form, command output, metadata; the rest in ``raw``."""

    files: tuple[File, ...] = ()
    form: UploadForm | None = None
    command: str | None = None
    output: str | None = None
    metadata: Mapping[str, Any] | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> TaskResult:
        obj = as_object(data, "a task result")
        files = obj.get("files") or []
        if not isinstance(files, list):
            raise ModelError("a task result's files are not a list")
        form = obj.get("form")
        metadata = obj.get("metadata")
        return cls(
            files=tuple(File.from_json(item) for item in files),
            form=UploadForm.from_json(form) if form is not None else None,
            command=optional_str(obj, "command"),
            output=optional_str(obj, "output"),
            metadata=dict(metadata) if isinstance(metadata, Mapping) else None,
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class Task:
    """A task, standalone or inside a job (then ``name`` is set)."""

    id: str
    operation: str
    status: str
    job_id: str | None = None
    name: str | None = None
    message: str | None = None
    code: str | None = None
    credits: int | None = None
    percent: int | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    depends_on_task_ids: tuple[str, ...] = ()
    retry_of_task_id: str | None = None
    copy_of_task_id: str | None = None
    engine: str | None = None
    engine_version: str | None = None
    region: str | None = None
    payload: Mapping[str, Any] | None = None
    result: TaskResult | None = None
    links: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def files(self) -> tuple[File, ...]:
        return self.result.files if self.result else ()

    @property
    def ended(self) -> bool:
        return self.status in {"finished", "error", "cancelled"}

    @classmethod
    def from_json(cls, data: Any) -> Task:
        obj = as_object(data, "a task")
        result = obj.get("result")
        payload = obj.get("payload")
        return cls(
            id=required_str(obj, "id", "a task"),
            operation=optional_str(obj, "operation") or "",
            status=required_str(obj, "status", "a task"),
            job_id=optional_str(obj, "job_id"),
            name=optional_str(obj, "name"),
            message=optional_str(obj, "message"),
            code=optional_str(obj, "code"),
            credits=optional_int(obj, "credits"),
            percent=optional_int(obj, "percent"),
            created_at=parse_timestamp(obj.get("created_at")),
            started_at=parse_timestamp(obj.get("started_at")),
            ended_at=parse_timestamp(obj.get("ended_at")),
            depends_on_task_ids=str_tuple(obj, "depends_on_task_ids"),
            retry_of_task_id=optional_str(obj, "retry_of_task_id"),
            copy_of_task_id=optional_str(obj, "copy_of_task_id"),
            engine=optional_str(obj, "engine"),
            engine_version=optional_str(obj, "engine_version"),
            region=optional_str(obj, "region"),
            payload=dict(payload) if isinstance(payload, Mapping) else None,
            result=TaskResult.from_json(result) if isinstance(result, Mapping) else None,
            links=links_of(obj),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class Job:
    """A job and its tasks (in the order the service lists them)."""

    id: str
    status: str
    tag: str | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    tasks: tuple[Task, ...] = ()
    links: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ended(self) -> bool:
        return self.status in {"finished", "error", "cancelled"}

    def task(self, name: str) -> Task | None:
        """The task called ``name`` in this job, if any."""
        return next((t for t in self.tasks if t.name == name), None)

    @property
    def export_files(self) -> tuple[File, ...]:
        """Files with a URL from every finished export/url task."""
        return tuple(
            f
            for t in self.tasks
            if t.operation == "export/url" and t.status == "finished"
            for f in t.files
            if f.url
        )

    @classmethod
    def from_json(cls, data: Any) -> Job:
        obj = as_object(data, "a job")
        tasks = obj.get("tasks") or []
        if not isinstance(tasks, list):
            raise ModelError("a job's tasks are not a list")
        return cls(
            id=required_str(obj, "id", "a job"),
            status=required_str(obj, "status", "a job"),
            tag=optional_str(obj, "tag"),
            created_at=parse_timestamp(obj.get("created_at")),
            started_at=parse_timestamp(obj.get("started_at")),
            ended_at=parse_timestamp(obj.get("ended_at")),
            tasks=tuple(Task.from_json(t) for t in tasks),
            links=links_of(obj),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class Webhook:
    """A webhook subscription. ``signing_secret`` is hidden from ``repr``."""

    id: str
    url: str
    events: tuple[str, ...] = ()
    disabled: bool = False
    failing: bool = False
    signing_secret: str | None = field(default=None, repr=False)
    last_error_at: datetime | None = None
    last_response_code: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    links: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> Webhook:
        obj = as_object(data, "a webhook")
        return cls(
            id=required_str(obj, "id", "a webhook"),
            url=required_str(obj, "url", "a webhook"),
            events=str_tuple(obj, "events"),
            disabled=flag(obj, "disabled"),
            failing=flag(obj, "failing"),
            signing_secret=optional_str(obj, "signing_secret"),
            last_error_at=parse_timestamp(obj.get("last_error_at")),
            last_response_code=optional_str(obj, "last_response_code"),
            created_at=parse_timestamp(obj.get("created_at")),
            updated_at=parse_timestamp(obj.get("updated_at")),
            links=links_of(obj),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class User:
    id: str
    username: str | None = None
    email: str | None = None
    credits: int | None = None
    created_at: datetime | None = None
    links: Mapping[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> User:
        obj = as_object(data, "a user")
        return cls(
            id=required_str(obj, "id", "a user"),
            username=optional_str(obj, "username"),
            email=optional_str(obj, "email"),
            credits=optional_int(obj, "credits"),
            created_at=parse_timestamp(obj.get("created_at")),
            links=links_of(obj),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class ListPage(Generic[T]):
    """One page of a list answer: the parsed items and the ``links``/``meta`` of the envelope."""

    items: tuple[T, ...]
    next_url: str | None = None
    links: Mapping[str, str] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Any, parse: Callable[[Any], T]) -> ListPage[T]:
        obj = as_object(data, "a list answer")
        items = obj.get("data")
        if not isinstance(items, Sequence) or isinstance(items, str | bytes):
            raise ModelError("a list answer has no 'data' list")
        links = links_of(obj)
        meta = obj.get("meta")
        return cls(
            items=tuple(parse(item) for item in items),
            next_url=links.get("next") or None,
            links=links,
            meta=dict(meta) if isinstance(meta, Mapping) else {},
        )
