"""Batch reports: every row with its key, params (secrets masked), job, status, output files, credits
and error, as JSONL, CSV or JUnit XML, chosen by the file's extension.

Writers take rows one at a time (memory stays flat whatever the batch's size) and replace the target
file only when closed, so a report on disk is always whole.

>>> # with open_report("out/report.xml", name="thumbnails") as report:
>>> #     for row in journal.rows():
>>> #         report.write(ReportRow.from_journal(row))
"""

from __future__ import annotations

import csv
import functools
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar
from xml.sax.saxutils import escape, quoteattr

from mcv_pipelines.batch.masking import mask
from mcv_pipelines.batch.states import JournalRow, RowError, RowState
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact

__all__ = [
    "REPORT_WRITERS",
    "CsvReport",
    "JsonlReport",
    "JunitReport",
    "ReportRow",
    "ReportWriter",
    "check_report_path",
    "open_report",
    "write_report",
]


@dataclass(frozen=True, slots=True)
class ReportRow:
    """One row of a report; ``status`` is a journal state (finished, failed, or one never reached)."""

    key: str
    index: int
    status: str
    params: Mapping[str, Any] = field(default_factory=dict)
    job_id: str | None = None
    outputs: Sequence[str] = ()
    credits: int | None = None
    error: RowError | None = None

    @classmethod
    def from_journal(cls, row: JournalRow) -> ReportRow:
        return cls(row.key, row.index, row.state.value, row.params, row.job_id, row.outputs, row.credits,
                   row.error)

    def masked(self) -> dict[str, Any]:
        """The row as JSON-ready values, every string passed through the secret mask."""
        error = None if self.error is None else {"code": self.error.code, "message": self.error.message}
        value: dict[str, Any] = mask({
            "key": self.key, "index": self.index, "status": self.status, "params": dict(self.params),
            "job_id": self.job_id, "outputs": [os.fspath(p) for p in self.outputs], "credits": self.credits,
            "error": error,
        })
        return value


class ReportWriter:
    """Base of the writers: a temporary file beside the target, renamed over it by ``close``."""

    extension: ClassVar[str] = ""

    def __init__(self, path: str | os.PathLike[str], *, name: str = "batch",
                 param_names: Sequence[str] | None = None) -> None:
        self.path = Path(path)
        self.name = name
        self.param_names = param_names
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".partial",
                                           dir=self.path.parent)
        self._partial = Path(partial)
        self._out: IO[str] = os.fdopen(handle, "w", encoding="utf-8", newline="")
        self.rows = 0
        self.failed = 0
        self.unfinished = 0
        self._start()

    def write(self, row: ReportRow) -> None:
        self.rows += 1
        if row.status == RowState.FAILED:
            self.failed += 1
        elif row.status != RowState.FINISHED:
            self.unfinished += 1
        self._write(row.masked())

    def close(self) -> None:
        """Finish the file and put it in place."""
        self._finish()
        self._out.close()
        os.replace(self._partial, self.path)

    def abort(self) -> None:
        """Drop the partial file; the previous report (if any) stays."""
        self._out.close()
        self._partial.unlink(missing_ok=True)

    def __enter__(self) -> ReportWriter:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def _start(self) -> None:
        pass

    def _write(self, row: dict[str, Any]) -> None:
        raise NotImplementedError

    def _finish(self) -> None:
        pass


class JsonlReport(ReportWriter):
    """One JSON object a line: key, index, status, params, job_id, outputs, credits, error{code, message}."""

    extension = ".jsonl"

    def _write(self, row: dict[str, Any]) -> None:
        self._out.write(json.dumps(row, ensure_ascii=False) + "\n")


