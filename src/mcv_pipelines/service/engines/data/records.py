"""The table model and where it meets documents.

A table is its column names and its rows, each row a list of cells (text, number, boolean, date or
None for an empty cell). As a document a table is a list of objects, one a row, keyed by the column
names in order; a row with fewer cells than the header lacks the last keys' values (None), and a row
with more cells than the header is an error naming the row.

A document becomes a table when it is a list of flat objects (whose values are no objects or lists),
or when it holds one: from the top, an object with one key is entered until a list is met, so
``{"animals": [...]}``, TOML's ``[[animals]]`` and XML's ``<animals><animal>...</animal>...</animals>``
all give the rows of their animals. Columns are the keys in the order they first appear; a row without
a key leaves its cell empty. A single flat object is a table of one row.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import path_text
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, INVALID_INPUT_FILE

__all__ = ["Table", "records_of", "table_from_records", "table_from_rows"]


@dataclass(slots=True)
class Table:
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)

    def records(self) -> list[dict[str, Any]]:
        """The rows as objects keyed by column (a short row's missing cells are None)."""
        width = len(self.columns)
        return [
            dict(zip(self.columns, [*row, *[None] * (width - len(row))], strict=True)) for row in self.rows
        ]


def table_from_rows(rows: Iterable[Sequence[Any]], header: bool, what: str = "row") -> Table:
    """A table from its rows as read; ``header``: the first row names the columns.

    Empty header cells are named ``columnN`` (N counted from 1), a repeated name is an error, a row
    longer than the header is an error; without a header columns are ``column1``, ``column2``, ...
    """
    read = [list(row) for row in rows]
    while read and all(cell in (None, "") for cell in read[-1]):
        read.pop()  # trailing blank rows are no rows
    if not read:
        raise EngineError(INVALID_INPUT_FILE, "the table is empty: it has no rows")
    if header:
        names, body = read[0], read[1:]
        while names and names[-1] in (None, "") and all(len(row) < len(names) or row[len(names) - 1]
                                                         in (None, "") for row in body):  # fmt: skip
            names.pop()  # a trailing column with neither a name nor a value (a spreadsheet's used range)
        columns = [str(name) if name not in (None, "") else f"column{i}" for i, name in enumerate(names, 1)]
        seen: set[str] = set()
        for name in columns:
            if name in seen:
                raise EngineError(INVALID_INPUT_FILE, f"the column name {name!r} appears twice in the header")
            seen.add(name)
    else:
        body = read
        columns = [f"column{i}" for i in range(1, max(len(row) for row in body) + 1)]
    for number, row in enumerate(body, start=2 if header else 1):
        while len(row) > len(columns) and row[-1] in (None, ""):
            row.pop()
        if len(row) > len(columns):
            raise EngineError(
                INVALID_INPUT_FILE,
                f"{what} {number} has {len(row)} cells but the header names {len(columns)} columns",
            )
    return Table(columns, body)


def _flat(value: Any) -> bool:
    return not isinstance(value, dict | list)


def records_of(document: Any) -> tuple[list[Any], list[tuple[str | int, ...]]]:
    """The list of rows a document holds (see the module docstring) and each row's path."""
    where: tuple[str | int, ...] = ()
    while isinstance(document, dict) and len(document) == 1 and not all(map(_flat, document.values())):
        ((key, document),) = document.items()
        where = (*where, str(key))
    if isinstance(document, dict):
        return [document], [where]
    if not isinstance(document, list):
        raise EngineError(
            CONVERSION_FAILED, f"{path_text(where)} is no list of rows: a table is made of a list of objects"
        )
    return document, [(*where, index) for index in range(len(document))]


def table_from_records(document: Any) -> Table:
    """The table a document holds: a list of flat objects, found as ``records_of`` finds it."""
    rows, wheres = records_of(document)
    columns: dict[str, None] = {}
    for where, row in zip(wheres, rows, strict=True):
        if not isinstance(row, dict):
            raise EngineError(
                CONVERSION_FAILED,
                f"{path_text(where)} is {_kind(row)}, not an object: each row of a table is one",
            )
        for key, value in row.items():
            if not _flat(value):
                raise EngineError(
                    CONVERSION_FAILED,
                    f"{path_text((*where, str(key)))} is {_kind(value)}; a table's cell holds only "
                    "text, a number, true/false, a date or null",
                )
            columns.setdefault(str(key), None)
    names = list(columns)
    return Table(names, [[_cell(row, name) for name in names] for row in rows])


def _cell(row: dict[Any, Any], name: str) -> Any:
    if name in row:
        return row[name]
    for key, value in row.items():
        if str(key) == name:
            return value
    return None


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return f"a {type(value).__name__}"
