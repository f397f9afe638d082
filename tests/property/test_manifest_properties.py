"""Manifests of every format, with odd encodings, quoting, BOMs and huge cells: rows or a clean
ManifestError naming the line, never a traceback; what a CSV writer wrote in UTF-8 reads back as is."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers import run_cli
from hypothesis import example, given
from hypothesis import strategies as st
from strategies import dump, nasty_text

from mcv_pipelines.batch.manifest import read_rows
from mcv_pipelines.errors import McvError

ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"]
names = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
cells = st.one_of(nasty_text, st.text(max_size=200), st.just("x" * 100_000), st.just('"quoted, "" cell"'))


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    header = draw(st.lists(names, min_size=1, max_size=4, unique=True))
    rows = draw(st.lists(st.lists(cells, min_size=len(header), max_size=len(header)), min_size=1, max_size=5))
    return header, rows


def _csv(header: list[str], rows: list[list[str]], delimiter: str, newline: str) -> str:
    out = io.StringIO()
    # Python's writer leaves a lone "\r" unquoted when the line ends in "\n" (it quotes only the
    # terminator's own characters), and every CSV reader takes that "\r" for a line break: such text
    # is ambiguous, not a manifest a user could have meant. Quote every field when a cell holds one.
    broken = any("\r" in cell or "\n" in cell for cell in [*header, *(c for r in rows for c in r)])
    writer = csv.writer(
        out,
        delimiter=delimiter,
        lineterminator=newline,
        quoting=csv.QUOTE_ALL if broken else csv.QUOTE_MINIMAL,
    )
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def _read(data: bytes, fmt: str) -> list[dict[str, Any]] | None:
    """The rows' values, or None when the manifest was refused with a ManifestError (or another
    McvError); any other exception fails the test."""
    try:
        return [row.values for row in read_rows(io.BytesIO(data), fmt, f"m.{fmt}")]
    except McvError as exc:
        refusal = str(exc)
    assert refusal.startswith(f"m.{fmt}"), refusal  # the message names the file (and line)
    return None


@given(table=tables(), delimiter=st.sampled_from([",", "\t"]), newline=st.sampled_from(["\n", "\r\n"]),
       encoding=st.sampled_from(ENCODINGS))
@example(table=(["a"], [["\r"]]), delimiter=",", newline="\n", encoding="utf-8")
@example(table=(["a"], [[""], ["\r"]]), delimiter=",", newline="\n", encoding="utf-8")
@example(table=(["a", "b"], [["\ufeff", "\u2028"]]), delimiter=",", newline="\r\n", encoding="utf-8-sig")
def test_csv_and_tsv_read_back_or_refuse_cleanly(
    table: tuple[list[str], list[list[str]]], delimiter: str, newline: str, encoding: str
) -> None:
    header, rows = table
    text = _csv(header, rows, delimiter, newline)
    try:
        data = text.encode(encoding)
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    read = _read(data, "csv" if delimiter == "," else "tsv")
    if read is None or encoding not in ("utf-8", "utf-8-sig"):
        return
    written = [dict(zip(header, row, strict=True)) for row in rows]
    assert read == written


@given(raw=st.binary(max_size=400), fmt=st.sampled_from(["csv", "tsv", "jsonl", "yaml"]))
@example(raw=b"a\n\"unclosed\n", fmt="csv")
@example(raw=b"\xff\xfea\x00\n\x00", fmt="csv")
@example(raw=b"a: [*b]\n", fmt="yaml")
@example(raw=b"- &a [*a]\n", fmt="yaml")
@example(raw=b'{"a": NaN}\n', fmt="jsonl")
@example(raw=b'{"a": 1, "a": 2}\n', fmt="jsonl")
def test_any_bytes_are_rows_or_a_clean_error(raw: bytes, fmt: str) -> None:
    _read(raw, fmt)


@given(records=st.lists(st.dictionaries(names, st.one_of(cells, st.integers(), st.booleans(), st.none()),
                                        min_size=1, max_size=3), min_size=1, max_size=4),
       bom=st.booleans())
def test_jsonl_and_yaml_read_back(records: list[dict[str, Any]], bom: bool) -> None:
    prefix = b"\xef\xbb\xbf" if bom else b""
    jsonl = prefix + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8",
                                                                                              "surrogatepass")
    read = _read(jsonl, "jsonl")
    if read is not None and all(isinstance(v, str) for r in records for v in r.values()):
        assert read == records
    _read(prefix + dump(records), "yaml")


PIPELINE = {
    "version": 1,
    "params": {"photo": {"type": "string"}, "width": {"type": "integer", "default": 320}},
    "tasks": {
        "source": {"operation": "import/url", "url": "https://example.com/{{ params.photo }}"},
        "web": {"operation": "convert", "input": "source", "output_format": "webp",
                "width": "{{ params.width }}", "filename": "{{ params.photo | stem }}.webp"},
        "publish": {"operation": "export/url", "input": "web", "download_to": "out/"},
    },
}


@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("manifests")
    (directory / "p.yaml").write_bytes(dump(PIPELINE))
    return directory


@given(photos=st.lists(cells, min_size=1, max_size=4), widths=st.lists(nasty_text, min_size=4, max_size=4),
       fmt=st.sampled_from(["csv", "tsv", "jsonl", "yaml"]))
@example(photos=["a.jpg"], widths=["320", "", "1e3", "0x10"], fmt="csv")
def test_mcv_plan_over_any_manifest_exits_cleanly(
    batch_dir: Path, photos: list[str], widths: list[str], fmt: str
) -> None:
    rows = [{"photo": p, "width": w} for p, w in zip(photos, widths, strict=False)]
    path = batch_dir / f"rows.{fmt}"
    if fmt in ("csv", "tsv"):
        text = _csv(["photo", "width"], [[r["photo"], r["width"]] for r in rows],
                    "," if fmt == "csv" else "\t", "\n")
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
    elif fmt == "jsonl":
        path.write_bytes("".join(json.dumps(r) + "\n" for r in rows).encode("utf-8"))
    else:
        path.write_bytes(yaml.safe_dump(rows, allow_unicode=True).encode("utf-8", "surrogatepass"))
    run_cli(["plan", str(batch_dir / "p.yaml"), "--manifest", str(path)])
