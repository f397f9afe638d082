"""Declared parameters: coercion once at the boundary, then JSON Schema validation.

Values arrive as strings (``-p k=v``, a CSV cell) or typed (a params file, a JSONL cell). Strings are
coerced to the declared type here and nowhere else: "320" becomes 320 for an integer param, "007"
stays "007" for a string param. Then each value is validated against its param's schema.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import yaml

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.errors import UsageError
from mcv_pipelines.pipeline.document import Document
from mcv_pipelines.pipeline.fastschema import Predicate, compile_predicate, plainly_valid_schema
from mcv_pipelines.pipeline.model import Params
from mcv_pipelines.pipeline.suggest import did_you_mean
from mcv_pipelines.redact import register_secret

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = ["coerce", "declared_params", "parse_assignments", "read_params_file", "resolve_params"]

_INT = re.compile(r"^[+-]?\d+$")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_BOOL_HINT = "YAML 1.1 reads unquoted yes/no/on/off as booleans; quote the value in the params file"


def declared_params(document: Document) -> dict[str, dict[str, Any]]:
    """The ``params`` section as name -> schema (non-mapping entries are left to the file schema)."""
    params = document.data.get("params") if isinstance(document.data, dict) else None
    if not isinstance(params, dict):
        return {}
    return {name: spec for name, spec in params.items() if isinstance(spec, dict)}


def _types(schema: Mapping[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    return []


def _coerce_one(text: str, kind: str, schema: Mapping[str, Any]) -> Any:
    stripped = text.strip()
    if kind == "string":
        return text
    if kind == "integer":
        if _INT.match(stripped):
            return int(stripped)
        raise ValueError(f"{text!r} is not an integer")
    if kind == "number":
        if _INT.match(stripped):
            return int(stripped)
        try:
            number = float(stripped)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None
        if not math.isfinite(number):
            raise ValueError(f"{text!r} is not a finite number")
        return number
    if kind == "boolean":
        if stripped.lower() in _TRUE:
            return True
        if stripped.lower() in _FALSE:
            return False
        raise ValueError(f"{text!r} is not a boolean (use true or false)")
    if kind == "null":
        if stripped in ("", "null"):
            return None
        raise ValueError(f"{text!r} is not null")
    if kind in ("array", "object"):
        if kind == "array" and not stripped.startswith("["):
            items = schema.get("items")
            item_schema = items if isinstance(items, dict) else {}
            if not stripped:
                return []
            return [coerce(part.strip(), item_schema) for part in stripped.split(",")]
        try:
            value = json.loads(stripped)
        except ValueError:
            raise ValueError(f"{text!r} is not a JSON {kind}") from None
        if (kind == "array") != isinstance(value, list) or (kind == "object" and not isinstance(value, dict)):
            raise ValueError(f"{text!r} is not a JSON {kind}")
        return value
    raise ValueError(f"unknown type {kind!r}")


def coerce(value: Any, schema: Mapping[str, Any]) -> Any:
    """Coerce a string ``value`` to the type ``schema`` declares; other values pass unchanged.

    >>> coerce("320", {"type": "integer"}), coerce("007", {"type": "string"})
    (320, '007')
    """
    if not isinstance(value, str):
        return value
    kinds = _types(schema)
    if not kinds or "string" in kinds:
        return value
    errors: list[str] = []
    for kind in kinds:
        try:
            return _coerce_one(value, kind, schema)
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError("; ".join(errors))


class _Compiled:
    """Per-document compiled param validators and static problems (built once, reused per row).

    A plain param schema is checked and applied by ``fastschema``; jsonschema is imported only for
    what that cannot judge, or to word a value's problems."""

    def __init__(self, document: Document) -> None:
        self.specs = declared_params(document)
        self._validators: dict[str, Draft202012Validator] = {}
        self.predicates: dict[str, Predicate | None] = {}
        self.locations: dict[str, Location] = {}
        self.diagnostics: list[Diagnostic] = []
        for name, spec in self.specs.items():
            location = document.locate_key(("params", name))
            self.locations[name] = location
            if not plainly_valid_schema(spec):
                from jsonschema import Draft202012Validator
                from jsonschema.exceptions import SchemaError

                try:
                    Draft202012Validator.check_schema(spec)
                except SchemaError as exc:
                    self.diagnostics.append(
                        Diagnostic(
                            "param-schema",
                            Severity.ERROR,
                            f"param {name}: invalid schema: {exc.message}",
                            location,
                        )
                    )
                    continue
            self.predicates[name] = compile_predicate(spec)
            for key in ("default", "example"):
                if key in spec:
                    self._check_static(document, name, key, spec[key])

    def validator(self, name: str) -> Draft202012Validator | None:
        """jsonschema's validator of a param whose schema is valid; None for an unknown or invalid one."""
        if name not in self.predicates:
            return None
        found = self._validators.get(name)
        if found is None:
            from jsonschema import Draft202012Validator

            found = self._validators[name] = Draft202012Validator(self.specs[name])
        return found

    def valid(self, name: str, value: Any) -> bool:
        predicate = self.predicates.get(name)
        if predicate is not None:
            return predicate(value)
        validator = self.validator(name)
        return validator is None or validator.is_valid(value)

    def _check_static(self, document: Document, name: str, key: str, value: Any) -> None:
        if self.valid(name, value):
            return
        validator = self.validator(name)
        assert validator is not None  # its schema was found valid
        path = ("params", name, key)
        for error in validator.iter_errors(value):
            written = document.yaml11_bools.get(path)
            hint = f"quote it: {key}: {written!r}" if written and error.validator == "type" else None
            self.diagnostics.append(
                Diagnostic(
                    "param-type" if error.validator == "type" else "param-invalid",
                    Severity.ERROR,
                    f"param {name}: the {key} {error.message}",
                    document.locate(path),
                    hint=hint,
                )
            )


