"""One JSON Schema per conversion type for its options, derived lazily and compiled once.

``validator_for`` derives the schema of one key the first time a task asks for it, compiles it to
plain predicates (a check must stay cheap at thousands of rows per second) and keeps them on the
catalog: checking a task costs the same with 100 or 100,000 conversion types, and nothing is derived
for types no task uses.

>>> from mcv_pipelines.catalog.model import Descriptor, OptionDef
>>> d = Descriptor("convert", "jpg", "png", "im", options=(OptionDef("quality", "integer", 80),))
>>> derive_schema(d)["properties"]["quality"]
{'type': 'integer', 'default': 80}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import Descriptor, OptionDef

__all__ = ["OptionsValidator", "derive_schema", "option_schema", "validator_for"]

_JSON_TYPES = {
    "string": "string",
    "boolean": "boolean",
    "integer": "integer",
    "float": "number",
    "dictionary": "object",
}


def option_schema(opt: OptionDef) -> dict[str, Any]:
    """The schema of one option's value; null is allowed where the listing's default is null."""
    nullable = opt.default is None
    schema: dict[str, Any]
    if opt.type == "enum":
        values = list(opt.possible_values or ())
        if nullable and None not in values:
            values.append(None)
        schema = {"enum": values}
    else:
        kind = _JSON_TYPES[opt.type]
        schema = {"type": [kind, "null"] if nullable else kind}
    schema["default"] = opt.default
    if opt.description:
        schema["description"] = opt.description
    return schema


def derive_schema(desc: Descriptor) -> dict[str, Any]:
    """The JSON Schema (2020-12) of a conversion type's options.

    Unknown keys are allowed here: they are judged by the checker (with a did-you-mean), which knows
    which task keys are not options.
    """
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"options of {desc.key}",
        "type": "object",
        "properties": {opt.name: option_schema(opt) for opt in desc.options or ()},
    }


def _is_type(kind: str, value: Any) -> bool:
    # The JSON Schema type rules: bool is not a number; 2.0 is an integer.
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, int | float)
    if kind == "string":
        return isinstance(value, str)
    if kind == "object":
        return isinstance(value, dict)
    return kind == "array" and isinstance(value, list)


def _in_enum(value: Any, values: list[Any]) -> bool:
    # JSON equality: true is not 1.
    return any(value == v and isinstance(value, bool) == isinstance(v, bool) for v in values)


def _predicate(schema: dict[str, Any]) -> Callable[[Any], bool]:
    if "enum" in schema:
        values = list(schema["enum"])
        return lambda value: _in_enum(value, values)
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    return lambda value: any(_is_type(k, value) for k in kinds)


class OptionsValidator:
    """A derived schema compiled to one predicate per option: names the options whose value fails.

    It understands exactly the keywords ``derive_schema`` writes (``type``, ``enum``); the tests hold
    it to jsonschema's verdict on the same schema.
    """

    __slots__ = ("_checks", "schema")

    def __init__(self, schema: dict[str, Any]) -> None:
        self.schema = schema
        self._checks = {name: _predicate(sub) for name, sub in schema["properties"].items()}

    def invalid(self, values: Mapping[str, Any]) -> list[str]:
        """Names (in ``values`` order) of listed options whose value does not fit the schema."""
        checks = self._checks
        return [name for name, value in values.items() if name in checks and not checks[name](value)]


def validator_for(catalog: Catalog, desc: Descriptor) -> OptionsValidator:
    """The compiled validator of ``desc``'s options, derived on first use and cached by key."""
    validator: OptionsValidator | None = catalog.validators.get(desc.key)
    if validator is None:
        validator = OptionsValidator(derive_schema(desc))
        catalog.validators[desc.key] = validator
        catalog.derivations += 1
    return validator
