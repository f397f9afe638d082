"""Running one task: imports, exports and processing through an engine.

``execute`` is called from a worker thread with the task's input files on disk. It returns the
task's result, credits, engine and version, or raises TaskFailed with the code and message the user sees.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from mcv_pipelines.service.engines import find_conversion
from mcv_pipelines.service.engines.base import ConversionType, Engine, EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.lookup import normalize_listing_format
from mcv_pipelines.service.engines.seal import TaskScope, task_scope
from mcv_pipelines.service.engines.signatures import mislabelled_input
from mcv_pipelines.service.files.paths import file_format, safe_filename
from mcv_pipelines.service.files.signing import file_url
from mcv_pipelines.service.state.config import ServiceConfig
from mcv_pipelines.service.state.store import Doc, now_iso
from mcv_pipelines.service.state.tasks import TaskFailed
from mcv_pipelines.service.work.caller_storage import kind_of
from mcv_pipelines.service.work.caller_storage.tasks import export_from_paths, import_into_dir
from mcv_pipelines.service.work.imports import file_entry, run_import

__all__ = ["Outcome", "check_sandbox", "execute", "formats_of"]

_NOT_OPTIONS = frozenset({"operation", "input", "ignore_error"})
# Operations whose engine is picked by the input file's format, checked against its leading bytes.
_SIGNED_INPUT = frozenset({"convert", "thumbnail"})
# Operations that make one output of each input file: several inputs (a prefix import) run one by one,
# each with the engine its own format needs.
_PER_FILE = frozenset({"convert", "thumbnail", "optimize"})
_COUNTER = re.compile(r"%(0?\d*)d")


@dataclass
class Outcome:
    result: dict[str, Any]
    credits: int = 0
    engine: str | None = None
    engine_version: str | None = None
    files: list[Path] = field(default_factory=list)


def record_end(task: Doc, outcome: Outcome | TaskFailed) -> None:
    """Write a task's end into its document: finished with an outcome, or error with a failure (the
    one rule both schedulers follow)."""
    task.update(ended_at=now_iso(), started_at=task.get("started_at") or now_iso())
    if isinstance(outcome, TaskFailed):
        task.update(status="error", code=outcome.code, message=outcome.message)
        return
    task.update(
        status="finished",
        code=None,
        message=None,
        percent=100,
        result=outcome.result,
        credits=outcome.credits,
        engine=outcome.engine,
        engine_version=outcome.engine_version,
    )


def execute(
    config: ServiceConfig,
    engines: Sequence[Engine],
    task: Doc,
    inputs: list[InputFile],
    cancelled: threading.Event,
    progress: Callable[[float], None] | None = None,
) -> Outcome:
    """Run one task; ``progress`` hears its engine's percent done (see service/work/progress.py)."""
    operation = str(task["operation"])
    payload: dict[str, Any] = task["payload"]
    out_dir = config.task_dir(task["id"])
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.mkdir(parents=True)
    kind = kind_of(operation)
    if kind is not None and operation.startswith("import/"):
        result = import_into_dir(kind, payload, config, out_dir, cancelled)
        paths = [out_dir / entry["filename"] for entry in result["files"]]
        check_sandbox(config, paths)
        return Outcome(result, files=paths)
    if kind is not None:
        return Outcome(export_from_paths(kind, payload, config, inputs, cancelled))
    if operation.startswith("import/"):
        paths = run_import(operation, payload, out_dir, config.url_guard)
        check_sandbox(config, paths)
        return Outcome({"files": [file_entry(p) for p in paths]}, files=paths)
    if operation == "export/url":
        return _export_url(config, task, inputs, out_dir)
    if operation == "export/upload":
        return _export_upload(payload, inputs)
    return _process(config, engines, task, inputs, out_dir, cancelled, progress)


def check_sandbox(config: ServiceConfig, paths: Sequence[Path]) -> None:
    """In sandbox mode only whitelisted files (by MD5) are accepted."""
    if not config.sandbox:
        return
    for path in paths:
        if file_entry(path)["md5"] not in config.sandbox_whitelist:
            raise TaskFailed(
                "SANDBOX_FILE_NOT_ALLOWED",
                f"The file {path.name} is not whitelisted for the sandbox (by its MD5).",
            )


