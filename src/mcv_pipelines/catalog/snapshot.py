"""Catalog snapshots on disk: the normalised form, written atomically, loaded once per process.

A snapshot is ``{"data": [...]}`` sorted by (operation, input_format, output_format, engine), keys
sorted, options sorted by name, each descriptor carrying its ``default`` flag, so that a ``git diff``
of two snapshots shows only what changed. Reading it goes through ``listing.parse_listing``, so a
hand-edited snapshot gets the same clear errors as a live listing.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog import compact
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.listing import gc_paused, parse_listing
from mcv_pipelines.catalog.model import Descriptor, OptionDef
from mcv_pipelines.diagnostics import Diagnostic, Severity
from mcv_pipelines.errors import InvalidInput, UsageError

__all__ = [
    "default_catalog_path",
    "descriptor_to_json",
    "dumps_catalog",
    "load_catalog",
    "load_default_catalog",
    "select_catalog",
    "write_catalog",
]

_cache: dict[tuple[str, int, int], Catalog] = {}


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
    """Load a snapshot; the same unchanged file is parsed only once per process.

    The parsed snapshot's compact index is kept in the user cache (``catalog.compact``): later
    processes read that instead, and make each descriptor only when a check asks for it.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise UsageError(f"{path}: no such catalog snapshot") from None
    key = (str(path.resolve()), info.st_mtime_ns, info.st_size)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    resolved = Path(key[0])
    digest = compact.known_digest(resolved, info)
    catalog = None if digest is None else _indexed(path, digest, None)
    if catalog is None:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"{path}: cannot read the catalog snapshot: {exc}") from None
        digest = hashlib.sha256(raw).hexdigest()
        catalog = _indexed(path, digest, raw)
        if catalog is None:
            catalog = _parse(path, raw)
            compact.store_index(catalog, digest)
        compact.store_stamp(resolved, info, digest)
    _cache[key] = catalog
    return catalog


def _indexed(path: Path, digest: str, raw: bytes | None) -> Catalog | None:
    """The catalog from the cached index of this snapshot, or None when there is no usable one.
    ``raw``: the snapshot's bytes, if read already (a damaged detail is then taken from them)."""
    found = compact.read_index(digest)
    if found is None:
        return None
    head, read = found
    return compact.loads_index(
        head, read, digest, source=str(path), fallback=lambda: _parse(path, raw or path.read_bytes())
    )


def _parse(path: Path, raw: bytes) -> Catalog:
    """Parse and check the snapshot itself."""
    try:
        with gc_paused():
            data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{path}:{exc.lineno}:{exc.colno}: not an operations listing: not JSON ({exc.msg})"
        ) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: cannot read the catalog snapshot: {exc}") from None
    return parse_listing(data, source=str(path))


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


def select_catalog(
    path: str | Path | None, *, enabled: bool = True
) -> tuple[Catalog | None, list[Diagnostic]]:
    """The catalog validation checks against: ``path``, else the default snapshot; None when disabled.

    A missing default snapshot is a warning (``catalog-missing``), not a failure: validation goes on
    without catalog checks. A ``path`` given that cannot be read is the user's error and raises.
    """
    if not enabled:
        return None, []
    if path is not None:
        return load_catalog(Path(path)), []
    default = default_catalog_path()
    if not default.is_file():
        return None, [
            Diagnostic(
                "catalog-missing",
                Severity.WARNING,
                f"the default catalog snapshot {default} is missing, so formats, engines and options "
                "were not checked against a catalog",
                hint="give one with --catalog PATH, create it with `mcv catalog pull --local`, "
                "or pass --no-catalog",
            )
        ]
    return load_catalog(default), []
