"""A table of contacts written as vCard 4.0 (vcf), a table of events as iCalendar (ics).

Columns are matched by name, case and spaces and underscores and a trailing number ignored, so the
names cards.py writes when it reads a vcf or an ics (``name``, ``email``, ``email 2``, ``phone``,
``organization``, ``summary``, ``start``, ...) and the properties' own names (``FN``, ``EMAIL``, ``TEL``,
``ORG``, ``DTSTART``, ...) both work:

- contacts: FN (``name``, ``fn``, ``full name``: required), N (``family_name``, ``given_name``,
  ``additional_names``, ``prefix``, ``suffix``), EMAIL (``email``), TEL (``phone``, ``tel``), ADR
  (``address``, ``adr``: the text in the street part), ORG (``organization``, ``org``, ``company``),
  TITLE, NOTE, URL, BDAY (``birthday``: ``1980-01-31`` as the date ``19800131``); any other column
  becomes an ``X-`` property of its name, so nothing is dropped. A row whose name is empty takes
  ``given_name family_name``, else fails naming its row.
- events: SUMMARY (``summary``: required), DTSTART (``start``: required), DTEND (``end``), LOCATION,
  DESCRIPTION, UID (``uid``; made from the row when absent), and ``timezone`` (a TZID such as
  ``Australia/Perth``: a local date-time of that zone is written in UTC, so no VTIMEZONE is needed).
  A date alone stays a date (``VALUE=DATE``, a whole day); a date-time with ``Z`` or an offset is
  written in UTC; one without either stays floating (local time wherever the calendar is). DTSTAMP is
  the time of the conversion.

Text is escaped (``\\\\`` ``\\,`` ``\\;`` ``\\n``) and every line folded at 75 octets, never inside a
UTF-8 character; lines end with CRLF.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
import zoneinfo
from collections.abc import Callable
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.records import Table
from mcv_pipelines.service.engines.data.tables import cell_text
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED

__all__ = ["fold", "write_ics", "write_vcf"]

_CONTACT = {
    "name": "FN", "fn": "FN", "fullname": "FN", "email": "EMAIL", "emails": "EMAIL", "phone": "TEL",
    "phones": "TEL", "tel": "TEL", "address": "ADR", "addresses": "ADR", "adr": "ADR",
    "organization": "ORG", "org": "ORG", "company": "ORG", "title": "TITLE", "note": "NOTE", "url": "URL",
    "birthday": "BDAY", "bday": "BDAY", "version": "VERSION",
}  # fmt: skip
_N_PARTS = ("familyname", "givenname", "additionalnames", "prefix", "suffix")
_EVENT = {
    "summary": "SUMMARY", "start": "DTSTART", "dtstart": "DTSTART", "end": "DTEND", "dtend": "DTEND",
    "location": "LOCATION", "description": "DESCRIPTION", "uid": "UID", "timezone": "TZID",
    "tzid": "TZID",
}  # fmt: skip
_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}")


def _key(column: str) -> str:
    return re.sub(r"\d+$", "", re.sub(r"[\s_-]+", "", column.lower()))


def escape(text: str) -> str:
    """A TEXT value with its backslashes, commas, semicolons and line breaks escaped."""
    text = text.replace("\\", "\\\\").replace(",", "\\,").replace(";", "\\;")
    return text.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")


def fold(line: str) -> str:
    """A content line folded at 75 octets (a continuation starts with a space), each line + CRLF."""
    data = line.encode()
    pieces: list[bytes] = []
    limit = 75
    while len(data) > limit:
        cut = limit
        while cut > 0 and (data[cut] & 0xC0) == 0x80:
            cut -= 1  # never inside a UTF-8 character
        pieces.append(data[:cut])
        data = data[cut:]
        limit = 74  # the leading space counts
    pieces.append(data)
    return (b"\r\n ".join(pieces) + b"\r\n").decode()


def _columns(table: Table, known: dict[str, str], needed: tuple[str, ...], what: str) -> dict[int, str]:
    """Column index -> the property (or N part) it fills; an error naming a needed one missing."""
    found: dict[int, str] = {}
    for index, column in enumerate(table.columns):
        key = _key(column)
        found[index] = known.get(key) or (key if key in _N_PARTS else f"X-{_x_name(column)}")
    present = set(found.values())
    missing = [prop for prop in needed if prop not in present]
    if missing:
        names = {"FN": "'name' (or 'FN')", "SUMMARY": "'summary'", "DTSTART": "'start' (or 'DTSTART')"}
        raise EngineError(
            CONVERSION_FAILED,
            f"the table has no column {' and no column '.join(names[m] for m in missing)}, which {what} "
            f"needs; its columns are {table.columns}",
        )
    return found


def _x_name(column: str) -> str:
    return re.sub(r"[^A-Za-z0-9-]+", "-", column).strip("-").upper() or "COLUMN"


def _cells(table: Table, row: list[Any], columns: dict[int, str]) -> list[tuple[str, str]]:
    return [
        (columns[index], text)
        for index, value in enumerate(row)
        if index in columns and (text := cell_text(value).strip())
    ]


def write_vcf(table: Table) -> bytes:
    """The table's rows as vCard 4.0 contacts."""
    columns = _columns(table, _CONTACT, ("FN",), "a vCard")
    out: list[str] = []
    for number, row in enumerate(table.rows, start=1):
        cells = _cells(table, row, columns)
        values = dict(cells)
        parts = [values.get(part, "") for part in _N_PARTS]
        name = values.get("FN") or " ".join(p for p in (parts[1], parts[0]) if p)
        if not name:
            raise EngineError(CONVERSION_FAILED, f"row {number} has no name, which a vCard needs (FN)")
        out += ["BEGIN:VCARD", "VERSION:4.0", f"FN:{escape(name)}"]
        if any(parts):
            out.append("N:" + ";".join(escape(p) for p in parts))
        for prop, text in cells:
            if prop in ("FN", "VERSION") or prop in _N_PARTS:
                continue
            out.append(_contact_line(prop, text))
        out.append("END:VCARD")
    return "".join(fold(line) for line in out).encode()