def formats_of(task: Doc, inputs: Sequence[InputFile]) -> tuple[str, str]:
    """(input_format, output_format) of a processing task, as the listing names them."""
    payload = task["payload"]
    operation = task["operation"]
    if operation == "capture-website":
        input_format = "website"
    elif operation in ("archive", "command"):
        input_format = "any"
    else:
        input_format = str(
            payload.get("input_format") or (file_format(inputs[0].path.name) if inputs else "")
        )
    if operation in ("optimize", "watermark", "metadata/write"):
        output_format = input_format
    elif operation == "metadata":
        output_format = "json"
    elif operation == "command":
        output_format = "any"
    else:
        output_format = str(payload.get("output_format") or "")
    # Engines get the listing's spelling ("JPEG" -> "jpg"), the same one the lookup matched.
    return normalize_listing_format(input_format), normalize_listing_format(output_format)


def _process(
    config: ServiceConfig,
    engines: Sequence[Engine],
    task: Doc,
    inputs: list[InputFile],
    out_dir: Path,
    cancelled: threading.Event,
    progress: Callable[[float], None] | None = None,
) -> Outcome:
    payload = task["payload"]
    operation = task["operation"]
    if operation in _PER_FILE and len(inputs) > 1:
        return _each_file(config, engines, task, inputs, out_dir, cancelled, progress)
    if not inputs and operation != "capture-website":
        raise TaskFailed("INPUT_TASK_FAILED", "The task has no input file.")
    input_format, output_format = formats_of(task, inputs)
    if operation in _SIGNED_INPUT and inputs:
        said_by = "input_format" if payload.get("input_format") else "its extension"
        _check_signature(inputs[0], input_format, said_by)
    chosen = find_conversion(engines, operation, input_format, output_format, payload.get("engine"))
    if chosen is None:
        named = f" with engine {payload['engine']}" if payload.get("engine") else ""
        raise TaskFailed(
            "UNSUPPORTED_CONVERSION",
            f"No local engine can run {operation} from {input_format or 'unknown'} to "
            f"{output_format or 'unknown'}{named}. See GET /v2/operations.",
        )
    engine, kind = chosen
    wanted_version = payload.get("engine_version")
    known_versions = [v.version for v in kind.engine_versions]
    if wanted_version and known_versions and wanted_version not in known_versions:
        raise TaskFailed(
            "UNSUPPORTED_ENGINE_VERSION",
            f"The engine {kind.engine} has no version {wanted_version}; "
            f"available: {', '.join(known_versions)}.",
        )
    # Not made here: engines that need scratch space make it (most need none), and making and removing
    # an empty directory per task was a fifth of the service's CPU per job on a busy disk (issue 15).
    work_dir = config.work_dir(task["id"])
    request = EngineRequest(
        operation=operation,
        input_format=input_format,
        output_format=output_format,
        options={k: v for k, v in payload.items() if k not in _NOT_OPTIONS},
        inputs=inputs,
        output_dir=out_dir,
        work_dir=work_dir,
        timeout=float(payload.get("timeout") or config.default_timeout),
        cancelled=cancelled,
        url_guard=config.url_guard,
    )
    if progress is not None:
        request.progress = progress
    # Programs the engine runs see the system read-only, their inputs, and write only here (seal.py).
    scope = TaskScope(
        writable=(work_dir, out_dir),
        readable=tuple(item.path for item in inputs),
        hidden=(config.data_dir,),
    )
    try:
        with task_scope(scope):
            result = engine.run(request)
    except EngineError as exc:
        raise TaskFailed(exc.code, exc.message) from exc
    finally:
        shutil.rmtree(work_dir, ignore_errors=True)
    if cancelled.is_set():  # timed out or cancelled as it finished: its directory may be gone already
        raise TaskFailed("CANCELLED", "The task was stopped.")
    # Engines apply ``filename`` themselves (the protocol says so), printf counters included.
    files = _gathered(result.files, out_dir)
    entries = [{"filename": p.name, "size": p.stat().st_size} for p in files]
    return Outcome(
        {**result.extra, "files": entries},
        credits=0 if config.sandbox else kind.credits,
        engine=kind.engine,
        engine_version=_version(engine, kind),
        files=files,
    )


