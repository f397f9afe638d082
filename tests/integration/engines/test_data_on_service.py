"""The data engine through the service: documents keep their types and order where the target holds
them, a value the target cannot hold fails naming its path, tables take their options, contacts and
events come out as rows."""

from __future__ import annotations

import base64
import datetime as dt
import io
import json
import plistlib
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml
from engine_job_helpers import download_all, run_job, task_named
from openpyxl import Workbook

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _import(name: str, data: str | bytes) -> dict[str, Any]:
    raw = data.encode() if isinstance(data, str) else data
    return {"operation": "import/base64", "file": base64.b64encode(raw).decode(), "filename": name}


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _run(client: httpx.Client, tmp_path: Path, inputs: dict[str, tuple[str, str | bytes]],
         converts: dict[str, dict[str, object]]) -> tuple[dict[str, Any], dict[str, Path]]:  # fmt: skip
    tasks: dict[str, Any] = {name: _import(*given) for name, given in inputs.items()}
    tasks.update(converts)
    tasks["export"] = {"operation": "export/url", "input": list(converts)}
    job = run_job(client, tasks)
    return job, download_all(job, tmp_path / "out")


YAML = """# Quokka
title: Quokka sightings
born: 2024-05-01
seen: 2024-05-01T09:30:00+02:00
ratio: 1.0
count: 9007199254740993
tags: [wild, small]
"""


def test_documents_keep_dates_numbers_and_key_order(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "yaml", "toml")
    job, files = _run(
        client, tmp_path, {"yml": ("notes.yml", YAML)},
        {"toml": _convert("yml", "toml"), "json": _convert("yml", "json", filename="notes.json"),
         "plist": _convert("yml", "plist", plist_format="binary", filename="notes.plist")},
    )  # fmt: skip
    assert task_named(job, "toml")["engine"] == "data"
    toml = tomllib.loads(files["notes.toml"].read_text())
    assert list(toml) == ["title", "born", "seen", "ratio", "count", "tags"]
    assert toml["born"] == dt.date(2024, 5, 1)
    assert toml["seen"] == dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert isinstance(toml["ratio"], float)
    assert toml["count"] == 9007199254740993
    assert json.loads(files["notes.json"].read_text())["seen"] == "2024-05-01T09:30:00+02:00"
    plist = plistlib.loads(files["notes.plist"].read_bytes())
    assert files["notes.plist"].read_bytes().startswith(b"bplist00")
    assert plist["seen"] == dt.datetime(2024, 5, 1, 7, 30)
    assert plist["born"] == "2024-05-01"
    # and back: the TOML read again as YAML still holds a date, not text
    _, again = _run(client, tmp_path / "again", {"t": ("notes.toml", files["notes.toml"].read_bytes())},
                    {"yaml": _convert("t", "yaml")})  # fmt: skip
    assert yaml.safe_load(again["notes.yaml"].read_text())["born"] == dt.date(2024, 5, 1)


def test_a_value_the_target_cannot_hold_names_its_path(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "json", "toml")
    source = json.dumps({"items": [{"note": "a"}, {"note": "b"}, {"note": None}]})
    job = run_job(client, {"in": _import("list.json", source), "toml": _convert("in", "toml"),
                           "listed": _import("top.json", "[1, 2]"), "top": _convert("listed", "toml"),
                           "csv": _convert("in", "csv")})  # fmt: skip
    failed = task_named(job, "toml")
    assert failed["code"] == "CONVERSION_FAILED"
    assert "$.items[2].note is null, which TOML cannot hold" in failed["message"]
    assert "TOML holds only a table at its top" in task_named(job, "top")["message"]
    # a document is a table when it holds one list of flat objects: this one is
    assert task_named(job, "csv")["status"] == "finished"


def test_xml_maps_attributes_text_and_repeated_elements(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "xml", "json")
    xml = ('<?xml version="1.0"?><zoo xmlns:x="urn:x" open="yes"><animal id="1">Quokka</animal>'
           '<animal id="2">Wombat</animal><keeper x:role="head">Ann</keeper><empty/></zoo>')  # fmt: skip
    _, files = _run(client, tmp_path, {"in": ("zoo.xml", xml)},
                    {"json": _convert("in", "json")})  # fmt: skip
    document = json.loads(files["zoo.json"].read_text())
    assert document == {"zoo": {
        "@xmlns:x": "urn:x", "@open": "yes",
        "animal": [{"@id": "1", "#text": "Quokka"}, {"@id": "2", "#text": "Wombat"}],
        "keeper": {"@x:role": "head", "#text": "Ann"}, "empty": None,
    }}  # fmt: skip
    # the same document back to XML keeps its prefixes and attributes
    _, back = _run(client, tmp_path / "back", {"in": ("zoo.json", files["zoo.json"].read_bytes())},
                   {"xml": _convert("in", "xml")})  # fmt: skip
    assert b'<keeper x:role="head">Ann</keeper>' in back["zoo.xml"].read_bytes()
    assert b'<zoo xmlns:x="urn:x" open="yes">' in back["zoo.xml"].read_bytes()


