"""Seeds of the data formats (json, yaml, toml, xml, plist, jsonl, tsv, vcf, ics), written by hand.

Each document holds one list of flat records under one key, so that it converts both to the other
documents and to a table (a document is a table when it holds one list of flat objects); the records
carry text, integers (one beyond what a float keeps exactly), floats, booleans and, where the format has
them, dates. Every seed says "Quokka". The vCard mixes 3.0 (folded lines, escaped commas) and 2.1
(quoted-printable); the iCalendar file folds a description.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["DATA_WORDED", "data_seeds"]

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
_SEEDS = {"json": _JSON, "yaml": _YAML, "toml": _TOML, "xml": _XML, "plist": _PLIST, "jsonl": _JSONL,
          "tsv": _TSV, "vcf": _VCF, "ics": _ICS}  # fmt: skip
DATA_WORDED = set(_SEEDS)


def data_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every data format in ``wanted``; format -> path."""
    seeds: dict[str, Path] = {}
    for fmt, text in _SEEDS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(text.encode())
    return seeds
