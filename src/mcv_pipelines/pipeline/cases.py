"""A recipe's test cases (`tests:`), read into typed objects that remember where each part is written.

The file schema has already judged the shape; here values get their meaning (a size of "200 KB", a
bound of {min, max}) and each problem with one is a diagnostic at its own line (rule ``test-case``).
Nothing here runs anything: `mcv validate` checks the cases offline (``casecheck``), `mcv test` runs
them (``mcv_pipelines.testing``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.pipeline.document import Document, PathKey

__all__ = [
    "DEFAULT_SIMILARITY",
    "DURATION_TOLERANCE",
    "Bound",
    "Expectation",
    "TaskExpectations",
    "TestCase",
    "case_slug",
    "read_cases",
]

DURATION_TOLERANCE = 0.1  # seconds either side, for a plain number
DEFAULT_SIMILARITY = 0.95
_UNITS = {
    "b": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*$")
_BOUNDED = ("files", "size", "width", "height", "pages", "duration")
_LISTS = ("format", "names", "text", "streams", "codecs", "members")


@dataclass(frozen=True, slots=True)
class Bound:
    """An allowed range; ``text`` says it as the file does (``320``, ``<= 640``, ``1.5 +- 0.1``)."""

    minimum: float | None
    maximum: float | None
    text: str

    def holds(self, value: float) -> bool:
        return (self.minimum is None or value >= self.minimum) and (
            self.maximum is None or value <= self.maximum
        )


@dataclass(frozen=True, slots=True)
class Expectation:
    """One key of a task's expectations: ``value`` is a ``Bound``, a tuple of strings, a bool or a str."""

    key: str
    value: Any
    location: Location


@dataclass(frozen=True, slots=True)
class TaskExpectations:
    """What one task, or every task of a for_each group, must make."""

    task: str
    location: Location
    items: tuple[Expectation, ...]

    def get(self, key: str) -> Expectation | None:
        return next((item for item in self.items if item.key == key), None)


@dataclass(frozen=True)
class TestCase:
    """One case of a recipe's `tests:` list."""

    __test__ = False  # a model, not a pytest test class

    name: str
    index: int
    location: Location
    params: Mapping[str, Any]
    param_locations: Mapping[str, Location]
    env_params: Mapping[str, str] = field(default_factory=dict)  # param -> environment variable
    requires_env: tuple[str, ...] = ()
    expect: tuple[TaskExpectations, ...] = ()
    fails: Expectation | None = None
    description: str | None = None

    def path(self, *rest: str | int) -> PathKey:
        return ("tests", self.index, *rest)


