"""The part every engine backed by one external program shares: finding it and reading its version.

The program is looked up on PATH once, when the engine is made; its version is read from the program's
own output the first time it is asked for, and kept. ``version()`` None keeps the engine out of the
listing, so the service never advertises what this machine cannot run.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence

from mcv_pipelines.service.engines.base import ConversionType, EngineVersion, OptionSpec
from mcv_pipelines.service.engines.process import find_program, program_version
from mcv_pipelines.service.engines.seal import DEFAULT_LIMITS, Limits

__all__ = ["ProgramEngine"]


class ProgramEngine:
    """Subclasses set ``name``, ``programs`` (candidates, first found wins) and ``version_pattern``."""

    name: str
    programs: tuple[str, ...]
    version_args: tuple[str, ...] = ("--version",)
    version_pattern: str
    version_timeout: float = 30
    limits: Limits = DEFAULT_LIMITS  # of the seal its programs run in (seal.py)

    def __init__(self) -> None:
        self.program = find_program(*self.programs)

    def version(self) -> str | None:
        return self._version

    @functools.cached_property
    def _version(self) -> str | None:
        if self.program is None:
            return None
        return program_version(
            [self.program, *self.version_args],
            self.version_pattern,
            timeout=self.version_timeout,
            limits=self.limits,
        )

    def convert_pairs(
        self,
        inputs: Iterable[str],
        outputs: Iterable[str],
        options: Sequence[OptionSpec],
        keep: Callable[[str, str], bool] = lambda source, target: True,
    ) -> list[ConversionType]:
        """``convert`` from every input to every output that ``keep`` allows, with ``options`` and the
        program's version; nothing where the program cannot run here."""
        version = self.version()
        if version is None:
            return []
        versions = (EngineVersion(version),)
        targets, listed = list(outputs), tuple(options)
        return [
            ConversionType("convert", source, target, self.name, options=listed, engine_versions=versions)
            for source in inputs
            for target in targets
            if keep(source, target)
        ]
