"""The task-level catalog check: formats, engine, engine version and options against the listing.

``check_task`` looks up one conversion type by key (O(1)) and validates the task's options with that
type's derived validator (compiled once), so its cost does not depend on the catalog's size.

Rules (stable ids): ``op-format-unsupported`` (error), ``op-format-unknown`` (warning: the input format
cannot be known, so nothing is guessed), ``op-unknown-engine``, ``op-unknown-engine-version``,
``op-unknown-option`` (error; a warning where the listing gives no options for the type),
``op-option-type`` (error), ``op-deprecated`` and ``op-experimental`` (warnings).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcv_pipelines.catalog.derive import validator_for
from mcv_pipelines.catalog.formats import listing_formats
from mcv_pipelines.catalog.index import Catalog, nearest
from mcv_pipelines.catalog.keys import is_option_key
from mcv_pipelines.catalog.model import Descriptor, OptionDef
from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.redact import redact

__all__ = [
    "RULES",
    "check_option_names",
    "check_options",
    "check_task",
    "check_task_inputs",
    "is_catalogued",
    "resolve_task",
]

RULES = (
    "op-format-unsupported",
    "op-format-unknown",
    "op-unknown-engine",
    "op-unknown-engine-version",
    "op-unknown-option",
    "op-option-type",
    "op-deprecated",
    "op-experimental",
)
Locate = Callable[[tuple[str | int, ...]], Location]
_A = {"integer": "an integer", "float": "a number", "string": "a string", "boolean": "true or false",
      "dictionary": "a mapping"}


def is_catalogued(operation: str) -> bool:
    """Imports and exports move files; they are not conversion types of the listing."""
    return not operation.startswith(("import/", "export/"))


def _show(value: Any) -> str:
    # Masked before it is cut short: a truncated secret would no longer match for later redaction.
    text = redact(json.dumps(value, default=str, ensure_ascii=False))
    return text if len(text) <= 60 else text[:57] + "..."


def _listed(values: list[str], limit: int = 12) -> str:
    shown = ", ".join(values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


class _Checker:
    def __init__(self, catalog: Catalog, operation: str, options: Mapping[str, Any], locate: Locate,
                 task_location: Location, task_name: str, locate_key: Locate | None = None) -> None:
        self.catalog, self.operation, self.options = catalog, operation, options
        self.locate, self.task_location, self.task = locate, task_location, task_name
        self.locate_key = locate_key or locate
        self.out: list[Diagnostic] = []

    def at(self, *keys: str) -> Location:
        """The location of the first of ``keys`` the task has, else the task itself."""
        for key in keys:
            if key in self.options:
                return self.locate((key,))
        return self.task_location

    def add(self, rule: str, severity: Severity, message: str, where: Location,
            hint: str | None = None) -> None:
        self.out.append(Diagnostic(rule, severity, f"task {self.task!r}: {message}", where, hint))

    def formats(self, fin: str | None, fout: str | None) -> list[Descriptor] | None:
        """The conversion types for these formats, or None after reporting why there are none."""
        cat, op = self.catalog, self.operation
        where = self.at("output_format", "input_format")
        if fin is None:
            if fout is not None and not cat.produces(op, fout):
                self.add("op-format-unsupported", Severity.ERROR,
                         f"{op} cannot produce {fout} from any format",
                         where, f"{op} produces: {_listed(cat.output_formats(op))}")
                return None
            self.add("op-format-unknown", Severity.WARNING,
                     f"the input format is unknown, so {op}{f' -> {fout}' if fout else ''} "
                     "and its options are not checked against the catalog", self.at("input_format"),
                     "set input_format, or give the input a file name with an extension")
            return None
        if not cat.accepts(op, fin):
            close = nearest(fin, cat.input_formats(op))
            self.add("op-format-unsupported", Severity.ERROR,
                     f"{op} does not accept {fin} input", self.at("input_format", "input", "output_format"),
                     f"did you mean {' or '.join(close)}?" if close
                     else f"{op} accepts: {_listed(cat.input_formats(op))}")
            return None
        if fout is None:
            return None  # a missing output_format is the operation schema's finding, not ours
        found = cat.engines(op, fin, fout)
        if not found:
            suggest = cat.nearest_outputs(op, fin, fout)
            self.add("op-format-unsupported", Severity.ERROR, f"{op} cannot turn {fin} into {fout}",
                     where, f"supported outputs from {fin}: {', '.join(suggest)}" if suggest else None)
            return None
        return found

    def engine(self, found: list[Descriptor], engine: str | None) -> Descriptor | None:
        if engine is None:
            return found[0]
        for desc in found:
            if desc.engine == engine:
                return desc
        names = [d.engine for d in found]
        close = nearest(engine, names)
        first = found[0]
        self.add("op-unknown-engine", Severity.ERROR,
                 f"engine {engine!r} cannot run {first.operation} {first.input_format} -> "
                 f"{first.output_format}", self.at("engine"),
                 (f"did you mean {close[0]!r}? " if close else "") + f"engines: {', '.join(names)}")
        return None

    def status(self, desc: Descriptor, version: str | None) -> None:
        what = f"{desc.operation} {desc.input_format} -> {desc.output_format} with {desc.engine}"
        for flag, rule in ((desc.deprecated, "op-deprecated"), (desc.experimental, "op-experimental")):
            if flag:
                self.add(rule, Severity.WARNING, f"{what} is {rule[3:]} in the catalog",
                         self.at("engine", "output_format"))
        if version is None or not desc.engine_versions:
            return
        match = next((v for v in desc.engine_versions if v.version == version), None)
        if match is None:
            versions = [v.version for v in desc.engine_versions]
            self.add("op-unknown-engine-version", Severity.ERROR,
                     f"engine_version {version!r} of {desc.engine} is not listed for {what}",
                     self.at("engine_version"), f"versions: {', '.join(versions)}")
            return
        for flag, rule in ((match.deprecated, "op-deprecated"), (match.experimental, "op-experimental")):
            if flag:
                self.add(rule, Severity.WARNING, f"engine_version {version} of {desc.engine} is "
                         f"{rule[3:]} in the catalog", self.at("engine_version"))

    def option_values(self, desc: Descriptor) -> None:
        given = {k: v for k, v in self.options.items() if is_option_key(self.operation, k)}
        if given:
            self.option_names(desc, list(given))
            self.option_types(desc, given)

    def option_names(self, desc: Descriptor, keys: list[str]) -> None:
        """Unknown options: errors, or warnings where the listing gives no options for the type."""
        if not desc.options:
            for key in keys:
                self.add("op-unknown-option", Severity.WARNING,
                         f"the catalog lists no options for {desc.key}, so option {key!r} is not checked",
                         self.locate_key((key,)))
            return
        names = [o.name for o in desc.options]
        for key in keys:
            if desc.option(key) is None:
                close = nearest(key, names, 1)
                self.add("op-unknown-option", Severity.ERROR, f"unknown option {key!r} for {desc.key}",
                         self.locate_key((key,)),
                         f"did you mean {close[0]!r}?" if close else f"options: {_listed(names)}")

    def option_types(self, desc: Descriptor, given: Mapping[str, Any]) -> None:
        """Values of listed options that do not fit their type or enum."""
        if not desc.options:
            return
        for name in validator_for(self.catalog, desc).invalid(given):
            opt = desc.option(name)
            if opt is not None:
                self.add("op-option-type", Severity.ERROR,
                         f"option {name!r} must be {_expected(opt)}, got {_show(given[name])}",
                         self.locate((name,)))


def _expected(opt: OptionDef) -> str:
    if opt.type == "enum":
        expected = "one of " + ", ".join(_show(v) for v in opt.possible_values or ())
    else:
        expected = _A[opt.type]
    return expected + (" or null" if opt.default is None else "")


def resolve_task(
    catalog: Catalog,
    *,
    operation: str,
    input_format: str | None,
    output_format: str | None,
    engine: str | None,
    engine_version: str | None,
    options: Mapping[str, Any],
    locate: Locate,
    task_location: Location,
    task_name: str,
    locate_key: Locate | None = None,
) -> tuple[list[Diagnostic], Descriptor | None]:
    """The part of ``check_task`` that depends on the task's shape, not its option values.

    Formats, operation, engine, engine version and status are checked; the result is the findings and
    the conversion type the task's option values are to be checked against (``check_options``), if any.
    Only the keys of ``options`` are read, so rows of a batch with the same shape can share the result.
    """
    if not is_catalogued(operation):
        return [], None
    checker = _Checker(catalog, operation, options, locate, task_location, task_name, locate_key)
    if not catalog.has_operation(operation):
        close = nearest(operation, catalog.operations)
        checker.add("op-format-unsupported", Severity.ERROR,
                    f"the catalog ({catalog.source}) has no conversion types for {operation}",
                    checker.at("operation"),
                    f"did you mean {close[0]!r}?" if close else f"operations: {_listed(catalog.operations)}")
        return checker.out, None
    fin, fout = listing_formats(operation, input_format, output_format)
    found = checker.formats(fin, fout)
    if found is None:
        if engine is not None and engine not in catalog.engines_of(operation):
            close = nearest(engine, catalog.engines_of(operation), 1)
            checker.add("op-unknown-engine", Severity.ERROR, f"engine {engine!r} does not run {operation}",
                        checker.at("engine"),
                        (f"did you mean {close[0]!r}? " if close else "")
                        + f"engines: {', '.join(catalog.engines_of(operation))}")
        return checker.out, None
    desc = checker.engine(found, engine)
    if desc is not None:
        checker.status(desc, engine_version)
    return checker.out, desc


def check_options(
    catalog: Catalog,
    desc: Descriptor,
    *,
    options: Mapping[str, Any],
    locate: Locate,
    task_location: Location,
    task_name: str,
    locate_key: Locate | None = None,
    names_checked: bool = False,
) -> list[Diagnostic]:
    """The options of a task against conversion type ``desc``: unknown options, types, enums.

    With ``names_checked`` only the values are checked (the caller has reported unknown names once
    for the task's shape, with ``check_option_names``).
    """
    checker = _Checker(catalog, desc.operation, options, locate, task_location, task_name, locate_key)
    if names_checked:
        operation = desc.operation
        given = {k: v for k, v in options.items() if is_option_key(operation, k)}
        if given:
            checker.option_types(desc, given)
    else:
        checker.option_values(desc)
    return checker.out


def check_option_names(
    catalog: Catalog,
    desc: Descriptor,
    *,
    options: Mapping[str, Any],
    locate: Locate,
    task_location: Location,
    task_name: str,
    locate_key: Locate | None = None,
) -> list[Diagnostic]:
    """Only the unknown options of a task for ``desc`` (they depend on its keys, not its values)."""
    checker = _Checker(catalog, desc.operation, options, locate, task_location, task_name, locate_key)
    checker.option_names(desc, [k for k in options if is_option_key(desc.operation, k)])
    return checker.out


def check_task(
    catalog: Catalog,
    *,
    operation: str,
    input_format: str | None,
    output_format: str | None,
    engine: str | None,
    engine_version: str | None,
    options: Mapping[str, Any],
    locate: Locate,
    task_location: Location,
    task_name: str,
    locate_key: Locate | None = None,
) -> list[Diagnostic]:
    """Check one processing task against the catalog; imports and exports give no findings.

    ``input_format`` is the task's explicit ``input_format`` or the format inferred from its input
    (None when unknown); ``output_format`` is the task's own. ``options`` is the task's mapping: keys
    that are not engine options (``keys.is_option_key``) are skipped. ``locate`` maps a key path in the
    task to its source location (of the value; ``locate_key``, when given, of the key itself: where
    an unknown option is reported).
    """
    found, desc = resolve_task(
        catalog, operation=operation, input_format=input_format, output_format=output_format,
        engine=engine, engine_version=engine_version, options=options, locate=locate,
        task_location=task_location, task_name=task_name, locate_key=locate_key,
    )
    if desc is not None:
        found.extend(check_options(catalog, desc, options=options, locate=locate, task_location=task_location,
                                   task_name=task_name, locate_key=locate_key))
    return found


def check_task_inputs(
    catalog: Catalog,
    *,
    operation: str,
    input_formats: Sequence[str | None],
    output_format: str | None,
    engine: str | None,
    engine_version: str | None,
    options: Mapping[str, Any],
    locate: Locate,
    task_location: Location,
    task_name: str,
    locate_key: Locate | None = None,
) -> list[Diagnostic]:
    """``check_task`` once per distinct input format (``inference.TaskFormats.input_formats``).

    A merge of a jpg and a png is checked as jpg -> pdf and png -> pdf; the same finding is reported
    once (archive and command read ``any``, whatever their inputs are).
    """
    found: dict[Diagnostic, None] = {}
    for fin in input_formats or (None,):
        for diag in check_task(
            catalog, operation=operation, input_format=fin, output_format=output_format, engine=engine,
            engine_version=engine_version, options=options, locate=locate, task_location=task_location,
            task_name=task_name, locate_key=locate_key,
        ):
            found.setdefault(diag)
    return list(found)
