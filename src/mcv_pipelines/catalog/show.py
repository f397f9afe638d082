"""Answers to "can it do X, and with which options": a filtered view of the catalog.

>>> from mcv_pipelines.catalog.model import Descriptor
>>> cat = Catalog([Descriptor("convert", "jpg", "png", "im", default=True)])
>>> [str(d.key) for d in find(cat, output_format="png").matches]
['convert jpg -> png (im)']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcv_pipelines.catalog.index import Catalog, nearest
from mcv_pipelines.catalog.model import Descriptor, OptionDef
from mcv_pipelines.catalog.snapshot import descriptor_to_json

__all__ = ["OPTIONS_SHOWN_UP_TO", "ShowResult", "find", "show_json", "show_text"]

# With more matches than this, the text answer lists types without their options.
OPTIONS_SHOWN_UP_TO = 10


@dataclass(frozen=True, slots=True)
class ShowResult:
    query: dict[str, str]
    matches: tuple[Descriptor, ...]
    suggestions: tuple[str, ...] = ()


def _suggest(catalog: Catalog, q: dict[str, str]) -> list[str]:
    op = q.get("operation")
    if op is not None and not catalog.has_operation(op):
        close = nearest(op, catalog.operations)
        return [f"no operation {op!r}" + (f"; did you mean {close[0]!r}?" if close else ""),
                f"operations: {', '.join(catalog.operations)}"]
    ops = [op] if op else catalog.operations
    fin, fout = q.get("input_format"), q.get("output_format")
    out = []
    for name in ops:
        if fin and fin not in catalog.input_formats(name):
            continue
        if fin and fout:
            outs = catalog.nearest_outputs(name, fin, fout)
            if fout in catalog.output_formats(name, fin):
                out.append(f"{name} {fin} -> {fout} runs with: "
                           + ", ".join(d.engine for d in catalog.engines(name, fin, fout)))
            elif outs:
                out.append(f"{name} {fin} -> nearest supported outputs: {', '.join(outs)}")
    if fin and not out:
        close = sorted({c for name in ops for c in nearest(fin, catalog.input_formats(name))})
        out.append(f"no operation reads {fin}" + (f"; did you mean {' or '.join(close)}?" if close else ""))
    return out


def find(
    catalog: Catalog,
    *,
    operation: str | None = None,
    input_format: str | None = None,
    output_format: str | None = None,
    engine: str | None = None,
) -> ShowResult:
    """The conversion types matching every given field, with suggestions when none does."""
    query = {k: v for k, v in (("operation", operation), ("input_format", input_format),
                               ("output_format", output_format), ("engine", engine)) if v}
    if operation and input_format and output_format:
        candidates: list[Descriptor] = catalog.engines(operation, input_format, output_format)
    else:
        candidates = list(catalog)
    matches = tuple(d for d in candidates if all(getattr(d, k) == v for k, v in query.items()))
    suggestions = () if matches else tuple(_suggest(catalog, query))
    return ShowResult(query, matches, suggestions)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _option_line(opt: OptionDef) -> str:
    # Values as the user writes them in YAML/JSON (null, true), not as Python prints them.
    kind: str = opt.type
    if opt.possible_values is not None:
        kind += " (" + ", ".join(_json(v) for v in opt.possible_values) + ")"
    line = f"      {opt.name}: {kind}, default {_json(opt.default)}"
    return line + (f" -- {opt.description}" if opt.description else "")


def show_text(result: ShowResult) -> str:
    if not result.matches:
        asked = " ".join(f"{k}={v}" for k, v in result.query.items()) or "anything"
        lines = [f"no conversion type matches {asked}", *(f"  {s}" for s in result.suggestions)]
        return "\n".join(lines) + "\n"
    detailed = len(result.matches) <= OPTIONS_SHOWN_UP_TO
    lines = []
    for d in result.matches:
        flags = [f for f, on in (("default", d.default), ("deprecated", d.deprecated),
                                 ("experimental", d.experimental)) if on]
        credits = "?" if d.credits is None else str(d.credits)
        lines.append(f"{d.key}  credits {credits}" + (f"  [{', '.join(flags)}]" if flags else ""))
        if not detailed:
            continue
        if d.engine_versions:
            lines.append("    engine versions: " + ", ".join(
                v.version + (" (default)" if v.default else "") for v in d.engine_versions))
        if d.options is None:
            lines.append("    options: not given by the listing")
        elif not d.options:
            lines.append("    options: none")
        else:
            lines.append("    options:")
            lines.extend(_option_line(o) for o in d.options)
    count = f"{len(result.matches)} conversion type{'s' if len(result.matches) != 1 else ''}"
    if not detailed:
        count += "; narrow with --operation/--input-format/--output-format/--engine to see options"
    lines.append(count)
    return "\n".join(lines) + "\n"


def show_json(result: ShowResult) -> dict[str, Any]:
    return {
        "query": result.query,
        "matches": [descriptor_to_json(d) for d in result.matches],
        "suggestions": list(result.suggestions),
    }
