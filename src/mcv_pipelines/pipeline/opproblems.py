"""Turning jsonschema errors about a task body into short problems with the path they concern.

Problems are kept apart from locations so they can be cached by body content and placed in the file
per task afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcv_pipelines.pipeline.suggest import did_you_mean

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["MAX_EMBEDDED_BYTES", "RawProblem", "dotted", "embedded_size", "translate"]

MAX_EMBEDDED_BYTES = 10 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class RawProblem:
    """A problem found in a body, before it is placed in a file (so it can be cached)."""

    rule: str
    message: str
    path: tuple[str | int, ...]
    at_key: bool = False
    hint: str | None = None
    type_error: bool = False


def dotted(path: Iterable[str | int]) -> str:
    return ".".join(str(p) for p in path)


def _alternatives(subschemas: Any) -> list[str] | None:
    names: list[str] = []
    for sub in subschemas if isinstance(subschemas, list) else ():
        required = sub.get("required") if isinstance(sub, dict) else None
        if not isinstance(required, list):
            return None
        names.append(" + ".join(map(str, required)))
    return names or None


def translate(error: ValidationError) -> list[RawProblem]:
    path = tuple(error.absolute_path)
    where = f"option {dotted(path)!r}" if path else "the task"
    kind = error.validator
    instance = error.instance
    if kind == "required" and isinstance(instance, dict):
        required: Any = error.validator_value
        missing = [r for r in required if r not in instance]
        return [
            RawProblem(
                "op-missing-option",
                f"{'option ' + dotted(path) + ' ' if path else ''}needs {m!r}",
                path,
                hint=f"add `{m}:`",
            )
            for m in missing
        ]
    if kind == "additionalProperties" and isinstance(instance, dict):
        schema = error.schema if isinstance(error.schema, dict) else {}
        known = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        extras = [k for k in instance if k not in known and not any(re.search(p, k) for p in patterns)]
        return [
            RawProblem(
                "op-unknown-option",
                f"unknown option {k!r}",
                (*path, k),
                at_key=True,
                hint=did_you_mean(k, known) or f"known options: {', '.join(sorted(known))}",
            )
            for k in extras
            if not (k == "operation" and not path)
        ]
    if kind in ("oneOf", "anyOf"):
        names = _alternatives(error.validator_value)
        if names is not None:
            matching = (
                [n for n in names if all(part in instance for part in n.split(" + "))]
                if isinstance(instance, dict)
                else []
            )
            if kind == "oneOf" and len(matching) > 1:
                return [
                    RawProblem(
                        "op-option-conflict",
                        f"{where} gives {' and '.join(matching)}; give only one",
                        path,
                        hint=f"keep one of: {', '.join(names)}",
                    )
                ]
            return [RawProblem("op-missing-option", f"{where} needs one of: {', '.join(names)}", path)]
    if kind == "type":
        return [RawProblem("op-option-type", f"{where}: {error.message}", path, type_error=True)]
    if kind in ("not", "dependentRequired", "dependentSchemas"):
        return [RawProblem("op-option-conflict", f"{where}: {error.message}", path)]
    return [RawProblem("op-option-value", f"{where}: {error.message}", path)]


def embedded_size(operation: str, body: Mapping[str, Any]) -> list[RawProblem]:
    content = body.get("file")
    if operation not in ("import/base64", "import/raw") or not isinstance(content, str):
        return []
    size = len(content) * 3 // 4 if operation == "import/base64" else len(content.encode("utf-8"))
    if size <= MAX_EMBEDDED_BYTES:
        return []
    return [
        RawProblem(
            "op-content-too-large",
            f"{operation} content is {size / 1048576:.1f} MB; the limit is 10 MB",
            ("file",),
            hint="use import/upload (upload_from: PATH) or import/url for large files",
        )
    ]