def _workbook() -> bytes:
    book = Workbook()
    book.active.title = "First"
    book.active.append(["ignored"])
    second = book.create_sheet("Second")
    second.append(["name", "count", "seen", "formula"])
    second.append(["Quokka", 3, dt.datetime(2024, 5, 1, 9, 30), "=1+1"])
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_tables_take_their_options(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "xlsx", "json")
    job, files = _run(
        client, tmp_path,
        {"semi": ("semi.csv", "name;count\nQuokka;3\nWombat;5\n"), "book": ("book.xlsx", _workbook()),
         "rows": ("rows.jsonl", '{"name": "=2+2", "n": 1}\n{"name": "Wombat", "n": 2.5}\n')},
        {"jsonl": _convert("semi", "jsonl", delimiter=";"),
         "bare": _convert("semi", "json", delimiter="semicolon", header=False, filename="bare.json"),
         "sheet": _convert("book", "json", sheet="Second"),
         "md": _convert("book", "md", sheet="2", engine="data"),  # the markdown engine is the default
         "xlsx": _convert("rows", "xlsx")},
    )  # fmt: skip
    assert task_named(job, "jsonl")["engine"] == "data"
    lines = [json.loads(line) for line in files["semi.jsonl"].read_text().splitlines()]
    assert lines == [{"name": "Quokka", "count": "3"}, {"name": "Wombat", "count": "5"}]
    assert json.loads(files["bare.json"].read_text())[0] == {"column1": "name", "column2": "count"}
    assert json.loads(files["book.json"].read_text()) == [
        {"name": "Quokka", "count": 3, "seen": "2024-05-01T09:30:00", "formula": None}
    ]  # a formula gives the result its workbook last computed; openpyxl computes none
    assert files["book.md"].read_text().splitlines()[2] == "| Quokka | 3 | 2024-05-01T09:30:00 |   |"
    # text that looks like a formula stays text in the workbook written
    from openpyxl import load_workbook

    sheet = load_workbook(files["rows.xlsx"]).active
    assert sheet["A2"].value == "=2+2"
    assert sheet["A2"].data_type == "s"
    assert sheet["B3"].value == 2.5


def test_a_jagged_or_empty_table_says_so(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "csv", "json")
    job = run_job(client, {
        "jagged": _import("jagged.csv", "a,b\n1,2\n3,4,5\n"), "j": _convert("jagged", "json"),
        "short": _import("short.csv", "a,b\n1\n"), "s": _convert("short", "json"),
        "empty": _import("empty.csv", "\n\n"), "e": _convert("empty", "json"),
    })  # fmt: skip
    assert task_named(job, "j")["code"] == "INVALID_INPUT_FILE"
    assert "line 3 has 3 cells but the header names 2 columns" in task_named(job, "j")["message"]
    assert task_named(job, "s")["status"] == "finished"  # a short row lacks its last cells (null)
    assert "the table is empty" in task_named(job, "e")["message"]


VCF = (
    "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Quinn Quokka\r\nN:Quokka;Quinn;;;\r\nEMAIL;TYPE=work:q@example.org\r\n"
    "EMAIL:quinn@example.net\r\nORG:Island\\, WA\r\nNOTE:Counts\\, daily\\;\r\n  all year\r\nEND:VCARD\r\n"
    "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Wombat;Wally\r\nTEL;HOME;VOICE:555-0100\r\n"
    "NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Gr=C3=BC=C3=9Fe=\r\n aus Perth\r\nEND:VCARD\r\n"
)
ICS = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nSUMMARY:Quokka count\r\nDTSTART:20240501T090000Z\r\n"
    "DTEND;VALUE=DATE:20240502\r\nLOCATION:Rottnest\\, WA\r\n"
    "BEGIN:VALARM\r\nDESCRIPTION:alarm\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_contacts_and_events_become_rows(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "vcf", "csv")
    _, files = _run(client, tmp_path, {"cards": ("people.vcf", VCF), "cal": ("events.ics", ICS)},
                    {"csv": _convert("cards", "csv"), "json": _convert("cards", "json"),
                     "events": _convert("cal", "json")})  # fmt: skip
    import csv

    rows = list(csv.DictReader(io.StringIO(files["people.csv"].read_text())))
    assert rows[0]["email"] == "q@example.org"
    assert rows[0]["email 2"] == "quinn@example.net"
    assert rows[0]["organization"] == "Island, WA"
    assert rows[0]["note"] == "Counts, daily; all year"
    people = json.loads(files["people.json"].read_text())
    assert people[1]["note"] == "Grüße aus Perth"
    assert people[1]["phones"] == ["555-0100"]
    assert people[1]["family_name"] == "Wombat"
    assert people[1]["given_name"] == "Wally"
    events = json.loads(files["events.json"].read_text())
    assert events == [{"summary": "Quokka count", "start": "2024-05-01T09:00:00Z", "end": "2024-05-02",
                       "timezone": None, "location": "Rottnest, WA", "description": None,
                       "uid": None}]  # fmt: skip
