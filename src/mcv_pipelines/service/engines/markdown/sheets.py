"""A workbook (xlsx, xlsm) as Markdown with openpyxl: a ``## Sheet name`` and a pipe table per sheet,
the first used row its header. Cells show their stored values (a formula's last computed result), dates
in ISO form; empty rows and columns around the used range are trimmed. openpyxl is imported here only,
when a task needs it, and reads nothing but the workbook's own zip."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE
from mcv_pipelines.service.engines.markdown.blocks import heading, paragraph, table

__all__ = ["MAX_CELLS", "cell_text", "trimmed", "workbook_markdown"]

MAX_CELLS = 2_000_000  # a sheet beyond this is cut (and says so): Markdown for a reader, not a dump


def workbook_markdown(path: Path, name: str) -> str:
    """The Markdown of the workbook at ``path`` (``name``: the user's file name)."""
    import openpyxl  # only a task that needs it pays the import
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True, keep_links=False)
    except (OSError, KeyError, ValueError, InvalidFileException) as exc:
        raise EngineError(INVALID_INPUT_FILE, f"{name} is not a workbook openpyxl can read") from exc
    try:
        sections = [_sheet(sheet.title, sheet.iter_rows(values_only=True)) for sheet in book.worksheets]
    finally:
        book.close()
    return "\n\n".join(sections) + "\n"


def _sheet(title: str, rows: Iterable[Sequence[Any]]) -> str:
    kept: list[list[str]] = []
    cells, cut = 0, False
    for row in rows:
        cells += len(row)
        if cells > MAX_CELLS:
            cut = True
            break
        kept.append([cell_text(value) for value in row])
    grid = trimmed(kept)
    body = table(grid) if grid else paragraph("(empty sheet)")
    note = f"\n\n{paragraph(f'(cut after {len(grid)} rows)')}" if cut else ""
    return f"{heading(2, title)}\n\n{body}{note}"


def cell_text(value: Any) -> str:
    """A cell's value as text: whole floats without ``.0``, dates in ISO form, booleans as TRUE/FALSE.

    >>> [cell_text(v) for v in (None, 3.0, 2.5, True, datetime.datetime(2024, 5, 1))]
    ['', '3', '2.5', 'TRUE', '2024-05-01']
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, datetime.datetime):
        return value.date().isoformat() if value.time() == datetime.time() else value.isoformat(sep=" ")
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)


def trimmed(rows: list[list[str]]) -> list[list[str]]:
    """``rows`` without the empty rows and columns around the used range (empty rows inside are kept).

    >>> trimmed([["", "", ""], ["", "a", ""], ["", "", "b"], ["", "", ""]])
    [['a', ''], ['', 'b']]
    """
    used = [i for i, row in enumerate(rows) if any(row)]
    if not used:
        return []
    rows = rows[used[0] : used[-1] + 1]
    columns = [j for row in rows for j, cell in enumerate(row) if cell]
    first, last = min(columns), max(columns)
    return [(row + [""] * (last + 1 - len(row)))[first : last + 1] for row in rows]
