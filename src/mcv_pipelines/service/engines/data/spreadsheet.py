"""xlsx read and written with openpyxl (MIT), imported only when a task needs it.

Read: one sheet (the ``sheet`` option: its name or its number from 1; the first sheet by default),
the cells' values as the file last computed them (a formula gives its cached result), numbers,
booleans and dates keeping their types. Written: one sheet named ``Sheet1``; numbers, booleans and
dates as such (a date-time with an offset, which Excel cannot hold, as ISO 8601 text; an integer
beyond the 2**53 a spreadsheet keeps exactly as its text); text is always text, never a formula, even
when it starts with ``=``.

openpyxl reads the package's XML with defusedxml when it is installed (it is a dependency of this
service), so a workbook's XML cannot declare entities. The zip is bounded (members' uncompressed size)
before openpyxl opens it, and so is the number of cells read.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import zipfile
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import MAX_VALUES
from mcv_pipelines.service.engines.data.records import Table, table_from_rows
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION

__all__ = ["read_xlsx", "write_xlsx", "write_xlsx_sheets"]

MAX_UNZIPPED = 512 * 1024 * 1024
MAX_CELLS = MAX_VALUES
_EXACT = 2**53


def _check_package(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            total = sum(member.file_size for member in package.infolist())
    except zipfile.BadZipFile as exc:
        raise EngineError(INVALID_INPUT_FILE, f"not an xlsx workbook (no zip package): {exc}") from exc
    if total > MAX_UNZIPPED:
        raise EngineError(
            INVALID_INPUT_FILE, f"the workbook unpacks to {total:,} bytes, over the {MAX_UNZIPPED:,} allowed"
        )


def _unreadable(exc: BaseException) -> str:
    """Why openpyxl could not read a workbook, in one sentence; defusedxml's refusal said as such."""
    cause: BaseException | None = exc
    while cause is not None:
        if type(cause).__name__ in ("EntitiesForbidden", "DTDForbidden", "ExternalReferenceForbidden"):
            return "the workbook's XML declares an entity or a DTD, which is refused"
        cause = cause.__cause__ or cause.__context__
    return "not an xlsx workbook openpyxl can read: " + " ".join(str(exc).split()[:12])


def read_xlsx(data: bytes, sheet: str | None, header: bool) -> Table:
    """The table of one sheet of a workbook."""
    from openpyxl import load_workbook

    _check_package(data)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise EngineError(INVALID_INPUT_FILE, _unreadable(exc)) from exc
    try:
        names = book.sheetnames
        if sheet is None:
            chosen = names[0]
        elif sheet in names:
            chosen = sheet
        elif sheet.isdigit() and 1 <= int(sheet) <= len(names):
            chosen = names[int(sheet) - 1]
        else:
            raise EngineError(
                INVALID_OPTION, f"option 'sheet' names no sheet of the workbook: {sheet!r}; it has {names}"
            )
        if not hasattr(book[chosen], "iter_rows"):
            raise EngineError(INVALID_INPUT_FILE, f"the sheet {chosen!r} is a chart, not a table of cells")
        rows: list[tuple[Any, ...]] = []
        cells = 0
        try:
            for row in book[chosen].iter_rows(values_only=True):
                cells += len(row)
                if cells > MAX_CELLS:
                    raise EngineError(INVALID_INPUT_FILE, f"the sheet holds more than {MAX_CELLS:,} cells")
                rows.append(row)
        except (KeyError, ValueError, TypeError, OSError, zipfile.BadZipFile) as exc:
            raise EngineError(INVALID_INPUT_FILE, _unreadable(exc)) from exc
    finally:
        book.close()
    return table_from_rows(rows, header)


def _cell_value(value: Any) -> Any:
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.isoformat()
    if isinstance(value, dt.time) and value.tzinfo is not None:
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _EXACT:
        return str(value)
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode("ascii")
    return value


def write_xlsx(table: Table, header: bool) -> bytes:
    """A workbook of one sheet holding the table."""
    return write_xlsx_sheets([("Sheet1", table)], header)


def _sheet_names(names: list[str]) -> list[str]:
    """Names Excel takes: at most 31 characters, none of ``[]:*?/\\``, unique ignoring case."""
    made: list[str] = []
    for name in names:
        base = re.sub(r"[\[\]:*?/\\]", "_", name).strip("'")[:31] or "Sheet"
        candidate, number = base, 2
        while candidate.lower() in (m.lower() for m in made):
            suffix = f" ({number})"
            candidate, number = base[: 31 - len(suffix)] + suffix, number + 1
        made.append(candidate)
    return made


def write_xlsx_sheets(tables: list[tuple[str, Table]], header: bool) -> bytes:
    """A workbook of a sheet per (name, table)."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    book = Workbook(write_only=True)
    for sheet_name, (_, table) in zip(_sheet_names([n for n, _ in tables]), tables, strict=True):
        sheet = book.create_sheet(sheet_name)

        def cell(value: Any, sheet: Any = sheet) -> Any:
            value = _cell_value(value)
            if not isinstance(value, str):
                return value
            made = WriteOnlyCell(sheet, ILLEGAL_CHARACTERS_RE.sub("", value))
            made.data_type = "s"  # text, even "=1+1": never a formula of the caller's data
            return made

        if header:
            sheet.append([cell(name) for name in table.columns])
        for row in table.rows:
            sheet.append([cell(value) for value in row])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()
