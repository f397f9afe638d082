"""Seeds of the data formats (json, yaml, toml, xml, plist, jsonl, tsv, vcf, ics), written by hand.

Each document holds one list of flat records under one key, so that it converts both to the other
documents and to a table (a document is a table when it holds one list of flat objects); the records
carry text, integers (one beyond what a float keeps exactly), floats, booleans and, where the format has
them, dates. Every seed says "Quokka". The vCard mixes 3.0 (folded lines, escaped commas) and 2.1
(quoted-printable); the iCalendar file folds a description.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

__all__ = ["DATA_WORDED", "data_pair_sample", "data_seeds"]

WORD = "Quokka"
BIG = 9007199254740993  # 2**53 + 1: a float would make it ...992

_JSON = f"""{{
  "animals": [
    {{"name": "{WORD}", "count": 3, "weight": 2.5, "wild": true, "id": {BIG}}},
    {{"name": "Wombat", "count": 5, "weight": 30.0, "wild": false, "id": 7}}
  ]
}}
"""
_YAML = f"""# sightings of the {WORD}
animals:
  - name: {WORD}
    count: 3
    weight: 2.5
    wild: true
    seen: 2024-05-01
    id: {BIG}
  - name: Wombat
    count: 5
    weight: 30.0
    wild: false
    seen: 2024-05-02T10:30:00Z
    id: 7
"""
_TOML = f"""# sightings of the {WORD}
[[animals]]
name = "{WORD}"
count = 3
weight = 2.5
wild = true
seen = 2024-05-01
id = {BIG}

[[animals]]
name = "Wombat"
count = 5
weight = 30.0
wild = false
seen = 2024-05-02T10:30:00Z
id = 7
"""
_XML = f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- sightings -->
<animals>
  <animal>
    <name>{WORD}</name>
    <count>3</count>
    <wild>true</wild>
  </animal>
  <animal>
    <name>Wombat</name>
    <count>5</count>
    <wild>false</wild>
  </animal>
</animals>
"""
_PLIST = f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>animals</key>
  <array>
    <dict>
      <key>name</key><string>{WORD}</string>
      <key>count</key><integer>3</integer>
      <key>weight</key><real>2.5</real>
      <key>wild</key><true/>
      <key>seen</key><date>2024-05-01T09:30:00Z</date>
    </dict>
    <dict>
      <key>name</key><string>Wombat</string>
      <key>count</key><integer>5</integer>
      <key>weight</key><real>30.0</real>
      <key>wild</key><false/>
      <key>seen</key><date>2024-05-02T10:30:00Z</date>
    </dict>
  </array>
</dict>
</plist>
"""
_JSONL = (
    f'{{"name": "{WORD}", "count": 3, "weight": 2.5, "wild": true, "id": {BIG}}}\n'
    '{"name": "Wombat", "count": 5, "weight": 30.0, "wild": false, "id": 7}\n'
)
_TSV = f"name\tcount\tnote\n{WORD}\t3\tsmiles, a lot\nWombat\t5\tdigs\n"
_VCF = (
    "BEGIN:VCARD\r\nVERSION:3.0\r\n"
    f"FN:Quinn {WORD}\r\nN:{WORD};Quinn;;Dr.;\r\n"
    "EMAIL;TYPE=work:quinn@example.org\r\nEMAIL;TYPE=home:q@example.net\r\n"
    "TEL;TYPE=cell:+61 8 5550 1234\r\nORG:Rottnest Island\\, WA;Wildlife\r\nTITLE:Ranger\r\n"
    "ADR;TYPE=work:;;1 Main St;Perth;WA;6000;Australia\r\n"
    "NOTE:Counts quokkas\\, daily\\; loves\r\n  the island\r\nBDAY:19800131\r\nEND:VCARD\r\n"
    "BEGIN:VCARD\r\nVERSION:2.1\r\nN:Wombat;Wally\r\nFN:Wally Wombat\r\n"
    "TEL;HOME;VOICE:555-0100\r\n"
    "NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:Digs =C3=BCber deep=\r\n burrows\r\nEND:VCARD\r\n"
)
_ICS = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//data//EN\r\n"
    f"BEGIN:VEVENT\r\nUID:1@bench\r\nSUMMARY:{WORD} count\r\nDTSTART:20240501T090000Z\r\n"
    "DTEND:20240501T100000Z\r\nLOCATION:Rottnest Island\\, WA\r\n"
    "DESCRIPTION:Count every quokka on the island\\, then\r\n  report.\r\n"
    "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Reminder\r\nEND:VALARM\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:2@bench\r\nSUMMARY:Wombat walk\r\nDTSTART;TZID=Australia/Perth:20240502T080000\r\n"
    "DTEND;TZID=Australia/Perth:20240502T090000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
)
_INI = f"""; settings of the {WORD} counter (hand-written, as configparser reads it)
[DEFAULT]
colour = brown

