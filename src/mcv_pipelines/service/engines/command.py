"""The ``command`` operation: run one allowed program with the user's arguments in a task directory.

Flow: refuse a program that is not in the engine's list, split ``arguments`` like a shell (never run
one), check and rewrite paths (sandbox.py), refuse options that read files the checks cannot see,
run the program with the task directory as its working directory, sealed like every engine
program (seal.py: no network, only the task's directories writable), kill its process group on
timeout. Files written under /output/ are the result, each with its size; ``command`` is the line
as the user wrote it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.image.magick_policy import (
    MAGICK_BLOCKED_PREFIXES,
    refuse_drawing_scripts,
    write_policy,
)
from mcv_pipelines.service.engines.options import bool_option
from mcv_pipelines.service.engines.process import run_program
from mcv_pipelines.service.engines.sandbox import (
    TaskDirectory,
    map_arguments,
    prepare_task_directory,
    split_arguments,
)

__all__ = [
    "FFMPEG_INPUT_PROTOCOLS",
    "FFMPEG_REFUSED_OPTIONS",
    "CommandFamily",
    "command_conversion_type",
    "local_inputs_only",
    "run_command",
]

DEFAULT_TIMEOUT = 5 * 3600
FFMPEG_INPUT_PROTOCOLS = "file,pipe"
MAX_CAPTURED_OUTPUT = 1_000_000

# Options that make a program read another file whose contents the argument checks never see.
FFMPEG_REFUSED_OPTIONS = {
    "-filter_script": "reads a filter graph from a file",
    "-filter_complex_script": "reads a filter graph from a file",
    "-safe": "would let the concat demuxer open paths outside the task",
    "-dump_attachment": "writes files named by the input itself",
    "-protocol_whitelist": "is set by the service",
    "-protocol_blacklist": "is set by the service",
}


@dataclass(frozen=True, slots=True)
class CommandFamily:
    """One engine's programs (name as the user writes it -> path) and how to run them."""

    engine: str
    programs: Mapping[str, str]
    kind: str  # "ffmpeg" | "imagemagick" | "graphicsmagick"
    refused_options: Mapping[str, str] = field(default_factory=dict)


def command_conversion_type(family: CommandFamily, version: str) -> ConversionType:
    """The listing entry of ``command`` for one engine."""
    return ConversionType(
        operation="command",
        input_format="any",
        output_format="any",
        engine=family.engine,
        options=(
            OptionSpec("command", "enum", None, tuple(sorted(family.programs)), "Program to run"),
            OptionSpec(
                "arguments",
                "string",
                None,
                None,
                "Arguments, split like a shell; /input/{task}/ and /output/",
            ),
            OptionSpec(
                "capture_output", "boolean", False, None, "Return the console output in result.output"
            ),
        ),
        engine_versions=(EngineVersion(version),),
    )


def local_inputs_only(arguments: Sequence[str]) -> list[str]:
    """FFmpeg ``arguments`` with every ``-i`` limited to files and pipes: an input (a playlist, a
    concat list, an image sequence) cannot make ffmpeg open a URL. The option is per input, so it
    goes before each one; nested opens (a playlist's entries) inherit it."""
    limited: list[str] = []
    for argument in arguments:
        if argument == "-i":
            limited += ["-protocol_whitelist", FFMPEG_INPUT_PROTOCOLS]
        limited.append(argument)
    return limited


def _check_options(family: CommandFamily, arguments: Iterable[str]) -> None:
    for argument in arguments:
        reason = family.refused_options.get(argument.split("=", 1)[0].lower())
        if reason:
            raise EngineError("COMMAND_NOT_ALLOWED", f"option {argument} is not allowed: it {reason}")
        if family.kind != "ffmpeg":
            lowered = argument.lower()
            if lowered.startswith("@") or lowered.startswith(MAGICK_BLOCKED_PREFIXES):
                raise EngineError(
                    "COMMAND_NOT_ALLOWED",
                    f"argument {argument!r} reads a file or URL through a coder that is not allowed",
                )


def _environment(family: CommandFamily, root: Path) -> dict[str, str]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root),
        "TMPDIR": str(root / "tmp"),
        "LANG": "C.UTF-8",
    }
    if family.kind == "imagemagick":
        env["MAGICK_CONFIGURE_PATH"] = str(write_policy(root / "magick", root))
        env["MAGICK_TEMPORARY_PATH"] = str(root / "tmp")
    elif family.kind == "graphicsmagick":
        env["MAGICK_TMPDIR"] = str(root / "tmp")
    return env


# ffmpeg's start-up banner (version, build, library versions): noise in a failure message.
_BANNER = re.compile(r"\s*(lib\w+\s+\d+\.\s*\d+\.\s*\d+ /|ffmpeg version |built with |configuration: )")


def _user_paths(text: str, task: TaskDirectory) -> str:
    """Show paths in console output as the user wrote them (/input/..., /output/...)."""
    return text.replace(str(task.inputs), "/input").replace(str(task.outputs), "/output")


def _result_files(output_dir: Path) -> list[Path]:
    return sorted(path for path in output_dir.rglob("*") if path.is_file() and not path.is_symlink())


def run_command(family: CommandFamily, request: EngineRequest) -> EngineResult:
    """Run a ``command`` task for ``family``; see the module docstring."""
    program = request.options.get("command")
    if not isinstance(program, str) or program not in family.programs:
        allowed = ", ".join(sorted(family.programs))
        raise EngineError(
            "COMMAND_NOT_ALLOWED",
            f"command {program!r} is not a program of engine {family.engine} ({allowed})",
        )
    arguments = split_arguments(request.options.get("arguments"))
    capture = bool_option(request.options, "capture_output", False)
    _check_options(family, arguments)
    task = prepare_task_directory(request)
    if family.kind == "graphicsmagick":
        refuse_drawing_scripts(item.path for item in request.inputs)
    real_arguments = map_arguments(arguments, task)
    if family.kind == "ffmpeg" and program == "ffmpeg":
        real_arguments = ["-nostdin", *local_inputs_only(real_arguments)]
    argv = [family.programs[program], *real_arguments]
    timeout = request.timeout if request.timeout is not None else DEFAULT_TIMEOUT
    outcome = run_program(
        argv,
        cwd=task.root,
        env=_environment(family, task.root),
        timeout=timeout,
        cancelled=request.cancelled,
        max_output=MAX_CAPTURED_OUTPUT,
    )
    written = shlex.join([program, *arguments])
    console = _user_paths(outcome.output, task)
    if outcome.timed_out:
        raise EngineError("TIMEOUT", f"{written} did not finish within {timeout:g} seconds and was stopped")
    if outcome.cancelled:
        raise EngineError("CANCELLED", f"{written} was cancelled")
    if outcome.returncode != 0:
        lines = [line for line in console.strip().splitlines() if line.strip() and not _BANNER.match(line)]
        tail = " | ".join(line.strip() for line in lines[-5:])
        raise EngineError("COMMAND_FAILED", f"{program} exited with code {outcome.returncode}: {tail}")
    extra: dict[str, object] = {"command": written}
    if capture:
        extra["output"] = console
    return EngineResult(files=_result_files(task.outputs), extra=extra)
