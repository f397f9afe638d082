"""Checking each task's options against the static schema of its operation.

Schemas live in ``schemas/operations/<operation with "/" as "-">.schema.json`` (``import/url`` ->
``import-url.schema.json``). Each is compiled once; results are cached by the body's content, so rows
of a batch that render the same task body cost one lookup. Every error is mapped back to the YAML
node of the offending key or value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.pipeline.fastschema import Predicate, compile_predicate
from mcv_pipelines.pipeline.model import RenderedPipeline, RenderedTask
from mcv_pipelines.pipeline.opproblems import MAX_EMBEDDED_BYTES, RawProblem, dotted, embedded_size, translate
from mcv_pipelines.pipeline.suggest import did_you_mean

__all__ = [
    "KNOWN_OPERATIONS",
    "MAX_EMBEDDED_BYTES",
    "BrokenSchema",
    "OperationSchemas",
    "check_operations",
    "schema_file_name",
]

KNOWN_OPERATIONS = (
    "import/url",
    "import/upload",
    "import/base64",
    "import/raw",
    "import/s3",
    "import/azure/blob",
    "import/google-cloud-storage",
    "export/url",
    "export/s3",
    "export/azure/blob",
    "export/google-cloud-storage",
    "export/upload",
    "import/sftp",
    "export/sftp",
    "import/openstack",
    "export/openstack",
    "convert",
    "thumbnail",
    "optimize",
    "merge",
    "capture-website",
    "archive",
    "command",
    "watermark",
    "metadata",
    "metadata/write",
)
_CACHE_LIMIT = 4096
_NO_SCHEMA: dict[str, Any] = {}  # an operation without a schema file, remembered as such


class BrokenSchema(ValueError):
    """A schema from the user's directory that its draft's metaschema rejects (jsonschema's words)."""


_OPERATION = re.compile(r"^[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*)*$")  # never a path outside the directory


def schema_file_name(operation: str) -> str:
    return operation.replace("/", "-") + ".schema.json"


class OperationSchemas:
    """The operation schemas of one directory, compiled on first use and kept.

    A schema from a directory the user gives is first checked against its draft's metaschema (a broken
    one is reported as ``op-schema-broken``); the shipped ones are not: a test checks them, and the
    metaschema check cost `mcv validate` more than the rest of its checks together (issue 15).
    """

    def __init__(self, directory: Traversable | Path | None = None) -> None:
        self.shipped = directory is None
        self.directory: Traversable | Path = (
            directory
            if directory is not None
            else resources.files("mcv_pipelines") / "schemas" / "operations"
        )
        self._schemas: dict[str, dict[str, Any] | bool] = {}
        self._validators: dict[str, Any] = {}
        self._predicates: dict[str, Predicate | None] = {}
        self._credentials: dict[str, frozenset[str]] = {}
        self._results: dict[tuple[str, str], tuple[RawProblem, ...]] = {}

    def available(self) -> list[str]:
        try:
            files = {entry.name for entry in self.directory.iterdir()}
        except OSError:
            return []
        known = [op for op in KNOWN_OPERATIONS if schema_file_name(op) in files]
        mapped = {schema_file_name(op) for op in known}
        extra = [
            f[: -len(".schema.json")] for f in sorted(files) if f.endswith(".schema.json") and f not in mapped
        ]
        return known + extra

    def _schema(self, operation: str) -> dict[str, Any] | bool | None:
        """The schema of ``operation`` as read (checked, if the user's), None when it has none; raises
        BrokenSchema, ValueError (not JSON) or OSError."""
        found = self._schemas.get(operation)
        if found is None:
            entry = self.directory / schema_file_name(operation)
            found = _NO_SCHEMA
            if _OPERATION.match(operation) and entry.is_file():
                found = json.loads(entry.read_text(encoding="utf-8"))
                if not self.shipped:
                    _check_schema(found)
                self._predicates[operation] = compile_predicate(found)
                properties = found.get("properties", {}) if isinstance(found, dict) else {}
                self._credentials[operation] = frozenset(
                    k for k, s in properties.items() if isinstance(s, dict) and s.get("writeOnly") is True
                )
            self._schemas[operation] = found
        return None if found is _NO_SCHEMA else found

    def validator(self, operation: str) -> Any:
        """jsonschema's validator of ``operation`` (made on first use: a body its quick predicate
        passes needs none); None when there is no schema; raises BrokenSchema."""
        if operation in self._validators:
            return self._validators[operation]
        schema = self._schema(operation)
        validator: Any = None
        if schema is not None:
            validator = _validator_class(schema)(schema)
        self._validators[operation] = validator
        return validator

    def credentials(self, operation: str) -> frozenset[str]:
        """Options the schema marks ``writeOnly``: credentials, to be given through secret()."""
        return self._credentials.get(operation, frozenset())

    def problems(self, operation: str, body: Mapping[str, Any]) -> tuple[RawProblem, ...] | None:
        """Problems of one body; None when the operation has no schema.

        A quick predicate answers for plain schemas; otherwise results are cached by the body's content.
        """
        if self._schema(operation) is None:
            return None
        predicate = self._predicates.get(operation)
        if predicate is not None and predicate(body):
            return tuple(embedded_size(operation, body))
        validator = self.validator(operation)
        key = (operation, json.dumps(body, sort_keys=True, default=repr))
        cached = self._results.get(key)
        if cached is not None:
            return cached
        found: list[RawProblem] = []
        if not validator.is_valid(body):
            for error in sorted(validator.iter_errors(body), key=lambda e: [str(p) for p in e.absolute_path]):
                found.extend(translate(error))
            if operation.startswith("import/"):  # an import's `input` is reported once, by the graph check
                found = [r for r in found if not (r.rule == "op-unknown-option" and r.path == ("input",))]
        too_large = embedded_size(operation, body)
        if too_large:  # the size is said once, in MB, not again as the schema's maxLength
            found = [r for r in found if not (r.path == ("file",) and r.message.endswith("is too long"))]
        found.extend(too_large)
        result = tuple(found)
        if len(self._results) >= _CACHE_LIMIT:
            self._results.clear()
        self._results[key] = result
        return result


def _validator_class(schema: Any) -> Any:
    """jsonschema's validator class for the draft ``schema`` names (2020-12 when it names none)."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    return validator_for(schema, default=Draft202012Validator)


def _check_schema(schema: Any) -> None:
    from jsonschema.exceptions import SchemaError

    try:
        _validator_class(schema).check_schema(schema)
    except SchemaError as exc:
        raise BrokenSchema(str(exc)) from None


_default: OperationSchemas | None = None


def _schemas(directory: Traversable | Path | None) -> OperationSchemas:
    global _default
    if directory is not None:
        return OperationSchemas(directory)
    if _default is None:
        _default = OperationSchemas()
    return _default


def _place(task: RenderedTask, raw: RawProblem) -> Diagnostic:
    location = (
        task.locate_key(raw.path) if raw.at_key else (task.locate(raw.path) if raw.path else task.location)
    )
    hint = raw.hint
    message = raw.message
    if raw.type_error and task.document is not None:
        written = task.document.yaml11_bools.get(("tasks", task.group, *raw.path))
        if written is not None:
            message = f"option {dotted(raw.path)!r}: expected a string, got the boolean {written} (unquoted)"
            hint = (
                f"YAML 1.1 reads unquoted {written} as a boolean; quote it: {dotted(raw.path)}: {written!r}"
            )
    return Diagnostic(
        raw.rule, Severity.ERROR, f"{task.operation} task {task.name!r}: {message}", location, hint=hint
    )


def _plain_credentials(task: RenderedTask, credentials: frozenset[str]) -> list[Diagnostic]:
    """A credential written as it is in the file (not through a template) would end up in git."""
    if not credentials or task.document is None:
        return []
    source = task.document.data["tasks"][task.group]
    return [
        Diagnostic(
            "secret-in-plain-text",
            Severity.ERROR,
            f"{task.operation} task {task.group!r}: {key} is written in the file",
            task.locate((key,)),
            hint=f"{key}: \"{{{{ secret('NAME') }}}}\" reads it from the environment and masks it as ***",
        )
        for key in sorted(credentials & set(task.body))
        if isinstance(source.get(key), str) and source[key] and "{{" not in source[key]
    ]


def check_operations(
    pipeline: RenderedPipeline, schemas: OperationSchemas | Traversable | Path | None = None
) -> list[Diagnostic]:
    """Check every task body of ``pipeline`` against its operation's schema."""
    registry = schemas if isinstance(schemas, OperationSchemas) else _schemas(schemas)
    found: list[Diagnostic] = []
    for task in pipeline.tasks.values():
        if not task.operation:
            continue  # the file schema has already said that `operation` is missing
        try:
            raws = registry.problems(task.operation, task.body)
        except (ValueError, OSError) as exc:  # BrokenSchema is a ValueError
            found.append(
                Diagnostic(
                    "op-schema-broken",
                    Severity.ERROR,
                    f"the schema of {task.operation} cannot be used: {exc}",
                    task.locate(("operation",)),
                )
            )
            continue
        if raws is None:
            found.append(
                Diagnostic(
                    "op-unknown",
                    Severity.ERROR,
                    f"unknown operation {task.operation!r} in task {task.group!r}",
                    task.locate(("operation",)),
                    hint=did_you_mean(task.operation, registry.available()) or "see schemas/operations/",
                )
            )
            continue
        found.extend(_plain_credentials(task, registry.credentials(task.operation)))
        found.extend(_place(task, raw) for raw in raws)
    return found