[server]
host = example.org
port: 8080
path = %(home)s/counts
motd = Welcome, {WORD} fans
    counts start at nine

[{WORD}]
name = Quinn
"""
_PROPERTIES = f"""# the {WORD} counter's messages (hand-written, java.util.Properties syntax)
! another comment
greeting = Hello, {WORD}
key\\ with\\ spaces : value
cafe=caf\\u00e9 \\ud83e\\udd98
long.message = one, \\
    two, \\
    three
app.name {WORD} Counter
"""
_CONTACTS = [
    ["name", "email", "email 2", "phone", "organization", "note", "birthday"],
    [f"Quinn {WORD}", "quinn@example.org", "q@example.net", "+61 8 5550 1234", "Rottnest Island, WA",
     "Counts quokkas, daily; loves the island and writes notes long enough to be folded twice over",
     "1980-01-31"],
    ["Wally Wombat", "wally@example.org", "", "555-0100", "", "Digs über deep burrows", ""],
]  # fmt: skip
_EVENTS = [
    ["summary", "start", "end", "timezone", "location", "description"],
    [f"{WORD} count", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", "", "Rottnest Island, WA",
     "Count every quokka on the island, then report; it takes a while and this line is long"],
    ["Wombat walk", "2024-05-02T08:00:00", "2024-05-02T09:00:00", "Australia/Perth", "", ""],
    ["Island day", "2024-05-03", "2024-05-04", "", "", "A whole day"],
]  # fmt: skip


def _delimited(rows: list[list[str]], separator: str) -> str:
    def cell(text: str) -> str:
        return f'"{text}"' if separator in text else text

    return "".join(separator.join(cell(c) for c in row) + "\n" for row in rows)


def _records(rows: list[list[str]]) -> list[dict[str, str]]:
    return [{k: v for k, v in zip(rows[0], row, strict=True) if v} for row in rows[1:]]


def _xlsx(rows: list[list[str]], path: Path) -> None:
    """A workbook written by hand (inline strings), not by openpyxl, which the engine reads it with."""
    sheet = "".join(
        f'<row r="{r}">' + "".join(
            f'<c r="{chr(65 + c)}{r}" t="inlineStr"><is><t>{escape(text)}</t></is></c>'
            for c, text in enumerate(row) if text
        ) + "</row>"
        for r, row in enumerate(rows, start=1)
    )  # fmt: skip
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    pkg = "http://schemas.openxmlformats.org/package/2006/relationships"
    parts = {
        "[Content_Types].xml": '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.'
        'spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType='
        '"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" Type="{rel}/officeDocument" '
        'Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets><sheet name="Sheet1" '
        'sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{pkg}"><Relationship Id="rId1" '
        f'Type="{rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{main}"><sheetData>{sheet}</sheetData></worksheet>',
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as package:
        for name, text in parts.items():
            package.writestr(name, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' + text)


def _table_seed(rows: list[list[str]], fmt: str, path: Path) -> None:
    if fmt == "xlsx":
        _xlsx(rows, path)
    elif fmt in ("csv", "tsv"):
        path.write_text(_delimited(rows, "," if fmt == "csv" else "\t"), encoding="utf-8")
    elif fmt == "json":
        path.write_text(json.dumps(_records(rows), ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in _records(rows)), "utf-8")


def _sqlite(path: Path) -> None:
    """A database made by Python's sqlite3 module (SQLite's own library), the engine only reads it."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE animals (name TEXT, count INTEGER, weight REAL, photo BLOB)")
        db.executemany("INSERT INTO animals VALUES (?, ?, ?, ?)",
                       [(WORD, 3, 2.5, b"\x89PNG"), ("Wombat", 5, 30.0, None)])  # fmt: skip
    db.close()


