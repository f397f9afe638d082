"""The data engine: documents, tables, contacts and events converted in-process, on the task's bytes.

What it lists (convert only; the models' meeting points are in each module's docstring):
- documents (json, yaml, toml, xml, plist, and msgpack when its library is installed) to each other,
  and to a table (csv, tsv, xlsx, md, html, jsonl) when they hold a list of flat objects (records.py);
- tables (csv, tsv, xlsx, jsonl) to documents, as a list of objects one a row; TOML and XML cannot
  hold a list at their top, so there the rows are ``{"rows": [...]}`` and ``<rows><row>...</row></rows>``;
  an empty cell of csv, tsv or xlsx is left out of its row in TOML and plist, which hold no null;
- tables to each other, but not the pairs LibreOffice (csv, tsv, xlsx among themselves and to html)
  or Pandoc (csv -> md) already list: the registry keeps those programs the default for them, and this
  engine lists only what nothing else converts (``_LISTED_ELSEWHERE``);
- contacts (vcf) and events (ics) to csv and json (cards.py), and tables (csv, tsv, xlsx, json, jsonl)
  of contacts or events to vcf and ics (cards_out.py);
- a SQLite database's tables (sqlite: read only, nothing in it run) to csv, tsv, json, jsonl, md and
  xlsx (a sheet per table) (sqlite_tables.py);
- settings files, ini and Java .properties, to and from json, yaml and toml (config_files.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    EngineVersion,
    OptionSpec,
)
from mcv_pipelines.service.engines.data.cards import contacts, events, flat_table
from mcv_pipelines.service.engines.data.cards_out import write_ics, write_vcf
from mcv_pipelines.service.engines.data.config_files import (
    dump_ini,
    dump_properties,
    load_ini,
    load_properties,
)
from mcv_pipelines.service.engines.data.content_lines import decode_text
from mcv_pipelines.service.engines.data.documents import DOCUMENT_FORMATS, dump_document, load_document
from mcv_pipelines.service.engines.data.limits import read_bounded
from mcv_pipelines.service.engines.data.records import Table, records_of, table_from_records
from mcv_pipelines.service.engines.data.spreadsheet import read_xlsx, write_xlsx, write_xlsx_sheets
from mcv_pipelines.service.engines.data.sqlite_tables import read_tables
from mcv_pipelines.service.engines.data.tables import (
    delimiter_of,
    read_delimited,
    write_delimited,
    write_html,
    write_markdown,
)
from mcv_pipelines.service.engines.failures import UNSUPPORTED_CONVERSION, library_errors
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, bool_option, enum_option, str_option

__all__ = ["DataEngine"]

_GRIDS = ("csv", "tsv", "xlsx")  # tables read as rows of cells
_TABLE_OUT = ("csv", "tsv", "xlsx", "md", "html")
_CARDS = {"vcf": ("csv", "json"), "ics": ("csv", "json")}
_CONFIGS = ("ini", "properties")  # settings files (config_files.py)
_CONFIG_KIN = ("json", "yaml", "toml")  # the documents they convert to and from
_SQLITE_OUT = ("csv", "tsv", "json", "jsonl", "xlsx", "md")  # a database's tables (sqlite_tables.py)
_CARD_SOURCES = ("csv", "tsv", "xlsx", "json", "jsonl")  # tables of contacts or events (cards_out.py)
# Pairs the live listing already has from LibreOffice (csv/tsv/xlsx among themselves, to html) and
# Pandoc (csv -> md): left to them.
_LISTED_ELSEWHERE = frozenset({
    ("csv", "tsv"), ("csv", "xlsx"), ("csv", "html"), ("csv", "md"), ("tsv", "csv"), ("tsv", "xlsx"),
    ("tsv", "html"), ("xlsx", "csv"), ("xlsx", "tsv"), ("xlsx", "html"),
})  # fmt: skip

_DELIMITER = OptionSpec(
    "delimiter", "string", None, description="The csv's separator: one character or tab (default ',')."
)
_HEADER = OptionSpec(
    "header", "boolean", True,
    description="The first row names the columns (read); a header row is written (csv, tsv, xlsx).",
)  # fmt: skip
_SHEET = OptionSpec(
    "sheet", "string", None, description="The sheet to read: its name or number (default: first)."
)
_TABLE = OptionSpec(
    "table", "string", None,
    description="The database's table to read (default: the only one; xlsx: a sheet per table).",
)  # fmt: skip
_PLIST_FORMAT = OptionSpec(
    "plist_format", "enum", "xml", ("xml", "binary"), description="Write an XML or a binary property list."
)


def _documents() -> tuple[str, ...]:
    """The document formats, MessagePack among them when its library is installed."""
    return (*DOCUMENT_FORMATS, "msgpack") if find_spec("msgpack") is not None else DOCUMENT_FORMATS


def _pairs() -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    documents = _documents()
    for source in (*documents, *_GRIDS, "jsonl"):
        for target in (*documents, *_TABLE_OUT, "jsonl"):
            if source != target and (source, target) not in _LISTED_ELSEWHERE:
                pairs.append((source, target))
    pairs += [(source, target) for source, targets in _CARDS.items() for target in targets]
    pairs += [(source, target) for source in _CARD_SOURCES for target in _CARDS]
    pairs += [("sqlite", target) for target in _SQLITE_OUT]
    pairs += [pair for config in _CONFIGS for kin in _CONFIG_KIN for pair in ((config, kin), (kin, config))]
    return pairs


def _options(source: str, target: str) -> tuple[OptionSpec, ...]:
    options: list[OptionSpec] = [FILENAME]
    if "csv" in (source, target):
        options.append(_DELIMITER)
    if source in _GRIDS or target in ("csv", "tsv", "xlsx"):
        options.append(_HEADER)
    if source == "xlsx":
        options.append(_SHEET)
    if target == "plist":
        options.append(_PLIST_FORMAT)
    if source == "sqlite":
        options.append(_TABLE)
    return tuple(options)


def _openpyxl_version() -> str:
    try:
        return package_version("openpyxl")
    except PackageNotFoundError:
        return "missing"


class DataEngine:
    """json, yaml, toml, xml, plist, csv, tsv, jsonl, xlsx, vcf, ics, ini, properties and sqlite; needs no
    external program."""

    name = "data"

    def version(self) -> str | None:
        if find_spec("openpyxl") is None or find_spec("tomli_w") is None:
            return None
        return f"1 (openpyxl {_openpyxl_version()})"

    def conversion_types(self) -> Iterable[ConversionType]:
        versions = (EngineVersion(self.version() or "1"),)
        return [
            ConversionType("convert", s, t, self.name, options=_options(s, t), engine_versions=versions)
            for s, t in _pairs()
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target = request.input_format, request.output_format
        if request.operation != "convert" or (source, target) not in set(_pairs()):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"the data engine does not convert {source} to {target}"
            )
        path = single_input(request)
        options = request.options
        if source == "sqlite":
            out = output_path(request, target)
            with library_errors(f"convert {path.name} from sqlite to {target}"):
                out.write_bytes(self._database(path, target, request))
            return EngineResult(files=[out])
        data = read_bounded(path)
        header = bool_option(options, "header", True)
        with library_errors(f"convert {path.name} from {source} to {target}"):
            if source in _CONFIGS:
                written = dump_document(target, load_ini(data) if source == "ini" else load_properties(data))
            elif target in _CONFIGS:
                document = load_document(source, data)
                written = dump_ini(document) if target == "ini" else dump_properties(document)
            elif target in _CARDS:
                table = (
                    self._grid(source, data, request, header)
                    if source in _GRIDS
                    else table_from_records(load_document(source, data))
                )
                written = write_vcf(table) if target == "vcf" else write_ics(table)
            elif source in _CARDS:
                found = contacts(decode_text(data)) if source == "vcf" else events(decode_text(data))
                written = (
                    dump_document("json", found)
                    if target == "json"
                    else self._table(target, flat_table(found), request)
                )
            elif source in _GRIDS:
                table = self._grid(source, data, request, header)
                if target in _TABLE_OUT:
                    written = self._table(target, table, request)
                else:
                    written = dump_document(target, _rows_document(table, target), _plist_format(request))
            else:
                document = load_document(source, data)
                if target in _TABLE_OUT:
                    written = self._table(target, table_from_records(document), request)
                elif target == "jsonl":
                    written = dump_document("jsonl", records_of(document)[0])
                else:
                    if source == "jsonl" and target == "toml":
                        document = {"rows": document}
                    written = dump_document(target, document, _plist_format(request))
        out = output_path(request, target)
        out.write_bytes(written)
        return EngineResult(files=[out])

    def _database(self, path: Path, target: str, request: EngineRequest) -> bytes:
        chosen = str_option(request.options, "table")
        tables = read_tables(path, chosen, every=target == "xlsx")
        if target == "xlsx":
            return write_xlsx_sheets(tables, bool_option(request.options, "header", True))
        table = tables[0][1]
        return (
            dump_document(target, table.records())
            if target == "jsonl"
            else self._table(target, table, request)
        )

    @staticmethod
    def _grid(source: str, data: bytes, request: EngineRequest, header: bool) -> Table:
        if source == "xlsx":
            return read_xlsx(data, str_option(request.options, "sheet"), header)
        default = "\t" if source == "tsv" else ","
        delimiter = (
            delimiter_of(str_option(request.options, "delimiter"), default) if source == "csv" else default
        )
        return read_delimited(data, delimiter, header)

    @staticmethod
    def _table(target: str, table: Table, request: EngineRequest) -> bytes:
        header = bool_option(request.options, "header", True)
        if target == "csv":
            return write_delimited(table, delimiter_of(str_option(request.options, "delimiter"), ","), header)
        if target == "tsv":
            return write_delimited(table, "\t", header)
        if target == "xlsx":
            return write_xlsx(table, header)
        if target == "md":
            return write_markdown(table)
        if target == "html":
            return write_html(table, request.inputs[0].path.stem)
        return dump_document(target, table.records())


def _plist_format(request: EngineRequest) -> str:
    return enum_option(request.options, "plist_format", "xml", ("xml", "binary"))


def _rows_document(table: Table, target: str) -> Any:
    """A table as the document ``target`` can hold (see the module docstring)."""
    rows = table.records()
    if target in ("toml", "plist"):
        rows = [{key: value for key, value in row.items() if value is not None} for row in rows]
    return {"rows": rows} if target == "toml" else rows
