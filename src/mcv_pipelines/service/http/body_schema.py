"""Task bodies checked against the operation schemas (schemas/operations/), the same schemas the
OpenAPI document publishes, so the service refuses what its contract says it refuses.

Messages name the field and the rule, never the value itself: a value may be a 10 MB base64 file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from mcv_pipelines.pipeline.fastschema import Predicate, compile_predicate
from mcv_pipelines.service.engines.lookup import normalize_listing_format
from mcv_pipelines.service.http.ecma_pattern import to_python, validator_for

__all__ = ["operation_file", "operation_schema", "schema_errors"]


def operation_file(operation: str) -> str:
    """``import/url`` -> ``import-url.schema.json``, the naming of schemas/operations/."""
    return operation.replace("/", "-") + ".schema.json"


@cache
def _schema_text(operation: str) -> str | None:
    entry = resources.files("mcv_pipelines") / "schemas" / "operations" / operation_file(operation)
    return entry.read_text(encoding="utf-8") if entry.is_file() else None


# Where the service has always accepted more than the shared schema: a fractional timeout (tests and
# impatient callers use sub-second ones). The OpenAPI document publishes the schemas with this applied.
_LENIENT = {
    "timeout": {
        "type": "number",
        "exclusiveMinimum": 0,
        "description": "Seconds after which the task is cancelled (default 5 hours).",
    }
}


def operation_schema(operation: str) -> dict[str, Any] | None:
    """A fresh copy of the operation's schema as the service applies it, or None when it has none."""
    text = _schema_text(operation)
    if text is None:
        return None
    schema: dict[str, Any] = json.loads(text)
    properties = schema.get("properties", {})
    for name, rule in _LENIENT.items():
        if name in properties:
            properties[name] = dict(rule)
    return schema


@cache
def _validator(operation: str) -> Draft202012Validator | None:
    schema = operation_schema(operation)
    # Patterns as JSON Schema means them (ECMA-262): the service takes exactly what the schema allows.
    return validator_for(schema) if schema is not None else None


@cache
def _predicate(operation: str) -> Predicate | None:
    """The quick yes/no of a body (``fastschema``, patterns read as ECMA-262 ones): a valid body, the
    usual case, costs no jsonschema walk (a tenth of a job's creation)."""
    schema = operation_schema(operation)
    return compile_predicate(schema, translate=to_python) if schema is not None else None


_WORDS = {
    "type": "must be of type {}",
    "minimum": "must be at least {}",
    "maximum": "must be at most {}",
    "exclusiveMinimum": "must be greater than {}",
    "minLength": "must have at least {} character(s)",
    "maxLength": "must have at most {} character(s)",
    "minItems": "must have at least {} item(s)",
    "pattern": "must match the pattern {}",
    "enum": "must be one of {}",
    "const": "must be {}",
}


def _message(error: ValidationError) -> str:
    rule = str(error.validator)
    shown = json.dumps(error.validator_value)
    if len(shown) > 80:
        shown = shown[:60] + " ..."
    return f"The value {_WORDS.get(rule, 'fails the rule ' + rule + ': {}').format(shown)}."


def _field(path: Iterable[Any]) -> str:
    return ".".join(str(part) for part in path)


_FORMAT_FIELDS = frozenset({"input_format", "output_format"})


def schema_errors(task: Mapping[str, Any], prefix: str = "") -> dict[str, list[str]]:
    """{field path: [messages]} of ``task`` against its operation's schema (empty when valid)."""
    operation = str(task.get("operation"))
    if _schema_text(operation) is None:
        return {}
    # Formats as the service reads them ("JPEG", ".jpeg" are jpg): a spelling the service accepts and
    # normalises must not be refused here.
    body = {
        key: normalize_listing_format(value) if key in _FORMAT_FIELDS and isinstance(value, str) else value
        for key, value in task.items()
    }
    quick = _predicate(operation)
    if quick is not None and quick(body):
        return {}
    validator = _validator(operation)
    assert validator is not None  # the operation has a schema (its text was found above)
    errors: dict[str, list[str]] = {}
    for error in validator.iter_errors(body):
        if error.validator == "required" and isinstance(error.instance, dict):
            found = [
                ([*error.absolute_path, name], f"The {name} field is required.")
                for name in error.validator_value
                if name not in error.instance
            ]
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = error.schema.get("properties", {})
            found = [
                ([*error.absolute_path, name], f"The field {name} is unknown to {task.get('operation')}.")
                for name in error.instance
                if name not in known
            ]
        else:
            found = [(list(error.absolute_path), _message(error))]
        for path, message in found:
            key = prefix + _field(path) if path else prefix.rstrip(".") or "body"
            if message not in errors.setdefault(key, []):
                errors[key].append(message)
    return errors
