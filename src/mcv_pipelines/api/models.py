"""Typed, immutable views of the service's JSON resources.

Each model is a frozen dataclass built by ``from_json(dict)``: unknown fields are kept in ``raw`` and
otherwise ignored, missing optional fields get defaults, timestamps become aware datetimes. A value of
the wrong shape raises ``ModelError`` (a ``ValueError``), which the client turns into ``BadResponse``
naming the endpoint.

This module imports only the standard library: the local service shares it with the client.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

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
JsonObject = Mapping[str, Any]


class ModelError(ValueError):
    """A JSON value does not have the shape a model needs."""


def _obj(value: Any, what: str) -> JsonObject:
    if not isinstance(value, Mapping):
        raise ModelError(f"{what} is not an object")
    return value


def _req_str(data: JsonObject, key: str, what: str) -> str:
    value = data.get(key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # ids are integers on some resources; keep one type
    if not isinstance(value, str):
        raise ModelError(f"{what} has no string field {key!r}")
    return value


def _opt_str(data: JsonObject, key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    return str(value) if isinstance(value, str | int | float) else None


def _opt_int(data: JsonObject, key: str) -> int | None:
    value = data.get(key)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value)
    return None


def _bool(data: JsonObject, key: str) -> bool:
    value = data.get(key)
    if isinstance(value, str):
        return value.lower() in {"1", "true", "yes"}
    return bool(value)


def _str_tuple(data: JsonObject, key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(str(item) for item in value if isinstance(item, str | int))


def _links(data: JsonObject) -> dict[str, str]:
    value = data.get("links")
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def parse_timestamp(value: Any) -> datetime | None:
    """ISO 8601 (with offset or ``Z``) or a Unix time -> aware datetime; anything else -> None."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, tz=UTC)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


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
        obj = _obj(data, "a result file")
        return cls(
            filename=_req_str(obj, "filename", "a result file"),
            url=_opt_str(obj, "url"),
            size=_opt_int(obj, "size"),
            md5=_opt_str(obj, "md5"),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class UploadForm:
    """Where and how to upload the file of an import/upload task. ``parameters`` keep their order."""

    url: str
    parameters: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_json(cls, data: Any) -> UploadForm:
        obj = _obj(data, "an upload form")
        params = obj.get("parameters") or {}
        if not isinstance(params, Mapping):
            raise ModelError("an upload form's parameters are not an object")
        pairs = tuple((str(k), v if isinstance(v, str) else _scalar_text(v)) for k, v in params.items())
        return cls(url=_req_str(obj, "url", "an upload form"), parameters=pairs)


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
        obj = _obj(data, "a task result")
        files = obj.get("files") or []
        if not isinstance(files, list):
            raise ModelError("a task result's files are not a list")
        form = obj.get("form")
        metadata = obj.get("metadata")
        return cls(
            files=tuple(File.from_json(item) for item in files),
            form=UploadForm.from_json(form) if form is not None else None,
            command=_opt_str(obj, "command"),
            output=_opt_str(obj, "output"),
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
        obj = _obj(data, "a task")
        result = obj.get("result")
        payload = obj.get("payload")
        return cls(
            id=_req_str(obj, "id", "a task"),
            operation=_opt_str(obj, "operation") or "",
            status=_req_str(obj, "status", "a task"),
            job_id=_opt_str(obj, "job_id"),
            name=_opt_str(obj, "name"),
            message=_opt_str(obj, "message"),
            code=_opt_str(obj, "code"),
            credits=_opt_int(obj, "credits"),
            percent=_opt_int(obj, "percent"),
            created_at=parse_timestamp(obj.get("created_at")),
            started_at=parse_timestamp(obj.get("started_at")),
            ended_at=parse_timestamp(obj.get("ended_at")),
            depends_on_task_ids=_str_tuple(obj, "depends_on_task_ids"),
            retry_of_task_id=_opt_str(obj, "retry_of_task_id"),
            copy_of_task_id=_opt_str(obj, "copy_of_task_id"),
            engine=_opt_str(obj, "engine"),
            engine_version=_opt_str(obj, "engine_version"),
            region=_opt_str(obj, "region"),
            payload=dict(payload) if isinstance(payload, Mapping) else None,
            result=TaskResult.from_json(result) if isinstance(result, Mapping) else None,
            links=_links(obj),
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
        obj = _obj(data, "a job")
        tasks = obj.get("tasks") or []
        if not isinstance(tasks, list):
            raise ModelError("a job's tasks are not a list")
        return cls(
            id=_req_str(obj, "id", "a job"),
            status=_req_str(obj, "status", "a job"),
            tag=_opt_str(obj, "tag"),
            created_at=parse_timestamp(obj.get("created_at")),
            started_at=parse_timestamp(obj.get("started_at")),
            ended_at=parse_timestamp(obj.get("ended_at")),
            tasks=tuple(Task.from_json(t) for t in tasks),
            links=_links(obj),
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
        obj = _obj(data, "a webhook")
        return cls(
            id=_req_str(obj, "id", "a webhook"),
            url=_req_str(obj, "url", "a webhook"),
            events=_str_tuple(obj, "events"),
            disabled=_bool(obj, "disabled"),
            failing=_bool(obj, "failing"),
            signing_secret=_opt_str(obj, "signing_secret"),
            last_error_at=parse_timestamp(obj.get("last_error_at")),
            last_response_code=_opt_str(obj, "last_response_code"),
            created_at=parse_timestamp(obj.get("created_at")),
            updated_at=parse_timestamp(obj.get("updated_at")),
            links=_links(obj),
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
        obj = _obj(data, "a user")
        return cls(
            id=_req_str(obj, "id", "a user"),
            username=_opt_str(obj, "username"),
            email=_opt_str(obj, "email"),
            credits=_opt_int(obj, "credits"),
            created_at=parse_timestamp(obj.get("created_at")),
            links=_links(obj),
            raw=dict(obj),
        )


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a conversion type as the listing describes it."""

    name: str
    type: str
    default: Any = None
    possible_values: tuple[Any, ...] | None = None
    description: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> OptionInfo:
        obj = _obj(data, "an option")
        values = obj.get("possible_values")
        return cls(
            name=_req_str(obj, "name", "an option"),
            type=_opt_str(obj, "type") or "string",
            default=obj.get("default"),
            possible_values=tuple(values) if isinstance(values, list) else None,
            description=_opt_str(obj, "description"),
        )


@dataclass(frozen=True, slots=True)
class EngineVersionInfo:
    version: str
    default: bool = False
    latest: bool = False
    deprecated: bool = False
    experimental: bool = False

    @classmethod
    def from_json(cls, data: Any) -> EngineVersionInfo:
        obj = _obj(data, "an engine version")
        return cls(
            version=_req_str(obj, "version", "an engine version"),
            default=_bool(obj, "default"),
            latest=_bool(obj, "latest"),
            deprecated=_bool(obj, "deprecated"),
            experimental=_bool(obj, "experimental"),
        )


@dataclass(frozen=True, slots=True)
class Operation:
    """One conversion type of the operations/formats listing (operation, formats, engine)."""

    operation: str
    input_format: str
    output_format: str
    engine: str
    credits: int | None = None
    options: tuple[OptionInfo, ...] = ()
    engine_versions: tuple[EngineVersionInfo, ...] = ()
    deprecated: bool = False
    experimental: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> Operation:
        obj = _obj(data, "an operation")
        options = obj.get("options") or []
        versions = obj.get("engine_versions") or []
        meta = obj.get("meta")
        return cls(
            operation=_req_str(obj, "operation", "an operation"),
            input_format=_opt_str(obj, "input_format") or "",
            output_format=_opt_str(obj, "output_format") or "",
            engine=_opt_str(obj, "engine") or "",
            credits=_opt_int(obj, "credits"),
            options=tuple(OptionInfo.from_json(o) for o in options) if isinstance(options, list) else (),
            engine_versions=(
                tuple(EngineVersionInfo.from_json(v) for v in versions) if isinstance(versions, list) else ()
            ),
            deprecated=_bool(obj, "deprecated"),
            experimental=_bool(obj, "experimental"),
            meta=dict(meta) if isinstance(meta, Mapping) else {},
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
        obj = _obj(data, "a list answer")
        items = obj.get("data")
        if not isinstance(items, Sequence) or isinstance(items, str | bytes):
            raise ModelError("a list answer has no 'data' list")
        links = _links(obj)
        meta = obj.get("meta")
        return cls(
            items=tuple(parse(item) for item in items),
            next_url=links.get("next") or None,
            links=links,
            meta=dict(meta) if isinstance(meta, Mapping) else {},
        )
