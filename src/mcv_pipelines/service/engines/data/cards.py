"""Contacts of a vCard file (vcf) and events of an iCalendar file (ics), as records for json and csv.

A contact: ``name`` (FN), ``family_name``, ``given_name``, ``additional_names``, ``prefix``, ``suffix``
(N), ``emails``, ``phones`` and ``addresses`` (every EMAIL, TEL and ADR, in order; vCard 4.0's
``tel:`` URIs as their number; an address's parts joined by ", "), ``organization`` (ORG's units
joined by ", "), ``title``, ``note`` and ``birthday`` (BDAY, ``19800131`` written ``1980-01-31``).

An event: ``summary``, ``start``, ``end`` (DTSTART, DTEND: ISO 8601, ``Z`` kept for UTC, a date alone
for a whole day), ``timezone`` (DTSTART's TZID), ``location``, ``description`` and ``uid``; properties
of a component inside an event (an alarm) are not the event's.

json keeps a contact's lists as lists; a table (csv) has one column per item, ``email``, ``email 2``, ...
as many as the contact with the most has.
"""

from __future__ import annotations

import re
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.content_lines import content_lines, split_value, unescape
from mcv_pipelines.service.engines.data.records import Table
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["contacts", "events", "flat_table"]

_LISTS = {"EMAIL": "emails", "TEL": "phones", "ADR": "addresses"}
_SINGLE = {"FN": "name", "TITLE": "title", "NOTE": "note"}
_N_PARTS = ("family_name", "given_name", "additional_names", "prefix", "suffix")
_DATE = re.compile(r"(\d{4})-?(\d{2})-?(\d{2})")
_DATE_TIME = re.compile(r"(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)")
_SINGULAR = {"emails": "email", "phones": "phone", "addresses": "address"}
_EVENT = {"SUMMARY": "summary", "LOCATION": "location", "DESCRIPTION": "description", "UID": "uid"}


def _empty_contact() -> dict[str, Any]:
    return {"name": None, **dict.fromkeys(_N_PARTS), "emails": [], "phones": [], "addresses": [],
            "organization": None, "title": None, "note": None, "birthday": None}  # fmt: skip


def _birthday(value: str) -> str:
    matched = _DATE.fullmatch(value.strip())
    return "-".join(matched.groups()) if matched else value.strip()


def contacts(text: str) -> list[dict[str, Any]]:
    """Every contact (BEGIN:VCARD ... END:VCARD) of a vCard text."""
    found: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for line in content_lines(text):
        value = line.value
        if line.name == "BEGIN" and value.strip().upper() == "VCARD":
            current = _empty_contact()
        elif line.name == "END" and value.strip().upper() == "VCARD" and current is not None:
            found.append(current)
            current = None
        elif current is None:
            continue
        elif line.name in _SINGLE:
            current[_SINGLE[line.name]] = unescape(value)
        elif line.name == "N":
            parts = [" ".join(p.split(",")).strip() or None for p in split_value(value, ";")]
            current.update(zip(_N_PARTS, parts, strict=False))
        elif line.name == "ORG":
            current["organization"] = ", ".join(p for p in split_value(value, ";") if p) or None
        elif line.name == "ADR":
            current["addresses"].append(", ".join(p.strip() for p in split_value(value, ";") if p.strip()))
        elif line.name in _LISTS:
            item = unescape(value).strip()
            current[_LISTS[line.name]].append(item.removeprefix("tel:").removeprefix("mailto:"))
        elif line.name == "BDAY":
            current["birthday"] = _birthday(value)
    if not found:
        raise EngineError(INVALID_INPUT_FILE, "the file holds no vCard (no BEGIN:VCARD ... END:VCARD)")
    return found


def _when(value: str) -> str:
    value = value.strip()
    matched = _DATE_TIME.fullmatch(value)
    if matched:
        y, mo, d, h, mi, s, utc = matched.groups()
        return f"{y}-{mo}-{d}T{h}:{mi}:{s}{utc}"
    matched = _DATE.fullmatch(value)
    return "-".join(matched.groups()) if matched else value


def events(text: str) -> list[dict[str, Any]]:
    """Every event (VEVENT) of an iCalendar text."""
    found: list[dict[str, Any]] = []
    nesting: list[str] = []
    for line in content_lines(text):
        kind = line.value.strip().upper()
        if line.name == "BEGIN":
            nesting.append(kind)
            if kind == "VEVENT":
                found.append({"summary": None, "start": None, "end": None, "timezone": None,
                              "location": None, "description": None, "uid": None})  # fmt: skip
        elif line.name == "END":
            if nesting and nesting[-1] == kind:
                nesting.pop()
        elif nesting[-1:] == ["VEVENT"]:
            event = found[-1]
            if line.name in _EVENT:
                event[_EVENT[line.name]] = unescape(line.value)
            elif line.name in ("DTSTART", "DTEND"):
                event["start" if line.name == "DTSTART" else "end"] = _when(line.value)
                if line.name == "DTSTART" and line.params.get("TZID"):
                    event["timezone"] = line.params["TZID"][0]
    if not found:
        raise EngineError(INVALID_INPUT_FILE, "the file holds no iCalendar event (no BEGIN:VEVENT)")
    return found


def flat_table(records: list[dict[str, Any]]) -> Table:
    """Records whose list values spread over numbered columns (``email``, ``email 2``, ...)."""
    widths: dict[str, int] = {}
    for record in records:
        for key, value in record.items():
            widths[key] = max(widths.get(key, 0), len(value) if isinstance(value, list) else 1)
    columns: list[str] = []
    for key, width in widths.items():
        if key in _SINGULAR:
            single = _SINGULAR[key]
            columns += [single if i == 1 else f"{single} {i}" for i in range(1, width + 1)]
        else:
            columns.append(key)
    rows = []
    for record in records:
        row: list[Any] = []
        for key, width in widths.items():
            value = record[key]
            if isinstance(value, list):
                row += [*value, *[None] * (width - len(value))]
            else:
                row.append(value)
        rows.append(row)
    return Table(columns, rows)
