"""What changed between two catalogs: conversion types added, removed, and changed (with options).

>>> from mcv_pipelines.catalog.model import Descriptor
>>> old = Catalog([Descriptor("convert", "jpg", "png", "im")])
>>> diff_catalogs(old, Catalog([])).removed[0].output_format
'png'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.model import ConversionKey, Descriptor, OptionDef

__all__ = ["CatalogDiff", "TypeChange", "diff_catalogs", "diff_to_json", "diff_to_text"]

_FIELDS = ("credits", "default", "deprecated", "experimental")


@dataclass(frozen=True, slots=True)
class TypeChange:
    """One conversion type present in both catalogs with different contents."""

    key: ConversionKey
    fields: tuple[tuple[str, Any, Any], ...] = ()  # (field, old, new)
    options_added: tuple[str, ...] = ()
    options_removed: tuple[str, ...] = ()
    options_changed: tuple[tuple[str, str, Any, Any], ...] = ()  # (option, attribute, old, new)
    versions_added: tuple[str, ...] = ()
    versions_removed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CatalogDiff:
    added: tuple[ConversionKey, ...]
    removed: tuple[ConversionKey, ...]
    changed: tuple[TypeChange, ...]

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def _options(desc: Descriptor) -> dict[str, OptionDef]:
    return {o.name: o for o in desc.options or ()}


def _change(old: Descriptor, new: Descriptor) -> TypeChange | None:
    fields = tuple(
        (f, getattr(old, f), getattr(new, f)) for f in _FIELDS if getattr(old, f) != getattr(new, f)
    )
    o_old, o_new = _options(old), _options(new)
    changed = []
    for name in sorted(o_old.keys() & o_new.keys()):
        a, b = o_old[name], o_new[name]
        for attr in ("type", "default", "possible_values"):
            if getattr(a, attr) != getattr(b, attr):
                changed.append((name, attr, getattr(a, attr), getattr(b, attr)))
    v_old = {v.version for v in old.engine_versions}
    v_new = {v.version for v in new.engine_versions}
    change = TypeChange(
        key=old.key,
        fields=fields,
        options_added=tuple(sorted(o_new.keys() - o_old.keys())),
        options_removed=tuple(sorted(o_old.keys() - o_new.keys())),
        options_changed=tuple(changed),
        versions_added=tuple(sorted(v_new - v_old)),
        versions_removed=tuple(sorted(v_old - v_new)),
    )
    return change if change != TypeChange(key=old.key) else None


def diff_catalogs(old: Catalog, new: Catalog) -> CatalogDiff:
    old_keys = {d.key for d in old}
    new_keys = {d.key for d in new}
    changes = []
    for key in sorted(old_keys & new_keys):
        a, b = old.get(key), new.get(key)
        change = _change(a, b) if a is not None and b is not None else None
        if change is not None:
            changes.append(change)
    return CatalogDiff(tuple(sorted(new_keys - old_keys)), tuple(sorted(old_keys - new_keys)), tuple(changes))


def _j(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def diff_to_json(diff: CatalogDiff) -> dict[str, Any]:
    def key(k: ConversionKey) -> dict[str, str]:
        return dict(k._asdict())

    return {
        "added": [key(k) for k in diff.added],
        "removed": [key(k) for k in diff.removed],
        "changed": [
            {
                **key(c.key),
                "fields": {f: {"old": a, "new": b} for f, a, b in c.fields},
                "options_added": list(c.options_added),
                "options_removed": list(c.options_removed),
                "options_changed": [
                    {"option": n, "attribute": attr, "old": _j(a), "new": _j(b)}
                    for n, attr, a, b in c.options_changed
                ],
                "engine_versions_added": list(c.versions_added),
                "engine_versions_removed": list(c.versions_removed),
            }
            for c in diff.changed
        ],
    }


def diff_to_text(diff: CatalogDiff) -> str:
    if diff.empty:
        return "no differences\n"
    lines = [f"+ {k}" for k in diff.added]
    lines += [f"- {k}" for k in diff.removed]
    for c in diff.changed:
        lines.append(f"~ {c.key}")
        lines += [f"    {f}: {a!r} -> {b!r}" for f, a, b in c.fields]
        lines += [f"    + option {n}" for n in c.options_added]
        lines += [f"    - option {n}" for n in c.options_removed]
        lines += [f"    ~ option {n} {attr}: {_j(a)!r} -> {_j(b)!r}" for n, attr, a, b in c.options_changed]
        lines += [f"    + engine_version {v}" for v in c.versions_added]
        lines += [f"    - engine_version {v}" for v in c.versions_removed]
    lines.append(f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.changed)} changed")
    return "\n".join(lines) + "\n"
