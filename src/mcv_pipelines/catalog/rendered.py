"""What the catalog checks read of a rendered pipeline, as protocols.

The catalog sits below the pipeline package (which imports it to check pipelines), so it names the
shape it reads instead of importing ``pipeline.model``; ``RenderedPipeline`` and ``RenderedTask``
match these protocols, and mypy checks that they still do wherever a pipeline is handed over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from mcv_pipelines.diagnostics import Location

__all__ = ["PathKey", "RenderedPipelineLike", "RenderedTaskLike"]

PathKey = tuple[str | int, ...]


class _Cached(Protocol):
    @property
    def cache(self) -> dict[str, Any]: ...


class RenderedTaskLike(Protocol):
    @property
    def operation(self) -> str: ...
    @property
    def body(self) -> Mapping[str, Any]: ...
    @property
    def upload_from(self) -> str | None: ...
    @property
    def group(self) -> str: ...
    @property
    def location(self) -> Location: ...
    @property
    def input_names(self) -> tuple[str, ...]: ...
    def locate(self, path: PathKey) -> Location: ...
    def locate_key(self, path: PathKey) -> Location: ...


class RenderedPipelineLike(Protocol):
    @property
    def tasks(self) -> Mapping[str, RenderedTaskLike]: ...
    @property
    def document(self) -> _Cached | None: ...
