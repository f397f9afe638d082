"""The engine that runs routes: each hop the engine that converts that pair alone, in the task's own
directory, one deadline and one progress for the whole task.

Each hop is the same call a task of its own would make, so it is sealed as that task would be (the
hop's engine seals its program in the task's scope) and a warm LibreOffice or Chromium stays warm. A
hop's files go to the next hop one by one (a document's n pages are n pictures); intermediates live
in the task's work directory, which the service removes with the task, and each hop's are removed as
soon as the next hop has read them. A hop's files of another format than the next hop takes (a mail's
attachments) go to the task's output as they are, after its own files, under a free name. A hop that
fails fails the task, its message naming the hop.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines import __version__
from mcv_pipelines.service.engines.base import (
    ConversionType,
    Engine,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    InputFile,
)
from mcv_pipelines.service.engines.files import OutputNames, output_name, split_extension
from mcv_pipelines.service.engines.naming import single_input
from mcv_pipelines.service.engines.routes.options import hop_options, route_options
from mcv_pipelines.service.engines.routes.planner import Hop, Route, plan_routes

__all__ = ["RouteEngine"]


class RouteEngine:
    """Lists and runs the routes of the engines it is given (``route_through``); registered last, so a
    pair any engine converts alone never reaches it."""

    name = "route"

    def __init__(self) -> None:
        self._engines: tuple[Engine, ...] = ()
        self._planned: dict[tuple[str, str], Route] | None = None
        self._lock = threading.Lock()

    def route_through(self, engines: Sequence[Engine]) -> None:
        """Plan over ``engines`` (present, composed, in registry order) when the listing is first read."""
        with self._lock:
            self._engines = tuple(engine for engine in engines if engine is not self)
            self._planned = None

    def version(self) -> str:
        return __version__

    def routes(self) -> Mapping[tuple[str, str], Route]:
        with self._lock:
            if self._planned is None:
                self._planned = plan_routes(self._engines)
            return self._planned

    def version_of(self, kind: ConversionType) -> str | None:
        """The task's engine_version: each hop's engine version, in order, joined by ``+``."""
        route = self.routes().get((kind.input_format, kind.output_format))
        return None if route is None else _versions(route)

    def conversion_types(self) -> Iterable[ConversionType]:
        for (source, target), route in self.routes().items():
            yield ConversionType(
                "convert",
                source,
                target,
                route.engine,
                credits=sum(hop.conversion.credits for hop in route.hops),
                options=route_options(route),
                engine_versions=(EngineVersion(_versions(route)),),
                meta={"route": " -> ".join(route.formats), "route_shape": route.shape},
            )

    def run(self, request: EngineRequest) -> EngineResult:
        route = self.routes().get((request.input_format, request.output_format))
        if route is None:
            raise EngineError(
                "UNSUPPORTED_CONVERSION", f"no route from {request.input_format} to {request.output_format}"
            )
        single_input(request)
        return _Run(route, request).run()


def _move(path: Path, names: OutputNames) -> Path:
    """``path`` moved under the next free name ``names`` gives (``note-1.eml`` if ``note.eml`` is taken)."""
    stem, suffix = split_extension(path.name)
    target = names.next(stem, suffix.lstrip("."))
    target.parent.mkdir(parents=True, exist_ok=True)
    path.replace(target)
    return target


def _versions(route: Route) -> str:
    return "+".join(hop.engine.version() or "unknown" for hop in route.hops)


class _Run:
    """One routed task: the hops in turn over the files each one hands on."""

    def __init__(self, route: Route, request: EngineRequest) -> None:
        self.route = route
        self.request = request
        self.shares = hop_options(route, request.options)
        self.deadline = None if request.timeout is None else time.monotonic() + request.timeout
        self.task_name = request.inputs[0].task_name
        self.stem = request.inputs[0].path.stem

    def run(self) -> EngineResult:
        files = [self.request.inputs[0].path]
        result = EngineResult()
        held = OutputNames(self.request.work_dir / "beside", None, 1)  # files no later hop takes
        beside: list[Path] = []
        count = len(self.route.hops)
        for number, hop in enumerate(self.route.hops, start=1):
            last = number == count
            out_dir = self.request.output_dir if last else self.request.work_dir / f"hop-{number}"
            result = self._hop(number, hop, files, out_dir, last)
            if not result.files:
                raise EngineError("CONVERSION_FAILED", f"{self._where(number, hop)} made no file")
            if number > 1:  # the previous hop's files are read: gone before the next hop writes
                shutil.rmtree(self.request.work_dir / f"hop-{number - 1}", ignore_errors=True)
            files = result.files
            if not last:
                wanted = "." + self.route.hops[number].conversion.input_format
                files = [path for path in result.files if path.name.lower().endswith(wanted)]
                beside += [_move(path, held) for path in result.files if path not in files]
                if not files:
                    raise EngineError(
                        "CONVERSION_FAILED",
                        f"{self._where(number, hop)} made no {hop.conversion.output_format}",
                    )
        # once the task's own output is written, so that neither takes the other's name
        names = OutputNames(self.request.output_dir, None, 1)
        return EngineResult(
            files=[*result.files, *(_move(path, names) for path in beside)], extra=result.extra
        )

    def _where(self, number: int, hop: Hop) -> str:
        return f"hop {number} of {len(self.route.hops)} ({hop.label})"

    def _left(self, number: int, hop: Hop) -> float | None:
        if self.request.cancelled.is_set():
            raise EngineError("CANCELLED", "The task was stopped.")
        if self.deadline is None:
            return None
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise EngineError("TIMEOUT", f"the task's time ran out before {self._where(number, hop)}")
        return left

    def _hop(self, number: int, hop: Hop, files: list[Path], out_dir: Path, last: bool) -> EngineResult:
        made: list[Path] = []
        extra: dict[str, Any] = {}
        out_dir.mkdir(parents=True, exist_ok=True)
        for index, path in enumerate(files, start=1):
            options = dict(self.shares[number - 1])
            name = options.get("filename")
            if last and len(files) > 1 and isinstance(name, str) and name.strip():
                options["filename"] = output_name(name, index, True, self.stem, hop.conversion.output_format)
            request = EngineRequest(
                operation="convert",
                input_format=hop.conversion.input_format,
                output_format=hop.conversion.output_format,
                options=options,
                inputs=[InputFile(self.task_name, path)],
                output_dir=out_dir,
                work_dir=self.request.work_dir / f"hop-{number}-work-{index}",
                timeout=self._left(number, hop),
                cancelled=self.request.cancelled,
                progress=self._progress(number, index, len(files)),
                url_guard=self.request.url_guard,
            )
            try:
                done = hop.engine.run(request)
            except EngineError as exc:
                raise EngineError(exc.code, f"{self._where(number, hop)}: {exc.message}") from exc
            finally:
                shutil.rmtree(request.work_dir, ignore_errors=True)
            made.extend(done.files)
            extra.update(done.extra)
        return EngineResult(files=made, extra=extra)

    def _progress(self, number: int, index: int, count: int) -> Callable[[float], None]:
        hops = len(self.route.hops)
        report = self.request.progress

        def progress(percent: float) -> None:
            report(((number - 1) + ((index - 1) + percent / 100) / count) / hops * 100)

        return progress