def _contact_line(prop: str, text: str) -> str:
    if prop == "TEL":
        return f"TEL;VALUE=text:{escape(text)}"
    if prop == "ADR":
        return f"ADR:;;{escape(text)};;;;"
    if prop == "URL":
        return f"URL:{text}"
    if prop == "BDAY":
        matched = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text)
        return f"BDAY:{''.join(matched.groups())}" if matched else f"BDAY;VALUE=text:{escape(text)}"
    return f"{prop}:{escape(text)}"


def _moment(value: Any, zone: str | None, where: str) -> tuple[str, str]:
    """(parameters, value) of a DTSTART or DTEND: a DATE, a UTC DATE-TIME or a floating one."""
    if isinstance(value, dt.datetime):
        moment: dt.date = value
    elif isinstance(value, dt.date):
        moment = value
    else:
        text = cell_text(value).strip()
        compact = re.fullmatch(r"(\d{8})(?:T(\d{6})(Z?))?", text)
        if compact:
            day, time, utc = compact.groups()
            text = f"{day[:4]}-{day[4:6]}-{day[6:]}" + (
                f"T{time[:2]}:{time[2:4]}:{time[4:]}{utc}" if time else ""
            )
        try:
            moment = dt.date.fromisoformat(text) if len(text) == 10 else dt.datetime.fromisoformat(text)
        except ValueError as exc:
            raise EngineError(
                CONVERSION_FAILED, f"{where} is {text!r}, not a date or date-time (2024-05-01T09:30:00Z)"
            ) from exc
    if not isinstance(moment, dt.datetime):
        return ";VALUE=DATE", moment.strftime("%Y%m%d")
    if moment.tzinfo is None and zone:
        if not _ZONE.fullmatch(zone):
            raise EngineError(CONVERSION_FAILED, f"{where}: {zone!r} is no time zone name")
        try:
            moment = moment.replace(tzinfo=zoneinfo.ZoneInfo(zone))
        except (zoneinfo.ZoneInfoNotFoundError, ValueError) as exc:
            raise EngineError(CONVERSION_FAILED, f"{where}: no time zone {zone!r}") from exc
    if moment.tzinfo is None:
        return "", moment.strftime("%Y%m%dT%H%M%S")
    return "", moment.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")


def write_ics(table: Table, now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> bytes:
    """The table's rows as the events of one iCalendar file."""
    columns = _columns(table, _EVENT, ("SUMMARY", "DTSTART"), "an iCalendar event")
    stamp = now().strftime("%Y%m%dT%H%M%SZ")
    out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//mcv-pipelines//data engine//EN", "CALSCALE:GREGORIAN"]
    for number, row in enumerate(table.rows, start=1):
        raw = {columns[i]: value for i, value in enumerate(row) if i in columns and value not in (None, "")}
        if "SUMMARY" not in raw or "DTSTART" not in raw:
            raise EngineError(
                CONVERSION_FAILED, f"row {number} has no summary or no start, which an event needs"
            )
        zone = cell_text(raw["TZID"]).strip() if "TZID" in raw else None
        start = _moment(raw["DTSTART"], zone, f"row {number}'s start")
        seed = f"{number}|{cell_text(raw['SUMMARY'])}|{start[1]}"
        uid = cell_text(raw.get("UID", "")).strip() or f"{uuid.uuid5(uuid.NAMESPACE_URL, seed)}@mcv-pipelines"
        out += ["BEGIN:VEVENT", f"UID:{escape(uid)}", f"DTSTAMP:{stamp}", f"DTSTART{start[0]}:{start[1]}"]
        if "DTEND" in raw:
            end = _moment(raw["DTEND"], zone, f"row {number}'s end")
            if end[0] != start[0]:
                raise EngineError(
                    CONVERSION_FAILED, f"row {number}: the start and the end must both be dates or date-times"
                )
            out.append(f"DTEND{end[0]}:{end[1]}")
        for prop, text in _cells(table, row, columns):
            if prop in ("SUMMARY", "LOCATION", "DESCRIPTION") or prop.startswith("X-"):
                out.append(f"{prop}:{escape(text)}")
        out.append("END:VEVENT")
    out.append("END:VCALENDAR")
    return "".join(fold(line) for line in out).encode()
