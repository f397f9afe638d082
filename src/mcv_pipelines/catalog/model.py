"""The catalog's values: one ``Descriptor`` per conversion type, found by its ``ConversionKey``.

These are the immutable, validated form of GET /v2/operations entries; raw dicts never travel past
``snapshot.parse_listing``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

__all__ = [
    "OPTION_TYPES",
    "ConversionKey",
    "Descriptor",
    "EngineVersionDef",
    "OptionDef",
    "OptionType",
]

OptionType = Literal["string", "boolean", "integer", "float", "enum", "dictionary"]
OPTION_TYPES: tuple[OptionType, ...] = ("string", "boolean", "integer", "float", "enum", "dictionary")


class ConversionKey(NamedTuple):
    """What identifies a conversion type; formats are lowercase extensions (``jpg``, ``tar.gz``)."""

    operation: str
    input_format: str
    output_format: str
    engine: str

    def __str__(self) -> str:
        return f"{self.operation} {self.input_format} -> {self.output_format} ({self.engine})"


class OptionDef(NamedTuple):
    """One option of a conversion type (a NamedTuple: a listing holds hundreds of thousands)."""

    name: str
    type: OptionType
    default: Any = None
    possible_values: tuple[Any, ...] | None = None
    description: str | None = None


class EngineVersionDef(NamedTuple):
    version: str
    default: bool = False
    latest: bool = False
    deprecated: bool = False
    experimental: bool = False


@dataclass(frozen=True, slots=True)
class Descriptor:
    """One conversion type. ``default`` marks the engine used when a task names none."""

    operation: str
    input_format: str
    output_format: str
    engine: str
    credits: int | None = None
    options: tuple[OptionDef, ...] | None = None  # None: the listing gave no options for this type
    engine_versions: tuple[EngineVersionDef, ...] = ()
    deprecated: bool = False
    experimental: bool = False
    default: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)
    key: ConversionKey = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Computed once: lookups and sorting use it for every type in the catalog.
        key = ConversionKey(self.operation, self.input_format, self.output_format, self.engine)
        object.__setattr__(self, "key", key)

    def option(self, name: str) -> OptionDef | None:
        for opt in self.options or ():
            if opt.name == name:
                return opt
        return None
