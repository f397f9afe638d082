"""The pipeline schema editors use: the file's outline plus every operation's options (issue 12).

``build_editor_schema`` fills the outline (``outline``) with one subschema per operation, made from
its schema in schemas/operations/ and what the catalog lists for it: allowed keys (anything else is
flagged), types, enums (formats, engines, engine versions, option values), defaults and descriptions
(``markdownDescription`` too, for hover). A task picks its operation's subschema with ``if``/``then``
on ``operation``, which yaml-language-server follows for completion, hover and diagnostics. Every typed
value also takes a template (``templated``). ``dumps_editor_schema`` gives the committed text of
schemas/pipeline.schema.json: sorted keys, stable lists, so the same inputs make the same bytes.

    mcv schema -o schemas/pipeline.schema.json           # the default catalog
    mcv schema --catalog my-service.json > my.schema.json
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.formats import FORMAT_ALIASES, listing_formats
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.keys import is_option_key
from mcv_pipelines.catalog.summary import OperationSummary, OptionSummary, summarise
from mcv_pipelines.errors import InvalidInput
from mcv_pipelines.pipeline.opcheck import OperationSchemas, schema_file_name
from mcv_pipelines.pipeline.outline import TEMPLATE, outline_schema, runner_properties
from mcv_pipelines.pipeline.templated import tolerant, tolerant_value

__all__ = ["build_editor_schema", "dumps_editor_schema", "operation_def_name"]

# Keys of an operation schema that constrain the task as a whole; kept under the subschema's allOf.
_COMBINATORS = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
# Formats a listing keys on that no task writes: an enum of them would only mislead.
_PLACEHOLDER_FORMATS = frozenset({"any", "website"})


def operation_def_name(operation: str) -> str:
    """The ``$defs`` name of an operation's subschema: ``import/url`` -> ``operation-import-url``."""
    return "operation-" + schema_file_name(operation).removesuffix(".schema.json")


def _code(value: Any) -> str:
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def _markdown(schema: dict[str, Any], extra: list[str]) -> dict[str, Any]:
    """``schema`` with a markdownDescription: its description, then its default and ``extra`` lines."""
    lines = [schema["description"]] if schema.get("description") else []
    kinds = schema.get("type")
    if kinds and schema.get("type") != "object":
        names = [kinds] if isinstance(kinds, str) else kinds
        lines.append("Type: " + " or ".join(f"`{name}`" for name in names) + ".")
    if "default" in schema:
        lines.append(f"Default: {_code(schema['default'])}.")
    lines.extend(extra)
    if lines:
        schema["markdownDescription"] = "\n\n".join(lines)
    return schema


def _fits(value: Any, kinds: Any) -> bool:
    if kinds is None:
        return True
    names = [kinds] if isinstance(kinds, str) else list(kinds)
    checks = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "null": value is None,
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
    }
    return any(checks.get(name, False) for name in names)


def _common_types(static: Any, listed: Any) -> list[str]:
    """Types both schemas allow (an integer is a number)."""
    mine = [static] if isinstance(static, str) else list(static)
    theirs = {listed} if isinstance(listed, str) else set(listed)
    if "number" in theirs:
        theirs.add("integer")
    return [t for t in mine if t in theirs or (t == "number" and "integer" in theirs)]


def _merge_option(static: dict[str, Any] | None, option: OptionSummary) -> dict[str, Any]:
    """The operation schema's rule for an option narrowed by what the catalog allows for it.

    Both apply to a task (the operation check and the catalog check), so a value must fit both.
    """
    listed = option.schema()
    if static is None:
        return listed
    out = dict(static)
    if "enum" in listed and "const" not in out:
        allowed = [v for v in listed["enum"] if _fits(v, out.get("type"))]
        if "enum" in out:
            allowed = [v for v in out["enum"] if v in allowed]
        if allowed:
            out["enum"] = allowed
    elif "type" in listed and "type" in out:
        common = _common_types(out["type"], listed["type"])
        if common:
            out["type"] = common[0] if len(common) == 1 else common
    for key in ("default", "description"):
        if key not in out and key in listed:
            out[key] = listed[key]
    return out


def _with_enum(schema: dict[str, Any], values: list[str]) -> dict[str, Any]:
    allowed = [v for v in values if v not in _PLACEHOLDER_FORMATS]
    if not allowed:
        return schema
    if "enum" in schema:
        allowed = [v for v in schema["enum"] if v in allowed] or list(schema["enum"])
    return {**schema, "enum": allowed}


def _formats(values: tuple[str, ...] | list[str]) -> list[str]:
    """Formats as the listing spells them, then the other spellings mcv reads as one of them."""
    return [*values, *sorted(alias for alias, name in FORMAT_ALIASES.items() if name in values)]


