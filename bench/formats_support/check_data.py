"""Checks of the data formats' outputs, each by a parser that is not the engine's writer: json and
jsonl with the json module, yaml with PyYAML's safe loader, toml with tomllib, xml and plist with
ElementTree (not plistlib, which the engine writes with), xlsx by reading its sheets' XML with
ElementTree (not openpyxl), ini with configparser (interpolation off), .properties with a small reader
of Java's syntax written here, vcf and ics by a content-line reader written here that also checks the
folding (no line over 75 octets, CRLF endings) and the card's or calendar's required properties. The
word the sample held, when it held one, must come through (md, html,
csv and tsv are text, checked for it by check.py)."""

from __future__ import annotations

import configparser
import json
import re
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from defusedxml import ElementTree as ET

__all__ = ["DATA_CHECKS"]


def _texts(value: Any) -> str:
    return json.dumps(value, default=str, ensure_ascii=False)


def _word(found: str, word: str | None) -> None:
    if word and word not in found:
        raise ValueError(f"the parsed output lost the word {word!r}")


def _json(path: Path, word: str | None) -> None:
    _word(_texts(json.loads(path.read_text(encoding="utf-8"))), word)


def _jsonl(path: Path, word: str | None) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        raise ValueError("no JSON line")
    _word(_texts(rows), word)


def _yaml(path: Path, word: str | None) -> None:
    _word(_texts(yaml.safe_load(path.read_text(encoding="utf-8"))), word)


def _toml(path: Path, word: str | None) -> None:
    _word(_texts(tomllib.loads(path.read_text(encoding="utf-8"))), word)


def _xml(path: Path, word: str | None) -> None:
    root = ET.fromstring(path.read_bytes())
    _word(" ".join(root.itertext()) + " ".join(str(e.attrib) for e in root.iter()), word)


def _plist(path: Path, word: str | None) -> None:
    root = ET.fromstring(path.read_bytes())
    if root.tag != "plist" or len(root) != 1:
        raise ValueError(f"not an XML property list (root {root.tag!r})")
    _word(" ".join(root.itertext()), word)


def _xlsx(path: Path, word: str | None) -> None:
    with zipfile.ZipFile(path) as package:
        texts = [
            " ".join(ET.fromstring(package.read(name)).itertext())
            for name in package.namelist()
            if name.startswith("xl/worksheets/") or name == "xl/sharedStrings.xml"
        ]
    _word(" ".join(texts), word)


def _ini(path: Path, word: str | None) -> None:
    parser = configparser.ConfigParser(interpolation=None, allow_no_value=True)
    parser.read_string(path.read_text(encoding="utf-8"))
    if not parser.sections():
        raise ValueError("no section")
    _word(_texts({s: dict(parser.items(s, raw=True)) for s in parser.sections()}), word)


def _properties(path: Path, word: str | None) -> None:
    """Java's syntax, enough to read back what a writer escapes: key, separator, \\uXXXX."""
    text = path.read_bytes().decode("latin-1")
    found: dict[str, str] = {}
    lines = re.sub(r"(?<!\\)((?:\\\\)*)\\\r?\n[ \t\f]*", r"\1", text).splitlines()
    for line in (raw.lstrip() for raw in lines):
        if not line or line[0] in "#!":
            continue
        matched = re.match(r"((?:\\.|[^=:\s\\])*)\s*[=:]?\s*(.*)", line)
        if not matched:
            raise ValueError(f"unreadable line {line!r}")

        def undo(value: str) -> str:
            value = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), value)
            value = value.encode("utf-16", "surrogatepass").decode("utf-16")
            codes = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
            return re.sub(r"\\(.)", lambda m: codes.get(m[1], m[1]), value)

        found[undo(matched.group(1))] = undo(matched.group(2))
    if not found:
        raise ValueError("no key")
    _word(_texts(found), word)


def _content_lines(path: Path, begin: str, required: tuple[str, ...]) -> list[str]:
    data = path.read_bytes()
    if not data.endswith(b"\r\n") or b"\n" in data.replace(b"\r\n", b""):
        raise ValueError("lines do not all end with CRLF")
    for number, line in enumerate(data.split(b"\r\n")[:-1], start=1):
        if len(line) > 75:
            raise ValueError(f"line {number} is {len(line)} octets, over the 75 of folding")
    lines = re.sub(r"\r\n[ \t]", "", data.decode("utf-8")).split("\r\n")[:-1]
    if lines[0] != f"BEGIN:{begin}" or lines[-1] != f"END:{begin}":
        raise ValueError(f"not a {begin}: it starts {lines[0]!r}")
    names = {re.split(r"[;:]", line, maxsplit=1)[0].upper() for line in lines}
    missing = [name for name in required if name not in names]
    if missing:
        raise ValueError(f"no {', '.join(missing)}")
    return lines


def _vcf(path: Path, word: str | None) -> None:
    lines = _content_lines(path, "VCARD", ("VERSION", "FN"))
    if lines[1] != "VERSION:4.0":
        raise ValueError(f"the version is {lines[1]!r}, not 4.0")
    _word(" ".join(lines).replace("\\,", ","), word)


def _ics(path: Path, word: str | None) -> None:
    lines = _content_lines(path, "VCALENDAR", ("VERSION", "PRODID", "BEGIN", "UID", "DTSTAMP", "DTSTART"))
    if lines.count("BEGIN:VEVENT") != sum(1 for line in lines if line.startswith("UID:")):
        raise ValueError("not every event has its UID")
    _word(" ".join(lines), word)


DATA_CHECKS: dict[str, Callable[[Path, str | None], None]] = {
    "json": _json, "jsonl": _jsonl, "yaml": _yaml, "toml": _toml, "xml": _xml, "plist": _plist,
    "xlsx": _xlsx, "ini": _ini, "properties": _properties, "vcf": _vcf, "ics": _ics,
}  # fmt: skip
