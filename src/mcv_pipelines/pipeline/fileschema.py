"""Checking the pipeline file itself against its outline (rule ``file-schema``).

The outline is the part of schemas/pipeline.schema.json that is not about one operation (version,
name, params, job, tasks, the keys every task has), made by the same code (``outline``). Options are
checked after rendering, by the operation and catalog checks: they know templates' values and word
their findings better, and a check of the 180 KB editor schema would cost every `mcv validate`.

A file the quick predicate (``fastschema``) passes is valid as jsonschema would judge it; jsonschema
is imported only to word what is wrong with one that fails.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.fastschema import Predicate, compile_predicate
from mcv_pipelines.pipeline.outline import outline_schema
from mcv_pipelines.pipeline.suggest import did_you_mean

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

__all__ = ["check_file_schema", "file_schema", "renderable"]


@cache
def file_schema() -> dict[str, Any]:
    """The outline of a pipeline file: what the ``file-schema`` check holds a file to."""
    return outline_schema()


@cache
def _predicate() -> Predicate | None:
    return compile_predicate(file_schema())


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(file_schema())


def _where(path: tuple[str | int, ...]) -> str:
    return "at the top level" if not path else "at " + " → ".join(str(p) for p in path)


def _diagnose(document: Document, error: ValidationError) -> list[Diagnostic]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {}) if isinstance(error.schema, dict) else {}
        place = "top-level key" if not path else f"key in {'.'.join(map(str, path))}"
        return [
            Diagnostic(
                "file-schema",
                Severity.ERROR,
                f"unknown {place} {key!r}",
                document.locate_key((*path, key)),
                hint=did_you_mean(key, known) or f"allowed: {', '.join(known)}",
            )
            for key in error.instance
            if key not in known
        ]
    hint = None
    written = document.yaml11_bools.get(path)
    if written is not None and error.validator in ("type", "anyOf"):
        key = f"{path[-1]}: " if path and isinstance(path[-1], str) else ""
        hint = f"YAML 1.1 reads unquoted {written} as a boolean; quote it: {key}{written!r}"
        message = f"{_where(path)}: expected a string, got the boolean {written} (unquoted)"
    elif error.validator == "required":
        message = f"{_where(path)}: {error.message}"
    else:
        message = f"{_where(path)}: {error.message}"
    location = document.locate(path)
    if error.validator == "required" and path and path[0] == "tasks":
        location = document.locate_key(path)
    return [Diagnostic("file-schema", Severity.ERROR, message, location, hint=hint)]


def check_file_schema(document: Document) -> list[Diagnostic]:
    """Every way the file departs from the pipeline schema (cached on the document)."""
    cached = document.cache.get("file-schema")
    if cached is None:
        found: list[Diagnostic] = []
        if not isinstance(document.data, dict):
            found.append(
                Diagnostic(
                    "file-schema",
                    Severity.ERROR,
                    "a pipeline is a mapping with `version`, `tasks` and more",
                    document.locate(()),
                    hint="start from an example in pipelines/",
                )
            )
        elif (quick := _predicate()) is None or not quick(document.data):
            errors = sorted(
                _validator().iter_errors(document.data),
                key=lambda e: document.locate(tuple(e.absolute_path)).line,
            )
            for error in errors:
                found.extend(_diagnose(document, error))
        cached = document.cache["file-schema"] = tuple(found)
    return list(cached)


def renderable(document: Document) -> bool:
    """Whether the shape is sound enough to render (mappings where mappings are needed)."""
    data = document.data
    if not isinstance(data, dict) or not isinstance(data.get("tasks"), dict):
        return False
    if "params" in data and not isinstance(data["params"], dict):
        return False
    if "job" in data and not isinstance(data["job"], dict):
        return False
    return all(isinstance(task, dict) for task in data["tasks"].values())
