"""What a catalog says about one operation as a whole: its formats, engines, versions and options.

A task's conversion type is known only once its input format is (often only along the graph), so an
editor's schema describes the operation: an option is listed if any of the operation's conversion
types lists it, with every type and value any of them allows. Everything is in a stable order (the
catalog's key order, first seen first), so a schema made from it is the same on every run.

>>> from mcv_pipelines.catalog.index import Catalog
>>> from mcv_pipelines.catalog.model import Descriptor, OptionDef
>>> quality = OptionDef("quality", "integer", 80)
>>> cat = Catalog([Descriptor("convert", "jpg", "png", "pillow", options=(quality,))])
>>> summarise(cat, "convert").options["quality"].types
('integer',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import Descriptor, OptionType

__all__ = ["OperationSummary", "OptionSummary", "summarise"]

_NO_DEFAULT = object()
_JSON_TYPES = {"string": "string", "boolean": "boolean", "integer": "integer", "float": "number",
               "dictionary": "object"}


@dataclass(frozen=True, slots=True)
class OptionSummary:
    """One option name across an operation's conversion types.

    ``types`` holds the listing's types (``enum`` among them when some type lists values);
    ``values`` every listed value of the enum ones; ``default`` is set only when every type that
    lists the option agrees on it; ``engines`` the engines whose types list it.
    """

    name: str
    types: tuple[OptionType, ...]
    values: tuple[Any, ...]
    nullable: bool
    default: Any
    has_default: bool
    description: str | None
    engines: tuple[str, ...]

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of a value some conversion type of the operation takes for this option.

        >>> OptionSummary("fit", ("enum",), ("max", "crop"), False, "max", True, None, ("pillow",)).schema()
        {'enum': ['max', 'crop'], 'default': 'max'}
        """
        kinds = [_JSON_TYPES[t] for t in self.types if t != "enum"]
        null = [None] if self.nullable else []
        out: dict[str, Any]
        if "enum" not in self.types:
            kinds += ["null"] if self.nullable else []
            out = {"type": kinds[0] if len(kinds) == 1 else kinds}
        elif not kinds:
            out = {"enum": [*self.values, *(v for v in null if v not in self.values)]}
        else:
            out = {"anyOf": [{"enum": list(self.values)}, {"type": [*kinds, *(["null"] if null else [])]}]}
        if self.has_default:
            out["default"] = self.default
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True, slots=True)
class OperationSummary:
    """An operation's formats, engines, engine versions and options in one catalog.

    ``engine_versions`` is empty when some conversion type of the operation lists none;
    ``options_listed`` is False when some type lists no options (the catalog check then takes any).
    """

    operation: str
    input_formats: tuple[str, ...]
    output_formats: tuple[str, ...]
    engines: tuple[str, ...]
    engine_versions: tuple[str, ...]
    options: dict[str, OptionSummary]
    options_listed: bool


def _add(seen: list[Any], value: Any) -> None:
    # JSON equality (true is not 1) decides what is already there; a list keeps the first-seen order.
    if not any(value == v and type(value) is type(v) for v in seen):
        seen.append(value)


class _Option:
    def __init__(self, name: str) -> None:
        self.name = name
        self.types: list[OptionType] = []
        self.values: list[Any] = []
        self.defaults: list[Any] = []
        self.descriptions: list[str] = []
        self.engines: list[str] = []

    def take(self, desc: Descriptor, type_: OptionType, default: Any, values: Any, text: str | None) -> None:
        _add(self.types, type_)
        for value in values or ():
            _add(self.values, value)
        _add(self.defaults, default)
        if text:
            _add(self.descriptions, text)
        _add(self.engines, desc.engine)

    def summary(self) -> OptionSummary:
        agreed = self.defaults[0] if len(self.defaults) == 1 else _NO_DEFAULT
        return OptionSummary(
            name=self.name,
            types=tuple(self.types),
            values=tuple(self.values),
            # derive.option_schema allows null wherever a listing's default is null
            nullable=None in self.defaults,
            default=None if agreed is _NO_DEFAULT else agreed,
            has_default=agreed is not _NO_DEFAULT and agreed is not None,
            description=self.descriptions[0] if self.descriptions else None,
            engines=tuple(sorted(self.engines)),
        )


def summarise(catalog: Catalog, operation: str) -> OperationSummary:
    """Everything ``catalog`` lists for ``operation`` (empty when it lists nothing)."""
    options: dict[str, _Option] = {}
    versions: list[str] = []
    unversioned = False
    unlisted = False
    for key in catalog.keys():  # noqa: SIM118 - keys without making every descriptor of a lazy catalog
        if key.operation != operation:
            continue
        desc = catalog.get(key)
        if desc is None:  # pragma: no cover - every key of a catalog has its descriptor
            continue
        unversioned = unversioned or not desc.engine_versions
        unlisted = unlisted or not desc.options
        for version in desc.engine_versions:
            _add(versions, version.version)
        for opt in desc.options or ():
            options.setdefault(opt.name, _Option(opt.name)).take(
                desc, opt.type, opt.default, opt.possible_values, opt.description
            )
    return OperationSummary(
        operation=operation,
        input_formats=tuple(catalog.input_formats(operation)),
        output_formats=tuple(catalog.output_formats(operation)),
        engines=tuple(catalog.engines_of(operation)),
        # a type that lists no versions takes any (catalog.check): then there is no list to offer
        engine_versions=() if unversioned else tuple(versions),
        options={name: options[name].summary() for name in sorted(options)},
        options_listed=not unlisted,
    )