_SETTINGS = {  # two levels of plain values, what ini holds (and .properties, joined with dots)
    "json": f"""{{"server": {{"host": "example.org", "port": 8080, "debug": false}},
 "{WORD}": {{"name": "Quinn", "greeting": "Hello, {WORD}", "born": "2024-05-01"}}}}
""",
    "yaml": f"""server:
  host: example.org
  port: 8080
  debug: false
{WORD}:
  name: Quinn
  greeting: "Hello, {WORD}"
  born: 2024-05-01
""",
    "toml": f"""[server]
host = "example.org"
port = 8080
debug = false

[{WORD}]
name = "Quinn"
greeting = "Hello, {WORD}"
born = 2024-05-01
""",
}


def _msgpack(value: object) -> bytes:
    """MessagePack written here by hand from the specification, not by the msgpack library."""
    if value is None:
        return b"\xc0"
    if isinstance(value, bool):
        return b"\xc3" if value else b"\xc2"
    if isinstance(value, int):
        return bytes([value]) if 0 <= value < 128 else b"\xcf" + value.to_bytes(8, "big")
    if isinstance(value, float):
        return b"\xcb" + struct.pack(">d", value)
    if isinstance(value, str):
        data = value.encode()
        return (bytes([0xA0 | len(data)]) if len(data) < 32 else b"\xd9" + bytes([len(data)])) + data
    if isinstance(value, bytes):
        return b"\xc4" + bytes([len(value)]) + value
    if isinstance(value, list):
        return bytes([0x90 | len(value)]) + b"".join(_msgpack(item) for item in value)
    if isinstance(value, dict):
        return bytes([0x80 | len(value)]) + b"".join(_msgpack(k) + _msgpack(v) for k, v in value.items())
    raise TypeError(type(value))


_MSGPACK = {"animals": [
    {"name": WORD, "count": 3, "weight": 2.5, "wild": True, "id": BIG, "photo": b"\x89PNG"},
    {"name": "Wombat", "count": 5, "weight": 30.0, "wild": False, "id": 7, "photo": b""},
]}  # fmt: skip


def data_pair_sample(samples: dict[str, Path], source: str, target: str) -> Path | None:
    """A table of contacts where vcf comes out, of events where ics does, settings where ini or
    .properties do (else None)."""
    kind = {"vcf": "contacts", "ics": "events", "ini": "settings", "properties": "settings"}.get(target)
    return samples.get(f"{source}:{kind}") if kind else None


_SEEDS = {"ini": _INI, "properties": _PROPERTIES,
          "json": _JSON, "yaml": _YAML, "toml": _TOML, "xml": _XML, "plist": _PLIST, "jsonl": _JSONL,
          "tsv": _TSV, "vcf": _VCF, "ics": _ICS}  # fmt: skip
DATA_WORDED = {*_SEEDS, "sqlite", "msgpack"}


def data_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every data format in ``wanted``; format -> path."""
    seeds: dict[str, Path] = {}
    for fmt, text in _SEEDS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(text.encode())
    if "msgpack" in wanted:
        seeds["msgpack"] = directory / "sample.msgpack"
        seeds["msgpack"].write_bytes(_msgpack(_MSGPACK))
    if "sqlite" in wanted:
        seeds["sqlite"] = directory / "sample.sqlite"
        _sqlite(seeds["sqlite"])
    for fmt in sorted(wanted & set(_SETTINGS)):
        seeds[f"{fmt}:settings"] = directory / f"settings.{fmt}"
        seeds[f"{fmt}:settings"].write_text(_SETTINGS[fmt], encoding="utf-8")
    for fmt in sorted(wanted & {"csv", "tsv", "xlsx", "json", "jsonl"}):
        for kind, rows in (("contacts", _CONTACTS), ("events", _EVENTS)):
            seeds[f"{fmt}:{kind}"] = directory / f"{kind}.{fmt}"
            _table_seed(rows, fmt, seeds[f"{fmt}:{kind}"])
    return seeds
