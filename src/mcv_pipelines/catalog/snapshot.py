"""Catalog snapshots: parse a GET /v2/operations listing, check it is one, normalise, write, load.

A listing is a list envelope ``{data: [...], links, meta}``, a bare list of descriptors, or several
pages of either. A snapshot on disk is the normalised form: ``{"data": [...]}`` sorted by
(operation, input_format, output_format, engine), keys sorted, options sorted by name, so that a
``git diff`` of two snapshots shows only what changed.

Which engine is a conversion's default is kept in each descriptor's ``default`` flag: the listing says
it by order (the first non-deprecated engine listed for the formats), which sorting would lose.
"""

from __future__ import annotations

import gc
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
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
from mcv_pipelines.errors import InvalidInput, UsageError

__all__ = [
    "default_catalog_path",
    "descriptor_to_json",
    "dumps_catalog",
    "load_catalog",
    "load_default_catalog",
    "parse_listing",
    "parse_pages",
    "write_catalog",
]

_REQUIRED = ("operation", "input_format", "output_format", "engine")
_cache: dict[tuple[str, int, int], Catalog] = {}


@contextmanager
def _gc_paused() -> Iterator[None]:
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
    if credits is not None and (isinstance(credits, bool) or not isinstance(credits, int | float)):
        raise _bad(source, where, f"'credits' must be a number, not {credits!r}")
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
    explicit_default = raw.get("default")
    return {
        "operation": raw["operation"],
        "input_format": normalise_format(raw["input_format"]),
        "output_format": normalise_format(raw["output_format"]),
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
    with _gc_paused():
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


def descriptor_to_json(desc: Descriptor) -> dict[str, Any]:
    """The normalised JSON form of one descriptor (what a snapshot stores)."""
    out: dict[str, Any] = {
        "operation": desc.operation,
        "input_format": desc.input_format,
        "output_format": desc.output_format,
        "engine": desc.engine,
        "credits": desc.credits,
        "default": desc.default,
        "deprecated": desc.deprecated,
        "experimental": desc.experimental,
        "engine_versions": [
            {"version": v.version, "default": v.default, "latest": v.latest,
             "deprecated": v.deprecated, "experimental": v.experimental}
            for v in desc.engine_versions
        ],
        "meta": dict(desc.meta),
    }
    if desc.options is not None:
        out["options"] = [_option_to_json(o) for o in desc.options]
    return out


def _option_to_json(opt: OptionDef) -> dict[str, Any]:
    out: dict[str, Any] = {"name": opt.name, "type": opt.type, "default": opt.default}
    if opt.possible_values is not None:
        out["possible_values"] = list(opt.possible_values)
    if opt.description is not None:
        out["description"] = opt.description
    return out


def dumps_catalog(catalog: Catalog) -> str:
    """The normalised snapshot text: stable order, sorted keys, one trailing newline."""
    body = {"data": [descriptor_to_json(d) for d in sorted(catalog, key=lambda d: d.key)]}
    return json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_catalog(catalog: Catalog, path: Path) -> None:
    """Write a snapshot atomically: a temporary file in the same directory, then a rename.

    On any error the file at ``path`` (if any) is left exactly as it was.
    """
    text = dumps_catalog(catalog)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); a snapshot is as readable as the one it replaces.
        os.fchmod(fd, stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_catalog(path: Path) -> Catalog:
    """Load a snapshot; the same unchanged file is parsed only once per process."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such catalog snapshot") from None
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    try:
        with _gc_paused():
            data = json.loads(path.read_bytes())
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{path}:{exc.lineno}:{exc.colno}: not an operations listing: not JSON ({exc.msg})"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the catalog snapshot: {exc}") from None
    catalog = parse_listing(data, source=str(path))
    _cache[key] = catalog
    return catalog


def default_catalog_path() -> Path:
    """schemas/catalog/local.json inside the package: the snapshot of the local service's listing."""
    return Path(str(resources.files("mcv_pipelines") / "schemas" / "catalog" / "local.json"))


def load_default_catalog() -> Catalog:
    path = default_catalog_path()
    if not path.is_file():
        raise UsageError(
            f"the default catalog snapshot {path} is missing; give one with --catalog PATH "
            "(or create it with `mcv catalog pull`)"
        )
    return load_catalog(path)
