"""One JSON Schema per conversion type for its options, derived lazily and compiled once.

``validator_for`` derives the schema of one key the first time a task asks for it and keeps the
compiled validator on the catalog: checking a task costs the same with 100 or 100,000 conversion
types, and nothing is derived for types no task uses.

>>> from mcv_pipelines.catalog.model import Descriptor, OptionDef
>>> d = Descriptor("convert", "jpg", "png", "im", options=(OptionDef("quality", "integer", 80),))
>>> derive_schema(d)["properties"]["quality"]
{'type': 'integer', 'default': 80}
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.protocols import Validator

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import Descriptor, OptionDef

__all__ = ["derive_schema", "option_schema", "validator_for"]

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


def validator_for(catalog: Catalog, desc: Descriptor) -> Validator:
    """The compiled validator of ``desc``'s options, derived on first use and cached by key."""
    validator: Validator | None = catalog.validators.get(desc.key)
    if validator is None:
        validator = Draft202012Validator(derive_schema(desc))
        catalog.validators[desc.key] = validator
        catalog.derivations += 1
    return validator