def case_slug(name: str) -> str:
    """A case's name as a folder name (its golden files live there)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "case"


def _size(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    match = _SIZE.match(str(value))
    unit = match.group(2).lower() if match else ""
    if match is None or (unit and unit not in _UNITS):
        raise ValueError(f"{value!r} is not a size: write bytes, or a number and a unit (12 KB, 3 MB, 1 MiB)")
    return float(match.group(1)) * _UNITS[unit or "b"]


def _number(key: str, value: Any) -> float:
    if key == "size":
        return _size(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{value!r} is not a number")
    return float(value)


def _show(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def _bound(key: str, value: Any) -> Bound:
    if not isinstance(value, dict):
        number = _number(key, value)
        if key == "duration":
            spread = DURATION_TOLERANCE
            return Bound(number - spread, number + spread, f"{_show(number)} s +- {_show(spread)} s")
        return Bound(number, number, str(value))
    if "value" in value or "tolerance" in value:
        if "value" not in value or set(value) - {"value", "tolerance"}:
            raise ValueError("give {value, tolerance}, or {min, max}, not both")
        centre = _number(key, value["value"])
        spread = _number("tolerance", value.get("tolerance", 0))
        return Bound(centre - spread, centre + spread, f"{value['value']} +- {_show(spread)}")
    if "min" not in value and "max" not in value:
        raise ValueError("give a number, {min, max} or {value, tolerance}")
    low = _number(key, value["min"]) if "min" in value else None
    high = _number(key, value["max"]) if "max" in value else None
    if low is not None and high is not None and low > high:
        raise ValueError(f"min {value['min']} is above max {value['max']}")
    if low is not None and high is not None:
        return Bound(low, high, f"between {value['min']} and {value['max']}")
    return Bound(low, high, f">= {value['min']}" if low is not None else f"<= {value['max']}")


def _value(key: str, value: Any) -> Any:
    if key in _BOUNDED:
        return _bound(key, value)
    if key in _LISTS:
        items = [value] if isinstance(value, str) else list(value)
        if key in ("format", "streams", "codecs"):
            items = [str(item).lower().lstrip(".") for item in items]
        return tuple(str(item) for item in items)
    return value


class _Reader:
    def __init__(self, document: Document) -> None:
        self.document = document
        self.problems: list[Diagnostic] = []

    def problem(self, path: PathKey, message: str, hint: str | None = None) -> None:
        where = self.document.locate(path)
        self.problems.append(Diagnostic("test-case", Severity.ERROR, message, where, hint=hint))

    def expectations(self, case: str, index: int, expect: Mapping[str, Any]) -> list[TaskExpectations]:
        found: list[TaskExpectations] = []
        for task, keys in expect.items():
            if not isinstance(keys, dict):
                continue  # the file schema says what is wrong with it
            items: list[Expectation] = []
            for key, raw in keys.items():
                path = ("tests", index, "expect", task, key)
                try:
                    value = _value(key, raw)
                except (ValueError, TypeError) as exc:
                    self.problem(path, f"case {case!r}: {task}: {key}: {exc}")
                    continue
                items.append(Expectation(key, value, self.document.locate(path)))
            if any(item.key == "fails" for item in items) and len(items) > 1:
                self.problem(
                    ("tests", index, "expect", task),
                    f"case {case!r}: {task}: a task expected to fail makes no files to check",
                    hint="keep `fails` alone, or move the other expectations to another case",
                )
            if any(item.key == "similarity" for item in items) and not any(i.key == "golden" for i in items):
                self.problem(
                    ("tests", index, "expect", task, "similarity"),
                    f"case {case!r}: {task}: similarity applies to a golden file, and there is none",
                    hint="add `golden: true`",
                )
            location = self.document.locate_key(("tests", index, "expect", task))
            found.append(TaskExpectations(task, location, tuple(items)))
        return found

    def case(self, index: int, raw: Mapping[str, Any]) -> TestCase:
        name = str(raw["name"])
        params: dict[str, Any] = {}
        env_params: dict[str, str] = {}
        locations: dict[str, Location] = {}
        written = raw.get("params")
        for param, value in (written if isinstance(written, dict) else {}).items():
            locations[param] = self.document.locate(("tests", index, "params", param))
            if isinstance(value, dict) and set(value) == {"env"} and isinstance(value["env"], str):
                env_params[param] = value["env"]
            else:
                params[param] = value
        given = raw.get("expect")
        expect = self.expectations(name, index, given if isinstance(given, dict) else {})
        fails = raw.get("fails")
        if not expect and fails is None:
            self.problem(
                ("tests", index),
                f"case {name!r} expects nothing",
                hint="add `expect:` with what a task must make, or `fails: CODE`",
            )
        return TestCase(
            name=name,
            index=index,
            location=self.document.locate(("tests", index)),
            params=params,
            param_locations=locations,
            env_params=env_params,
            requires_env=tuple(raw.get("requires_env") or ()),
            expect=tuple(expect),
            fails=(
                Expectation("fails", str(fails), self.document.locate(("tests", index, "fails")))
                if fails is not None
                else None
            ),
            description=raw.get("description"),
        )


def read_cases(document: Document) -> tuple[list[TestCase], list[Diagnostic]]:
    """The file's cases and what is wrong with their values (call after the file schema passed)."""
    raw = document.data.get("tests") if isinstance(document.data, dict) else None
    if not isinstance(raw, list):
        return [], []
    reader = _Reader(document)
    cases: list[TestCase] = []
    seen: dict[str, Location] = {}
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue  # the file schema has said so
        case = reader.case(index, item)
        if case.name in seen:
            reader.problem(
                ("tests", index, "name"),
                f"two cases are named {case.name!r} (the first at line {seen[case.name].line})",
                hint="give each case its own name: reports and golden folders are named after it",
            )
            continue
        seen[case.name] = case.location
        cases.append(case)
    return cases, reader.problems
