"""Finding the pipeline files under the paths given to `mcv validate`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity

__all__ = ["find_pipelines", "looks_like_pipeline", "marks_pipeline"]

_SUFFIXES = (".yaml", ".yml")
_SKIP_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"})
# A YAML file in a directory is taken for a pipeline when it has a top-level `tasks:` or `version:`
# key or the pipeline schema modeline; other YAML there (params files, CI configs) is left alone.
_MARK = re.compile(rb"^(tasks|version)\s*:|pipeline\.schema\.json", re.MULTILINE)


def marks_pipeline(head: bytes) -> bool:
    """Does this start of a YAML file say it is a pipeline (top-level `tasks:`/`version:`, the modeline)?"""
    return _MARK.search(head[:65536]) is not None


def looks_like_pipeline(path: Path) -> bool:
    try:
        head = path.read_bytes()[:65536]
    except OSError:
        return False
    return not head.strip() or marks_pipeline(head)


def _walk(directory: Path) -> Iterable[Path]:
    for entry in sorted(directory.iterdir()):
        if entry.is_dir():
            if entry.name not in _SKIP_DIRS and not entry.name.startswith("."):
                yield from _walk(entry)
        elif entry.suffix in _SUFFIXES and looks_like_pipeline(entry):
            yield entry


def find_pipelines(
    paths: Iterable[str], *, skip_non_pipelines: bool = False
) -> tuple[list[str], list[Diagnostic]]:
    """Files given are taken as they are; directories are searched for pipelines.

    A missing path, or a directory without any pipeline, is an error diagnostic. With
    ``skip_non_pipelines`` (the pre-commit hook, which passes every changed YAML file) a file that
    does not look like a pipeline is left out instead of being reported.
    """
    files: list[str] = []
    problems: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = [str(p) for p in _walk(path)]
            if not found:
                problems.append(
                    Diagnostic(
                        "no-pipelines",
                        Severity.ERROR,
                        f"no pipeline (*.yaml, *.yml) found in directory {raw}",
                        Location(raw, 1, 1),
                        hint="give a pipeline file, or a directory that holds some",
                    )
                )
            files.extend(f for f in found if f not in files)
        elif path.exists():
            if skip_non_pipelines and not looks_like_pipeline(path):
                continue
            if raw not in files:
                files.append(raw)
        else:
            problems.append(
                Diagnostic(
                    "file-unreadable",
                    Severity.ERROR,
                    f"no such file or directory: {raw}",
                    Location(raw, 1, 1),
                )
            )
    return files, problems
