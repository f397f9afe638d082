"""What a test needs from this machine: a local engine (asked of the engine registry, as the service
asks it) or another program on PATH. Missing locally, the test is skipped with the reason; with
MCV_REQUIRE_ENGINES=1 (set by .ci/run, which installs the programs) it fails instead.

Used through the ``require_engine`` and ``require_program`` fixtures of tests/conftest.py. Anything
else a test needs from the machine (a server program, a kernel permission, a dev dependency) goes
through ``unavailable``: it is the one place a missing thing may skip, and
tests/unit/layout/test_skips_go_through_one_switch.py lists any skip in tests/ that does not.
"""

from __future__ import annotations

import functools
import os
import shutil
from typing import NoReturn

import pytest

from mcv_pipelines.service.engines import available_engines, find_conversion
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.install_hints import INSTALL_HINTS

__all__ = [
    "ENGINES_REQUIRED",
    "ENGINE_PROGRAMS",
    "engine_program",
    "require_conversion",
    "require_engine",
    "require_program",
    "unavailable",
]

ENGINES_REQUIRED = os.environ.get("MCV_REQUIRE_ENGINES") == "1"
SEAL_FORCED = "MCV_ENGINE_SEAL"  # seal.FORCE_VARIABLE: the hostile tests run each case under one seal
# The programs engines look for on PATH. Finding one says nothing of whether its engine runs: a
# `convert` may be GraphicsMagick's or Windows', a `soffice` a launcher (issue 39). Tests ask the engine.
ENGINE_PROGRAMS: frozenset[str] = frozenset(
    program for hint in INSTALL_HINTS.values() for program in hint.programs
)


def unavailable(reason: str) -> NoReturn:
    """Skip the test for ``reason`` (what it needs and how to get it), or fail it under
    MCV_REQUIRE_ENGINES=1, where nothing the suite needs may be missing."""
    if ENGINES_REQUIRED:
        pytest.fail(f"MCV_REQUIRE_ENGINES=1 but the test {reason}")
    pytest.skip(reason)


@functools.cache
def _engines_on(path: str, seal_forced: str = "") -> dict[str, Engine]:
    """The engines that run with this PATH and this seal (asking each its version costs a process start:
    once for each). FontForge runs under bubblewrap but not Landlock, so a hostile test that forces
    Landlock must not decide for the tests after it whether FontForge is here."""
    del path, seal_forced  # the cache key: a test that changes PATH or the seal gets its own engines
    return {engine.name: engine for engine in available_engines()}


def require_engine(
    name: str, operation: str | None = None, input_format: str = "any", output_format: str | None = None
) -> Engine:
    """The engine ``name`` as the registry finds it here, or skip/fail the test.

    With ``operation``, the engine must also list that conversion (``input_format`` to ``output_format``):
    a LibreOffice without Calc lists no xlsx -> pdf.
    """
    engine = _engines_on(os.environ.get("PATH", ""), os.environ.get(SEAL_FORCED, "")).get(name)
    install = "install it, or run .ci/run"
    if engine is None:
        unavailable(
            f"needs the {name} engine, which cannot run here: its program is missing or is not {name} "
            f"({install})"
        )
    if operation is not None and find_conversion([engine], operation, input_format, output_format) is None:
        unavailable(
            f"needs {operation} {input_format} -> {output_format or 'same'} from the {name} engine "
            f"{engine.version()}, which does not list it here ({install} in full)"
        )
    return engine


def engine_program(engine: str, program: str) -> str:
    """The path of ``program`` as the engine ``engine`` runs it (ffprobe of the ffmpeg engine, identify
    of ImageMagick), for a test that checks the engine's work with its own tools; skip/fail the test
    where that engine cannot run here."""
    if program not in INSTALL_HINTS[engine].programs:
        raise ValueError(f"{program} is not a program of the {engine} engine")
    require_engine(engine)
    path = shutil.which(program)
    if path is None:  # the engine runs without it (the first of its programs found will do)
        unavailable(f"needs {program} of the {engine} engine, which runs here without it")
    return path


def require_conversion(operation: str, input_format: str, output_format: str | None = None) -> Engine:
    """The engine this machine would use for ``operation`` ``input_format`` -> ``output_format``
    (whichever it is), or skip/fail the test: for a test that needs the conversion, not one engine."""
    engines = list(_engines_on(os.environ.get("PATH", ""), os.environ.get(SEAL_FORCED, "")).values())
    found = find_conversion(engines, operation, input_format, output_format)
    if found is None:
        unavailable(
            f"needs {operation} {input_format} -> {output_format or 'same'}, which no engine here lists "
            "(install the engines, or run .ci/run)"
        )
    return found[0]


def require_program(*names: str) -> str:
    """Return the path of the first of ``names`` found on PATH, or skip/fail the test.

    Not for an engine's program: a program of that name may not be that engine (require_engine).
    """
    engines_own = sorted(set(names) & ENGINE_PROGRAMS)
    if engines_own:
        pytest.fail(
            f"require_program({', '.join(map(repr, names))}): {', '.join(engines_own)} is an engine's "
            "program, and a program of that name may be something else; ask require_engine(NAME) or "
            "require_conversion(...) instead"
        )
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    unavailable(f"needs {' or '.join(names)} on PATH (install it, or run .ci/run)")