class CsvReport(ReportWriter):
    """The same columns flattened: error as error_code/error_message; params as one ``param.<name>``
    column each when ``param_names`` is given, else a JSON ``params`` column; lists as JSON."""

    extension = ".csv"
    _FIXED = ("key", "index", "status", "job_id", "credits", "outputs", "error_code", "error_message")

    def _start(self) -> None:
        self._csv = csv.writer(self._out)
        params = [f"param.{n}" for n in self.param_names] if self.param_names is not None else ["params"]
        self._csv.writerow([*self._FIXED, *params])

    def _write(self, row: dict[str, Any]) -> None:
        error = row["error"] or {}
        cells: list[Any] = [row["key"], row["index"], row["status"], row["job_id"], row["credits"],
                            row["outputs"], error.get("code"), error.get("message")]
        if self.param_names is None:
            cells.append(row["params"])
        else:
            cells.extend(row["params"].get(name) for name in self.param_names)
        self._csv.writerow([_cell(value) for value in cells])


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | dict | bool):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@functools.cache
def _not_xml() -> re.Pattern[str]:
    """What XML 1.0 cannot hold. Compiled on first use: its ranges span all of Unicode, which costs
    15 ms, and every `mcv batch` imports this module while few write JUnit."""
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    return escape(_not_xml().sub("\ufffd", text))


def _xml_attr(text: str) -> str:
    return quoteattr(_not_xml().sub("\ufffd", text))


class JunitReport(ReportWriter):
    """JUnit XML for CI: one testcase per row; failed rows carry a failure, unfinished rows are skipped.

    Test cases are buffered in a temporary file because the suite's counts come first in the XML.
    """

    extension = ".xml"

    def _start(self) -> None:
        self._cases = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 (closed in _finish)

    def _write(self, row: dict[str, Any]) -> None:
        name = f"row {row['index']} ({row['key']})"
        out = self._cases
        out.write(f"    <testcase classname={_xml_attr(self.name)} name={_xml_attr(name)}>\n")
        error = row["error"]
        if row["status"] == RowState.FAILED:
            code = error["code"] if error else "failed"
            message = error["message"] if error else "failed"
            out.write(f"      <failure type={_xml_attr(code)} message={_xml_attr(message)}>"
                      f"{_xml(message)}</failure>\n")
        elif row["status"] != RowState.FINISHED:
            out.write(f"      <skipped message={_xml_attr('not finished: ' + row['status'])}/>\n")
        detail = [f"params: {json.dumps(row['params'], ensure_ascii=False)}"]
        if row["job_id"]:
            detail.append(f"job: {row['job_id']}")
        detail.extend(f"output: {path}" for path in row["outputs"])
        out.write(f"      <system-out>{_xml(chr(10).join(detail))}</system-out>\n    </testcase>\n")

    def _finish(self) -> None:
        skipped = self.unfinished
        self._out.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
        self._out.write(
            f"  <testsuite name={_xml_attr(self.name)} tests=\"{self.rows}\" failures=\"{self.failed}\" "
            f"errors=\"0\" skipped=\"{skipped}\">\n"
        )
        self._cases.seek(0)
        for line in self._cases:
            self._out.write(line)
        self._cases.close()
        self._out.write("  </testsuite>\n</testsuites>\n")

    def abort(self) -> None:
        self._cases.close()
        super().abort()


REPORT_WRITERS: Mapping[str, type[ReportWriter]] = {
    cls.extension: cls for cls in (JsonlReport, CsvReport, JunitReport)
}
"""Report file extension -> writer."""


def check_report_path(path: str | os.PathLike[str]) -> type[ReportWriter]:
    """The writer for ``path``'s extension; a UsageError for any other (check before the batch runs)."""
    suffix = Path(path).suffix.lower()
    writer = REPORT_WRITERS.get(suffix)
    if writer is None:
        known = ", ".join(REPORT_WRITERS)
        raise UsageError(f"--report {redact(os.fspath(path))}: unknown report format "
                         f"{suffix or '(no extension)'!r}; use a file ending in {known}")
    return writer


def open_report(path: str | os.PathLike[str], *, name: str = "batch",
                param_names: Sequence[str] | None = None) -> ReportWriter:
    """A writer for ``path``, chosen by its extension (.jsonl, .csv, .xml)."""
    return check_report_path(path)(path, name=name, param_names=param_names)


def write_report(path: str | os.PathLike[str], rows: Iterable[ReportRow | JournalRow], *,
                 name: str = "batch", param_names: Sequence[str] | None = None) -> ReportWriter:
    """Write every row to ``path``; returns the closed writer (its ``rows``/``failed`` counts)."""
    with open_report(path, name=name, param_names=param_names) as report:
        for row in rows:
            report.write(row if isinstance(row, ReportRow) else ReportRow.from_journal(row))
    return report