def _version(engine: Engine, kind: ConversionType) -> str | None:
    """The version the task reports: a route's is each hop's engine version, joined (routes/)."""
    version_of = getattr(engine, "version_of", None)
    return version_of(kind) if callable(version_of) else engine.version()


def _each_file(
    config: ServiceConfig,
    engines: Sequence[Engine],
    task: Doc,
    inputs: list[InputFile],
    out_dir: Path,
    cancelled: threading.Event,
    progress: Callable[[float], None] | None,
) -> Outcome:
    """One run per input file into the same directory; the outcomes added up. A ``filename`` with
    ``%d`` is numbered by the file's place; without, the engines' unique names keep files apart."""
    outcomes: list[Outcome] = []
    for number, item in enumerate(inputs, start=1):
        payload = dict(task["payload"])
        if isinstance(payload.get("filename"), str):
            payload["filename"] = _COUNTER.sub(partial(_counted, number), payload["filename"])
        heard = None if progress is None else _share(progress, number - 1, len(inputs))
        outcomes.append(
            _process(config, engines, {**task, "payload": payload}, [item], out_dir, cancelled, heard)
        )
    first = outcomes[0]
    files = [path for outcome in outcomes for path in outcome.files]
    return Outcome(
        {**first.result, "files": [entry for outcome in outcomes for entry in outcome.result["files"]]},
        credits=sum(outcome.credits for outcome in outcomes),
        engine=first.engine,
        engine_version=first.engine_version,
        files=files,
    )


def _counted(number: int, match: re.Match[str]) -> str:
    return f"{number:{match.group(1)}d}" if match.group(1) else str(number)


def _share(progress: Callable[[float], None], done: int, count: int) -> Callable[[float], None]:
    return lambda percent: progress((done + percent / 100) / count * 100)


def _check_signature(item: InputFile, input_format: str, said_by: str) -> None:
    """A file whose leading bytes cannot start an ``input_format`` file fails before any engine runs
    (a PNG named .pdf), with both named, instead of failing inside a program (engines/signatures.py)."""
    message = mislabelled_input(item.path, input_format, said_by)
    if message is not None:
        raise TaskFailed("INVALID_INPUT_FILE", message)


def _gathered(files: list[Path], out_dir: Path) -> list[Path]:
    """Engine outputs moved to the top of the task's directory, where download links look for them."""
    gathered = []
    for path in files:
        target = out_dir / safe_filename(path.name)
        if path != target and path.resolve() != target.resolve():  # most engines write in place
            shutil.move(path, target)
        gathered.append(target)
    return gathered


def _export_url(config: ServiceConfig, task: Doc, inputs: list[InputFile], out_dir: Path) -> Outcome:
    payload = task["payload"]
    inline = bool(payload.get("inline"))
    names: list[Path] = []
    if payload.get("archive_multiple_files") and len(inputs) > 1:
        name = safe_filename(str(payload.get("filename") or "archive.zip"))
        target = out_dir / (name if name.lower().endswith(".zip") else name + ".zip")
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
            for item in inputs:
                archive.write(item.path, item.path.name)
        names.append(target)
    else:
        for item in inputs:
            target = out_dir / item.path.name
            if target.exists():  # same name from two inputs: keep both
                target = out_dir / f"{item.task_name}-{item.path.name}"
            try:
                os.link(item.path, target)
            except OSError:
                shutil.copyfile(item.path, target)
            names.append(target)
    files = [
        {
            "filename": p.name,
            "size": p.stat().st_size,
            "url": file_url(
                config.signing_key, config.public_url, task["id"], p.name, config.link_ttl, inline
            ),
        }
        for p in names
    ]
    return Outcome({"files": files}, files=names)


def _export_upload(payload: dict[str, Any], inputs: list[InputFile]) -> Outcome:
    url = str(payload["url"])
    for item in inputs:
        try:
            with item.path.open("rb") as handle:
                response = httpx.put(url, content=handle, timeout=300.0)
        except httpx.HTTPError as exc:
            raise TaskFailed("EXPORT_FAILED", f"Uploading {item.path.name} failed: {exc}") from exc
        if response.status_code >= 400:
            raise TaskFailed(
                "EXPORT_FAILED", f"Uploading {item.path.name} answered HTTP {response.status_code}."
            )
    return Outcome({"files": [{"filename": i.path.name} for i in inputs]})
