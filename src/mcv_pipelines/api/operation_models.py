"""The operations listing's models: one conversion type, its options and its engine versions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcv_pipelines.api.model_fields import as_object, flag, optional_int, optional_str, required_str

__all__ = ["EngineVersionInfo", "Operation", "OptionInfo"]


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a conversion type as the listing describes it."""

    name: str
    type: str
    default: Any = None
    possible_values: tuple[Any, ...] | None = None
    description: str | None = None

    @classmethod
    def from_json(cls, data: Any) -> OptionInfo:
        obj = as_object(data, "an option")
        values = obj.get("possible_values")
        return cls(
            name=required_str(obj, "name", "an option"),
            type=optional_str(obj, "type") or "string",
            default=obj.get("default"),
            possible_values=tuple(values) if isinstance(values, list) else None,
            description=optional_str(obj, "description"),
        )


@dataclass(frozen=True, slots=True)
class EngineVersionInfo:
    version: str
    default: bool = False
    latest: bool = False
    deprecated: bool = False
    experimental: bool = False

    @classmethod
    def from_json(cls, data: Any) -> EngineVersionInfo:
        obj = as_object(data, "an engine version")
        return cls(
            version=required_str(obj, "version", "an engine version"),
            default=flag(obj, "default"),
            latest=flag(obj, "latest"),
            deprecated=flag(obj, "deprecated"),
            experimental=flag(obj, "experimental"),
        )


@dataclass(frozen=True, slots=True)
class Operation:
    """One conversion type of the operations/formats listing (operation, formats, engine)."""

    operation: str
    input_format: str
    output_format: str
    engine: str
    credits: int | None = None
    options: tuple[OptionInfo, ...] = ()
    engine_versions: tuple[EngineVersionInfo, ...] = ()
    deprecated: bool = False
    experimental: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, data: Any) -> Operation:
        obj = as_object(data, "an operation")
        options = obj.get("options") or []
        versions = obj.get("engine_versions") or []
        meta = obj.get("meta")
        return cls(
            operation=required_str(obj, "operation", "an operation"),
            input_format=optional_str(obj, "input_format") or "",
            output_format=optional_str(obj, "output_format") or "",
            engine=optional_str(obj, "engine") or "",
            credits=optional_int(obj, "credits"),
            options=tuple(OptionInfo.from_json(o) for o in options) if isinstance(options, list) else (),
            engine_versions=(
                tuple(EngineVersionInfo.from_json(v) for v in versions) if isinstance(versions, list) else ()
            ),
            deprecated=flag(obj, "deprecated"),
            experimental=flag(obj, "experimental"),
            meta=dict(meta) if isinstance(meta, Mapping) else {},
            raw=dict(obj),
        )
