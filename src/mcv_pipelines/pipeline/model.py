"""The typed, immutable results of loading and rendering a pipeline."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from mcv_pipelines.diagnostics import Location
from mcv_pipelines.pipeline.document import Document, PathKey

__all__ = ["RUNNER_KEYS", "Params", "RenderedPipeline", "RenderedTask"]

# Keys the runner acts on itself; they never reach the service.
RUNNER_KEYS = ("upload_from", "download_to", "for_each", "when")


@dataclass(frozen=True, slots=True)
class Params:
    """Parameter values after coercion and validation, with defaults and examples filled in."""

    values: Mapping[str, Any]
    source: str = "command line"

    def __getitem__(self, name: str) -> Any:
        return self.values[name]


@dataclass(frozen=True, eq=False)
class RenderedTask:
    """One task as the service will receive it, plus what only the runner uses.

    ``body`` is the task object of the POST /v2/jobs body (runner keys removed, group names in
    ``input`` expanded to task names). ``group`` is the task's name in the file (the for_each
    source). ``locate(path)`` maps a path inside ``body`` back to the YAML node it came from.
    """

    name: str
    operation: str
    body: Mapping[str, Any]
    upload_from: str | None
    download_to: str | None
    group: str
    location: Location
    inputs: tuple[tuple[str, Location], ...] = ()
    document: Document | None = field(default=None, repr=False)
    index: int | None = None

    def locate(self, path: PathKey) -> Location:
        """The source location of ``path`` within the body (nearest ancestor when not exact)."""
        if self.document is None:
            return self.location
        if path and path[0] == "input" and len(path) > 1 and isinstance(path[1], int):
            if path[1] < len(self.inputs):
                return self.inputs[path[1]][1]
            path = path[:1]
        return self.document.locate(("tasks", self.group, *path))

    def locate_key(self, path: PathKey) -> Location:
        """The location of the key at ``path`` within the body."""
        if self.document is None:
            return self.location
        return self.document.locate_key(("tasks", self.group, *path))

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.inputs)


@dataclass(frozen=True, eq=False)
class RenderedPipeline:
    """A pipeline rendered for one set of params (and batch row): tasks in file order."""

    path: str
    name: str | None
    tasks: Mapping[str, RenderedTask]
    job: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    params: Params | None = None
    document: Document | None = field(default=None, repr=False)

    @property
    def tag(self) -> str | None:
        tag = self.job.get("tag")
        return tag if isinstance(tag, str) else None

    def job_body(self) -> dict[str, Any]:
        """The exact POST /v2/jobs body: ``tasks`` then the job keys (tag, webhook_url, ...)."""
        body: dict[str, Any] = {"tasks": {name: dict(task.body) for name, task in self.tasks.items()}}
        body.update(self.job)
        return body