def _compiled(document: Document) -> _Compiled:
    compiled = document.cache.get("params")
    if compiled is None:
        compiled = document.cache["params"] = _Compiled(document)
    assert isinstance(compiled, _Compiled)
    return compiled


def resolve_params(
    document: Document, values: Mapping[str, Any], *, source: str = "command line", use_examples: bool = False
) -> tuple[Params | None, list[Diagnostic]]:
    """Coerce and validate ``values`` against the declared params; fill defaults (and examples).

    Returns ``(Params, [])`` when all is well, else ``(None, diagnostics)``; each diagnostic sits at
    the param's declaration and names ``source`` (``command line``, ``params.yaml``, ``row 7``...).
    """
    compiled = _compiled(document)
    diagnostics = list(compiled.diagnostics)
    specs = compiled.specs
    resolved: dict[str, Any] = {}
    for name, raw in values.items():
        if name not in specs:
            diagnostics.append(
                Diagnostic(
                    "param-unknown",
                    Severity.ERROR,
                    f"unknown param {name!r} (from {source})",
                    document.locate_key(("params",)),
                    hint=did_you_mean(name, specs) or f"declared params: {', '.join(specs) or 'none'}",
                )
            )
            continue
        try:
            resolved[name] = coerce(raw, specs[name])
        except ValueError as exc:
            diagnostics.append(
                Diagnostic(
                    "param-type",
                    Severity.ERROR,
                    f"param {name} (from {source}): {exc}",
                    compiled.locations[name],
                )
            )
    for name, spec in specs.items():
        if name in resolved or name in values:
            continue
        if "default" in spec:
            resolved[name] = spec["default"]
        elif use_examples and "example" in spec:
            resolved[name] = spec["example"]
        elif use_examples and isinstance(spec.get("examples"), list) and spec["examples"]:
            resolved[name] = spec["examples"][0]
        else:
            diagnostics.append(
                Diagnostic(
                    "param-missing",
                    Severity.ERROR,
                    f"param {name} needs a value (it has no default)",
                    compiled.locations[name],
                    hint=f"give it with -p {name}=VALUE, or declare a default",
                )
            )
            continue
    for name, value in resolved.items():
        if name not in values:
            continue  # defaults and examples were checked once, statically
        if compiled.valid(name, value):
            continue
        validator = compiled.validator(name)
        if validator is None:
            continue
        for error in validator.iter_errors(value):
            diagnostics.append(
                Diagnostic(
                    "param-type" if error.validator == "type" else "param-invalid",
                    Severity.ERROR,
                    f"param {name} (from {source}): {error.message}",
                    compiled.locations[name],
                    hint=_BOOL_HINT if isinstance(value, bool) and error.validator == "type" else None,
                )
            )
    if any(d.is_error for d in diagnostics):
        return None, diagnostics
    for name, value in resolved.items():
        if specs[name].get("secret") is True and isinstance(value, str):
            register_secret(value)  # a param declared secret is shown as *** like secret() values
    return Params(resolved, source), diagnostics


def read_params_file(path: str) -> dict[str, Any]:
    """Param values from a YAML or JSON file (a mapping of name to value); raises UsageError."""
    try:
        with open(path, "rb") as handle:
            data = yaml.safe_load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read params file {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"params file {path} is not valid YAML or JSON: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise UsageError(f"params file {path} must be a mapping of param name to value")
    return data


def parse_assignments(pairs: Sequence[str]) -> dict[str, str]:
    """``["k=v", ...]`` from ``-p`` into a mapping; the value stays a string until ``coerce``."""
    values: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"-p needs NAME=VALUE, got {pair!r}")
        values[name.strip()] = value
    return values
