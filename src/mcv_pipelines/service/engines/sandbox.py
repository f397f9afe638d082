"""The per-task directory of a ``command`` task and the checks on its arguments.

The user writes paths as the service documents them: input files under ``/input/{taskName}/`` and
results under ``/output/``. Those prefixes are rewritten to the task's real directories; every other
absolute path, and every ``..`` path segment, is refused before anything runs. A path is recognised
wherever it starts an argument or follows a separator (``=``, ``:``, ``,``, a quote, a bracket, ``@``,
a backslash ...), so ``movie=/etc/passwd``, ``file:///x``, ``text:/x`` and ``http://host/`` are all
caught: URLs need ``//`` and that is an absolute path here.
"""

from __future__ import annotations

import functools
import posixpath
import re
import shlex
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mcv_pipelines.service.engines.base import EngineError, EngineRequest

__all__ = ["TaskDirectory", "map_arguments", "prepare_task_directory", "split_arguments"]

_SEPARATORS = r"=:,;'\"()\[\]{}|@<>\\\s"
_PATH = re.compile(rf"(?:^|(?<=[{_SEPARATORS}]))/[^{_SEPARATORS}]*")
_PARENT = re.compile(rf"(?:^|(?<=[{_SEPARATORS}/]))\.\.(?=$|[{_SEPARATORS}/])")


@dataclass(frozen=True, slots=True)
class TaskDirectory:
    """Real directories behind /input and /output, and the working directory the program runs in."""

    root: Path
    inputs: Path
    outputs: Path


def prepare_task_directory(request: EngineRequest) -> TaskDirectory:
    """Copy each input file to ``<work>/input/{taskName}/`` (copies: a program may write over them)."""
    root = request.work_dir / "command"
    inputs = root / "input"
    inputs.mkdir(parents=True, exist_ok=True)
    for item in request.inputs:
        if not re.fullmatch(r"[A-Za-z0-9_-]+", item.task_name):
            raise EngineError(
                "INVALID_INPUT", f"input task name {item.task_name!r} cannot be a directory name"
            )
        target = inputs / item.task_name
        target.mkdir(exist_ok=True)
        shutil.copyfile(item.path, target / item.path.name)
    request.output_dir.mkdir(parents=True, exist_ok=True)
    (root / "tmp").mkdir(exist_ok=True)
    return TaskDirectory(root=root, inputs=inputs, outputs=request.output_dir)


def split_arguments(arguments: object) -> list[str]:
    """Split ``arguments`` like a POSIX shell would (quotes, backslashes), without running one."""
    if arguments is None:
        return []
    if not isinstance(arguments, str):
        raise EngineError("INVALID_OPTION", "arguments must be a string")
    try:
        return shlex.split(arguments)
    except ValueError as exc:
        raise EngineError("INVALID_OPTION", f"arguments cannot be split: {exc}") from None


def _map_path(path: str, task: TaskDirectory, argument: str) -> str:
    for prefix, real in (("/input", task.inputs), ("/output", task.outputs)):
        if path == prefix or path.startswith(prefix + "/"):
            rest = posixpath.normpath("/" + path[len(prefix) :].lstrip("/"))
            return str(real) + ("" if rest == "/" else rest)
    raise EngineError(
        "SANDBOX_PATH_NOT_ALLOWED",
        f"argument {argument!r} names {path!r}: only paths under /input/ and /output/ are allowed",
    )


def _rewrite(match: re.Match[str], task: TaskDirectory, argument: str) -> str:
    return _map_path(match.group(0), task, argument)


def map_arguments(arguments: Sequence[str], task: TaskDirectory) -> list[str]:
    """Rewrite /input and /output paths to real ones; refuse other absolute paths and ``..``."""
    mapped = []
    for argument in arguments:
        if "\x00" in argument:
            raise EngineError("INVALID_OPTION", "arguments must not contain NUL characters")
        if _PARENT.search(argument):
            raise EngineError(
                "SANDBOX_PATH_NOT_ALLOWED", f"argument {argument!r} uses '..': paths must stay in the task"
            )
        mapped.append(_PATH.sub(functools.partial(_rewrite, task=task, argument=argument), argument))
    return mapped
