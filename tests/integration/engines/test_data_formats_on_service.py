"""The data engine's wider formats through the service (issue 47): tables of contacts and events become
vCard 4.0 and iCalendar, ini and .properties settings go to and from json/yaml/toml, and a SQLite
database's tables come out; what cannot be written fails naming what is missing or too deep."""

from __future__ import annotations

import base64
import configparser
import csv
import io
import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import yaml
from engine_job_helpers import download_all, run_job, task_named
from openpyxl import load_workbook

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


Converts = dict[str, tuple[str, str, dict[str, object]]]


def _job(client: httpx.Client, tmp_path: Path, files: dict[str, bytes],
         converts: Converts) -> tuple[dict[str, Any], dict[str, Path]]:  # fmt: skip
    """Import each file, convert name -> (file, target, options), export what finished."""
    tasks: dict[str, Any] = {}
    for index, (name, data) in enumerate(files.items()):
        tasks[f"in{index}"] = {"operation": "import/base64", "file": base64.b64encode(data).decode(),
                               "filename": name}  # fmt: skip
    order = list(files)
    for name, (source, target, options) in converts.items():
        tasks[name] = {"operation": "convert", "input": f"in{order.index(source)}", "output_format": target,
                       **options}  # fmt: skip
    tasks["export"] = {"operation": "export/url", "input": list(converts)}
    job = run_job(client, tasks)
    return job, download_all(job, tmp_path / "out")


def _failed(client: httpx.Client, name: str, data: bytes, target: str, **options: object) -> dict[str, Any]:
    """The ended convert task of a conversion expected to fail."""
    tasks = {"in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name},
             "c": {"operation": "convert", "input": "in", "output_format": target, **options}}  # fmt: skip
    return task_named(run_job(client, tasks), "c")


CONTACTS = (
    "name,email,email 2,phone,organization,note,birthday\r\n"
    'Quinn Quokka,q@example.org,quinn@example.net,+61 8 5550 1234,"Island, WA",'
    '"Counts, daily; all year, and writes a note long enough to need folding: Grüße aus Perth",1980-01-31\r\n'
)
EVENTS = (
    "summary,start,end,timezone,location\r\n"
    'Quokka count,2024-05-01T09:00:00Z,2024-05-01T10:00:00Z,,"Rottnest, WA"\r\n'
    "Wombat walk,2024-05-02T08:00:00,2024-05-02T09:00:00,Australia/Perth,\r\n"
    "Island day,2024-05-03,2024-05-04,,\r\n"
)


def _unfolded(data: bytes) -> list[str]:
    assert all(len(line) <= 75 for line in data.split(b"\r\n"))
    return data.decode().replace("\r\n ", "").split("\r\n")[:-1]


def test_tables_become_vcards_and_calendars(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "csv", "vcf")
    _, files = _job(
        client, tmp_path, {"people.csv": CONTACTS.encode(), "events.csv": EVENTS.encode()},
        {"vcf": ("people.csv", "vcf", {}), "ics": ("events.csv", "ics", {})},
    )  # fmt: skip
    card = _unfolded(files["people.vcf"].read_bytes())
    assert card[:3] == ["BEGIN:VCARD", "VERSION:4.0", "FN:Quinn Quokka"]
    assert "EMAIL:quinn@example.net" in card
    assert "ORG:Island\\, WA" in card
    assert "BDAY:19800131" in card
    assert (
        "NOTE:Counts\\, daily\\; all year\\, and writes a note long enough to need folding: Grüße aus Perth"
        in card
    )
    calendar = _unfolded(files["events.ics"].read_bytes())
    assert "DTSTART:20240501T090000Z" in calendar
    assert "DTSTART:20240502T000000Z" in calendar  # 08:00 in Perth is midnight UTC
    assert "DTSTART;VALUE=DATE:20240503" in calendar
    assert "DTEND;VALUE=DATE:20240504" in calendar
    assert "LOCATION:Rottnest\\, WA" in calendar
    assert sum(line.startswith("UID:") for line in calendar) == 3
    assert sum(line.startswith("DTSTAMP:") for line in calendar) == 3
    bad = _failed(client, "bare.csv", b"title\r\nx\r\n", "ics")
    assert bad["code"] == "CONVERSION_FAILED"
    assert "no column 'summary'" in bad["message"]
    assert "'start'" in bad["message"]


INI = b"""; the Quokka app
[DEFAULT]
colour = brown
[server]
path = %(home)s/x
motd = first line
    second line
"""
PROPERTIES = rb"""# Quokka
greeting = Hello, Quokka
key\ with\ spaces : value
cafe=caf\u00e9 \ud83e\udd98
long = one, \
    two
"""


def test_settings_files_to_and_from_documents(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("data", "convert", "ini", "json")
    nested = b'{"server": {"tls": {"on": true}}}'
    _, files = _job(
        client, tmp_path,
        {"app.ini": INI, "app.properties": PROPERTIES, "conf.yaml": b"db:\n  host: h\n  port: 5432\n",
         "deep.json": nested},
        {"ini": ("app.ini", "json", {}), "props": ("app.properties", "yaml", {}),
         "back": ("conf.yaml", "ini", {}), "flat": ("deep.json", "properties", {})},
    )  # fmt: skip
    assert json.loads(files["app.json"].read_text()) == {
        "DEFAULT": {"colour": "brown"},
        "server": {"path": "%(home)s/x", "motd": "first line\nsecond line"},
    }
    assert yaml.safe_load(files["app.yaml"].read_text()) == {
        "greeting": "Hello, Quokka",
        "key with spaces": "value",
        "cafe": "café 🦘",
        "long": "one, two",
    }
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(files["conf.ini"].read_text())
    assert dict(parser["db"]) == {"host": "h", "port": "5432"}
    assert files["deep.properties"].read_text() == "server.tls.on=true\n"
    deep = _failed(client, "deep.json", nested, "ini")
    assert deep["code"] == "CONVERSION_FAILED"
    assert "$.server.tls" in deep["message"]


def _database(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE animals (name TEXT, count INTEGER, photo BLOB)")
        db.execute("INSERT INTO animals VALUES ('Quokka', 3, x'00ff')")
        db.execute("CREATE TABLE places (name TEXT)")
        db.execute("INSERT INTO places VALUES ('Rottnest')")
    db.close()
    return path.read_bytes()


def test_sqlite_tables_come_out(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("data", "convert", "sqlite", "csv")
    data = _database(tmp_path / "zoo.sqlite")
    _, files = _job(
        client, tmp_path, {"zoo.sqlite": data},
        {"csv": ("zoo.sqlite", "csv", {"table": "animals"}), "book": ("zoo.sqlite", "xlsx", {})},
    )  # fmt: skip
    rows = list(csv.DictReader(io.StringIO(files["zoo.csv"].read_text())))
    assert rows == [{"name": "Quokka", "count": "3", "photo": "AP8="}]
    assert load_workbook(files["zoo.xlsx"]).sheetnames == ["animals", "places"]
    which = _failed(client, "zoo.sqlite", data, "json")
    assert which["code"] == "INVALID_OPTION"
    assert re.search(r"2 tables \['animals', 'places'\].*option 'table'", which["message"])
