"""Tables as text: csv and tsv read and written, md (a GitHub pipe table) and html (one <table>) written.

csv and tsv are read as UTF-8 (a byte order mark is dropped; a file that is not UTF-8 is read as
Windows-1252, what spreadsheets on Windows write), every cell as text; the ``delimiter`` option names
the csv's separator (one character, or ``tab``; default ``,``), tsv's is the tab. Written: numbers as
their text, booleans ``true``/``false``, dates ISO 8601, an empty cell empty. ``header: false`` reads
the first row as data (columns ``column1``, ...) and writes csv/tsv without a header row; md and html
always name their columns.
"""

from __future__ import annotations

import base64
import csv
import datetime as dt
import html
import io
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import MAX_VALUES
from mcv_pipelines.service.engines.data.records import Table, table_from_rows
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, INVALID_OPTION

__all__ = ["cell_text", "delimiter_of", "read_delimited", "write_delimited", "write_html", "write_markdown"]

# One cell of a csv or tsv is at most the csv module's limit, 128 KiB. The limit is the whole process's
# (csv.field_size_limit): raising it here would also raise it for everything else the process reads,
# `mcv batch`'s manifest among them, whose runaway-quote check leans on it.
_FIELD_LIMIT = csv.field_size_limit()


def delimiter_of(value: str | None, default: str) -> str:
    """The separator the ``delimiter`` option names."""
    if value is None:
        return default
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|", "space": " "}
    chosen = named.get(value.lower(), value)
    if len(chosen) != 1 or chosen in '\r\n"':
        raise EngineError(
            INVALID_OPTION,
            "option 'delimiter' must be one character (or tab, comma, semicolon, pipe, space), "
            f"got {value!r}",
        )
    return chosen


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def read_delimited(data: bytes, delimiter: str, header: bool) -> Table:
    """The table of a csv or tsv file."""
    rows, cells = [], 0
    try:
        for row in csv.reader(io.StringIO(_decode(data), newline=""), delimiter=delimiter, strict=True):
            cells += len(row)
            if cells > MAX_VALUES:
                raise EngineError(INVALID_INPUT_FILE, f"the table holds more than {MAX_VALUES:,} cells")
            rows.append(row)
    except csv.Error as exc:
        if "field larger than field limit" in str(exc):
            raise EngineError(
                INVALID_INPUT_FILE,
                f"a cell of the table is longer than {_FIELD_LIMIT // 1024} KiB (or a quote is never closed)",
            ) from exc
        raise EngineError(INVALID_INPUT_FILE, f"not a valid delimited table: {exc}") from exc
    return table_from_rows(rows, header, "line")


def cell_text(value: Any) -> str:
    """A cell as text: empty for None, ISO 8601 for dates, true/false, base64 for binary data."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


def write_delimited(table: Table, delimiter: str, header: bool) -> bytes:
    out = io.StringIO(newline="")
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n" if delimiter == "," else "\n")
    if header:
        writer.writerow(table.columns)
    for row in table.rows:
        writer.writerow([cell_text(cell) for cell in row])
    return out.getvalue().encode()


def _markdown_cell(value: Any) -> str:
    text = cell_text(value).replace("\\", "\\\\").replace("|", "\\|")
    return "<br>".join(text.splitlines()) or " "


def write_markdown(table: Table) -> bytes:
    width = len(table.columns)
    lines = [
        "| " + " | ".join(_markdown_cell(name) for name in table.columns) + " |",
        "|" + "|".join("---" for _ in table.columns) + "|",
    ]
    for row in table.rows:
        cells = [*row, *[None] * (width - len(row))]
        lines.append("| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |")
    return ("\n".join(lines) + "\n").encode()


def write_html(table: Table, title: str) -> bytes:
    def cells(tag: str, values: list[Any]) -> str:
        return "".join(f"<{tag}>{html.escape(cell_text(v))}</{tag}>" for v in values)

    width = len(table.columns)
    body = "\n".join(f"<tr>{cells('td', [*row, *[None] * (width - len(row))])}</tr>" for row in table.rows)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head><body>\n<table>\n"
        f"<thead><tr>{cells('th', list(table.columns))}</tr></thead>\n<tbody>\n{body}\n</tbody>\n"
        "</table>\n</body></html>\n"
    ).encode()
