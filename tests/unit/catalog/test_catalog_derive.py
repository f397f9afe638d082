"""Derived option schemas: their shapes, and that they are built lazily, once per key."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from mcv_pipelines.catalog.check import check_task
from mcv_pipelines.catalog.derive import derive_schema, option_schema, validator_for
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor, OptionDef
from mcv_pipelines.diagnostics import Location


@pytest.mark.parametrize(
    ("option", "schema"),
    [
        (OptionDef("s", "string", "x"), {"type": "string", "default": "x"}),
        (OptionDef("s", "string"), {"type": ["string", "null"], "default": None}),
        (OptionDef("b", "boolean", True), {"type": "boolean", "default": True}),
        (OptionDef("i", "integer", 3), {"type": "integer", "default": 3}),
        (OptionDef("f", "float", 0.5), {"type": "number", "default": 0.5}),
        (OptionDef("d", "dictionary"), {"type": ["object", "null"], "default": None}),
        (OptionDef("e", "enum", "a", ("a", "b")), {"enum": ["a", "b"], "default": "a"}),
        (OptionDef("e", "enum", None, ("a", "b")), {"enum": ["a", "b", None], "default": None}),
        (
            OptionDef("s", "string", "x", description="Why"),
            {"type": "string", "default": "x", "description": "Why"},
        ),
    ],
)
def test_option_schema_shapes(option: OptionDef, schema: dict[str, Any]) -> None:
    assert option_schema(option) == schema


def test_derived_schema_is_an_object_of_the_options(catalog: Catalog) -> None:
    desc = catalog.get(ConversionKey("convert", "jpg", "webp", "imagemagick"))
    assert desc is not None
    schema = derive_schema(desc)
    assert schema["type"] == "object"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert sorted(schema["properties"]) == ["height", "lossless", "quality", "width"]
    assert schema["properties"]["quality"] == {"type": "integer", "default": 82}


def test_validators_are_derived_only_for_the_keys_tasks_use_and_only_once(catalog: Catalog) -> None:
    assert catalog.derivations == 0  # loading derives nothing
    here = Location("p.yaml", 1, 1)
    for quality in (1, 50, 100, "bad"):
        check_task(
            catalog,
            operation="convert",
            input_format="jpg",
            output_format="webp",
            engine=None,
            engine_version=None,
            options={"quality": quality},
            locate=lambda _p: here,
            task_location=here,
            task_name="t",
        )
    assert catalog.derivations == 1
    assert list(catalog.validators) == [ConversionKey("convert", "jpg", "webp", "imagemagick")]
    desc = catalog.get(ConversionKey("convert", "jpg", "webp", "imagemagick"))
    assert desc is not None
    assert validator_for(catalog, desc) is validator_for(catalog, desc)
    assert catalog.derivations == 1


def test_a_task_without_options_derives_nothing(catalog: Catalog) -> None:
    here = Location("p.yaml", 1, 1)
    check_task(
        catalog,
        operation="convert",
        input_format="jpg",
        output_format="png",
        engine=None,
        engine_version=None,
        options={"operation": "convert", "output_format": "png"},
        locate=lambda _p: here,
        task_location=here,
        task_name="t",
    )
    assert catalog.derivations == 0


def test_derivation_cost_does_not_touch_other_types() -> None:
    many = Catalog(
        Descriptor("convert", f"f{i}", "png", "e", options=(OptionDef("q", "integer", 1),), default=True)
        for i in range(2000)
    )
    desc = many.get(ConversionKey("convert", "f1234", "png", "e"))
    assert desc is not None
    validator_for(many, desc)
    assert many.derivations == 1
    assert len(many.validators) == 1


SAMPLES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    2.0,
    2.5,
    -3,
    "",
    "max",
    "a4",
    "1",
    [],
    [1],
    {},
    {"a": 1},
    150.0,
]


def test_compiled_validators_agree_with_jsonschema_on_every_option(catalog: Catalog) -> None:
    """The fast compiled form must give jsonschema's verdict on the derived schema, value by value."""
    compared = 0
    for desc in catalog:
        if not desc.options:
            continue
        compiled = validator_for(catalog, desc)
        reference = Draft202012Validator(derive_schema(desc))
        Draft202012Validator.check_schema(derive_schema(desc))
        for opt in desc.options:
            for value in [*SAMPLES, *(opt.possible_values or ())]:
                expected = reference.is_valid({opt.name: value})
                assert (compiled.invalid({opt.name: value}) == []) == expected, (desc.key, opt, value)
                compared += 1
    assert compared > 500