def _catalogued(
    props: dict[str, Any], summary: OperationSummary, catalog: Catalog, closed: bool
) -> list[str]:
    """Narrow the formats, engine and version keys to the catalog's and add its options (unless the
    operation schema is ``closed`` to keys it does not list); the markdown line that says so."""
    operation = summary.operation
    fixed_input, _ = listing_formats(operation, None, None)
    outputs = catalog.output_formats(operation, fixed_input) if fixed_input else summary.output_formats
    for key, values in (
        ("output_format", _formats(outputs)),
        ("input_format", _formats(summary.input_formats)),
        ("engine", list(summary.engines)),
        ("engine_version", list(summary.engine_versions)),
    ):
        if key in props and isinstance(props[key], dict):
            props[key] = _with_enum(props[key], values)
    for name, option in summary.options.items():
        if name in props and not is_option_key(operation, name):
            continue  # a task field or payload key (command's `command`): the catalog check skips it too
        if name not in props and closed:
            continue  # the operation check rejects a key its schema does not list, whatever the catalog says
        props[name] = _merge_option(props.get(name), option)
        engines = ", ".join(option.engines)
        _markdown(props[name], [f"Engines: {engines}."])
    return [f"Engines: {', '.join(summary.engines)}."] if summary.engines else []


def _operation_def(
    operation: str, static: dict[str, Any], summary: OperationSummary | None, catalog: Catalog | None
) -> dict[str, Any]:
    props: dict[str, Any] = {**runner_properties(), **static.get("properties", {})}
    notes: list[str] = []
    if summary is not None and catalog is not None:
        notes = _catalogued(props, summary, catalog, static.get("additionalProperties") is False)
    for name, prop in props.items():
        if isinstance(prop, dict) and "markdownDescription" not in prop:
            props[name] = _markdown(dict(prop), [])
    # closed where the checks reject an unknown key: the operation schema says so, or every conversion
    # type of the operation lists its options (one that lists none takes any, with a warning)
    closed = static.get("additionalProperties") is False or (summary is not None and summary.options_listed)
    sub: dict[str, Any] = {
        "type": "object",
        "title": static.get("title", f"{operation} task"),
        "properties": props,
        "additionalProperties": not closed,
    }
    if static.get("description"):
        sub["description"] = static["description"]
    _markdown(sub, notes)
    if static.get("required"):
        sub["required"] = list(static["required"])
    whole = {key: static[key] for key in _COMBINATORS if key in static}
    if whole:
        sub["allOf"] = [whole]
    result: dict[str, Any] = tolerant(sub)
    return result


def _operation_key(operations: list[str], descriptions: dict[str, str]) -> dict[str, Any]:
    lines = [f"- `{op}`: {descriptions[op]}" if descriptions.get(op) else f"- `{op}`" for op in operations]
    return {
        "type": "string",
        "enum": operations,
        "description": "The operation this task runs.",
        "markdownDescription": "The operation this task runs:\n\n" + "\n".join(lines),
        "enumDescriptions": [descriptions.get(op, "") for op in operations],
        "markdownEnumDescriptions": [descriptions.get(op, "") for op in operations],
    }


def _read_static(registry: OperationSchemas, operation: str) -> dict[str, Any]:
    entry = registry.directory / schema_file_name(operation)
    try:
        data = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInput(f"{entry}: cannot read the schema of {operation}: {exc}") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{entry}: the schema of {operation} is not a JSON object; fix or remove it")
    return data


def build_editor_schema(catalog: Catalog | None, schemas: OperationSchemas | None = None) -> dict[str, Any]:
    """The full pipeline schema for ``catalog`` (None: the operation schemas alone).

    ``schemas`` is the operation schema directory (default: the shipped schemas/operations/).
    """
    registry = schemas if schemas is not None else OperationSchemas()
    schema = outline_schema()
    defs: dict[str, Any] = schema["$defs"]
    task: dict[str, Any] = defs["task"]
    operations: list[str] = []
    descriptions: dict[str, str] = {}
    branches: list[dict[str, Any]] = []
    for operation in registry.available():
        static = _read_static(registry, operation)
        listed = catalog is not None and catalog.has_operation(operation)
        summary = summarise(catalog, operation) if catalog is not None and listed else None
        name = operation_def_name(operation)
        defs[name] = _operation_def(operation, static, summary, catalog)
        operations.append(operation)
        descriptions[operation] = static.get("description", "")
        branches.append(
            {
                "if": {"properties": {"operation": {"const": operation}}, "required": ["operation"]},
                "then": {"$ref": f"#/$defs/{name}"},
            }
        )
    task["properties"]["operation"] = tolerant_value(_operation_key(operations, descriptions))
    task["allOf"] = branches
    defs["template"] = dict(TEMPLATE)
    if catalog is not None:
        # the file name only: a path would differ from machine to machine
        schema["$comment"] = (
            f"Made by `mcv schema` from the operation schemas and the catalog {Path(catalog.source).name}."
        )
    return schema


def dumps_editor_schema(schema: dict[str, Any]) -> str:
    """The schema's committed text: two-space indents, sorted keys, one trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
