"""Reading a GET /v2/operations listing: check that it is one, and build the ``Catalog``.

A listing is a list envelope ``{data: [...], links, meta}``, a bare list of descriptors, or several
pages of either. Anything else is an ``InvalidInput`` naming the page, the descriptor and what is wrong.

Which engine is a conversion's default is kept in each descriptor's ``default`` flag: the listing says
it by order (the first non-deprecated engine listed for the formats), which sorting would lose.
"""

from __future__ import annotations

import gc
import math
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from itertools import pairwise
from typing import Any

from mcv_pipelines.catalog.formats import normalise_format
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import (
    OPTION_TYPES,
    Descriptor,
    EngineVersionDef,
    OptionDef,
    OptionType,
)
from mcv_pipelines.errors import InvalidInput

__all__ = ["gc_paused", "parse_listing", "parse_pages"]

_REQUIRED = ("operation", "input_format", "output_format", "engine")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building a listing: it holds no cycles, but hundreds of thousands of
    fresh containers make the collector walk the whole tree again and again (2-3x the load time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _bad(source: str, where: str, why: str) -> InvalidInput:
    return InvalidInput(f"{source}: not an operations listing: {where}: {why}")


def _flag(raw: dict[str, Any], name: str, source: str, where: str) -> bool:
    value = raw.get(name, False)
    if value is False or value is True:
        return value
    if value is None:
        return False
    raise _bad(source, where, f"{name!r} must be true or false, not {value!r}")


_TYPE_SET = frozenset(OPTION_TYPES)
_new_option = OptionDef._make


def _option(raw: Any, source: str, where: str) -> OptionDef:
    # The fast path, taken by every well-formed option (a big listing has hundreds of thousands).
    if type(raw) is dict:
        name, kind, values = raw.get("name"), raw.get("type"), raw.get("possible_values")
        if (type(name) is str and name and type(kind) is str and kind in _TYPE_SET
                and (type(values) is list or (values is None and kind != "enum"))):
            description = raw.get("description")
            return _new_option((name, kind, raw.get("default"), None if values is None else tuple(values),
                                description if type(description) is str else None))
    return _option_checked(raw, source, where)


def _option_checked(raw: Any, source: str, where: str) -> OptionDef:
    """The slow path: says exactly what is wrong with an option."""
    if not isinstance(raw, dict):
        raise _bad(source, where, f"an option must be an object, not {type(raw).__name__}")
    name, kind = raw.get("name"), raw.get("type")
    if not isinstance(name, str) or not name:
        raise _bad(source, where, "an option has no 'name'")
    if kind not in OPTION_TYPES:
        raise _bad(
            source, f"{where}, option {name!r}",
            f"unknown option type {kind!r} (known: {', '.join(OPTION_TYPES)})",
        )
    values = raw.get("possible_values")
    if kind == "enum" and not isinstance(values, list):
        raise _bad(source, f"{where}, option {name!r}", "an enum option needs a 'possible_values' list")
    if values is not None and not isinstance(values, list):
        raise _bad(source, f"{where}, option {name!r}", "'possible_values' must be a list")
    description = raw.get("description")
    kind_typed: OptionType = kind
    return OptionDef(
        name=name,
        type=kind_typed,
        default=raw.get("default"),
        possible_values=tuple(values) if values is not None else None,
        description=description if isinstance(description, str) else None,
    )


def _by_name(opt: OptionDef) -> str:
    return opt.name


def _engine_version(raw: Any, source: str, where: str) -> EngineVersionDef:
    if not isinstance(raw, dict) or type(raw.get("version")) not in (str, int, float):
        raise _bad(source, where, "an engine_versions entry needs a 'version'")
    return EngineVersionDef(
        version=str(raw["version"]),
        default=_flag(raw, "default", source, where),
        latest=_flag(raw, "latest", source, where),
        deprecated=_flag(raw, "deprecated", source, where),
        experimental=_flag(raw, "experimental", source, where),
    )


def _descriptor(raw: Any, source: str, where: str) -> dict[str, Any]:
    """The checked fields of one descriptor (a Descriptor is built once its default flag is known)."""
    if not isinstance(raw, dict):
        raise _bad(source, where, f"a descriptor must be an object, not {type(raw).__name__}")
    missing = [k for k in _REQUIRED if not isinstance(raw.get(k), str) or not raw.get(k)]
    if missing:
        raise _bad(source, where, f"descriptor without {', '.join(missing)}")
    where = f"{where} ({raw['operation']} {raw['input_format']} -> {raw['output_format']})"
    credits = raw.get("credits")
    if credits is not None and (
        isinstance(credits, bool) or not isinstance(credits, int | float) or not math.isfinite(credits)
    ):
        raise _bad(source, where, f"'credits' must be a number, not {credits!r}")
    formats = {k: normalise_format(raw[k]) for k in ("input_format", "output_format")}
    empty = [k for k, v in formats.items() if not v]
    if empty:  # " " or "." is no format, and would be refused once the snapshot is read back
        raise _bad(source, where, f"{' and '.join(empty)} names no format: {raw[empty[0]]!r}")
    options_raw = raw.get("options")
    if options_raw is not None and not isinstance(options_raw, list):
        raise _bad(source, where, "'options' must be a list")
    versions_raw = raw.get("engine_versions") or []
    if not isinstance(versions_raw, list):
        raise _bad(source, where, "'engine_versions' must be a list")
    meta = raw.get("meta") or {}
    if not isinstance(meta, dict):
        raise _bad(source, where, "'meta' must be an object")
    options = None
    if options_raw is not None:
        options = tuple(sorted([_option(o, source, where) for o in options_raw], key=_by_name))
        for before, after in pairwise(options):
            if before.name == after.name:
                raise _bad(source, f"{where}, option {after.name!r}", "option listed twice")
    explicit_default = raw.get("default")
    return {
        "operation": raw["operation"],
        "input_format": formats["input_format"],
        "output_format": formats["output_format"],
        "engine": raw["engine"],
        "credits": int(credits) if credits is not None else None,
        "options": options,
        "engine_versions": tuple(_engine_version(v, source, where) for v in versions_raw),
        "deprecated": _flag(raw, "deprecated", source, where),
        "experimental": _flag(raw, "experimental", source, where),
        "default": explicit_default if isinstance(explicit_default, bool) else None,
        "meta": meta,
    }


def _items(page: Any, source: str, where: str) -> list[Any]:
    if isinstance(page, dict):
        if "data" not in page:
            raise _bad(source, where, "an object without 'data' (expected {data: [...], links, meta})")
        page = page["data"]
    if not isinstance(page, list):
        raise _bad(source, where, f"expected a list of descriptors, got {type(page).__name__}")
    return page


def parse_pages(pages: Iterable[Any], *, source: str = "<listing>") -> Catalog:
    """Build a catalog from decoded listing pages; raise InvalidInput naming the first thing wrong."""
    with gc_paused():
        return _parse_pages(pages, source)


def _parse_pages(pages: Iterable[Any], source: str) -> Catalog:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for page_no, page in enumerate(pages, start=1):
        for i, raw in enumerate(_items(page, source, f"page {page_no}")):
            fields = _descriptor(raw, source, f"page {page_no}, descriptor {i + 1}")
            group = (fields["operation"], fields["input_format"], fields["output_format"])
            key = (*group, fields["engine"])
            if key in seen:
                raise _bad(source, f"page {page_no}, descriptor {i + 1} ({' '.join(key)})",
                           "conversion type listed twice")
            seen.add(key)
            groups.setdefault(group, []).append(fields)
    # The default engine of (operation, input, output): the one marked default, else the first
    # non-deprecated one listed, else the first listed.
    result: list[Descriptor] = []
    for members in groups.values():
        chosen = next((f for f in members if f["default"]), None)
        if chosen is None:
            chosen = next((f for f in members if not f["deprecated"]), members[0])
        for fields in members:
            fields["default"] = fields is chosen
            result.append(Descriptor(**fields))
    result.sort(key=lambda d: d.key)
    return Catalog(result, source=source)


def parse_listing(data: Any, *, source: str = "<listing>") -> Catalog:
    """One decoded listing (an envelope or a bare list)."""
    return parse_pages([data], source=source)


