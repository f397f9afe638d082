"""Checks of the data formats' outputs, each by a parser that is not the engine's writer: json and
jsonl with the json module, yaml with PyYAML's safe loader, toml with tomllib, xml and plist with
ElementTree (not plistlib, which the engine writes with), xlsx by reading its sheets' XML with
ElementTree (not openpyxl), ini with configparser (interpolation off), .properties with a small reader
of Java's syntax written here, msgpack by a decoder of its specification written here (not the msgpack
library), vcf and ics by a content-line reader written here that also checks the folding (no line over
75 octets, CRLF endings) and the card's or calendar's required properties. The word the sample held,
when it held one, must come through (md, html, csv and tsv are text, checked for it by check.py)."""

from __future__ import annotations

import configparser
import json
import re
import struct
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


def _unpack(data: bytes, at: int) -> tuple[Any, int]:
    """One MessagePack value at ``at`` and where the next starts; read from the specification here, not
    with the msgpack library the engine writes with."""
    head = data[at]
    fixed = {0xC0: None, 0xC2: False, 0xC3: True}
    if head in fixed:
        return fixed[head], at + 1
    if head < 0x80 or head >= 0xE0:
        return (head if head < 0x80 else head - 256), at + 1
    sizes = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
    if head in sizes:
        n = sizes[head]
        return int.from_bytes(data[at + 1 : at + 1 + n], "big", signed=head >= 0xD0), at + 1 + n
    if head in (0xCA, 0xCB):
        n = 4 if head == 0xCA else 8
        return struct.unpack(">f" if n == 4 else ">d", data[at + 1 : at + 1 + n])[0], at + 1 + n
    kinds = {0xD9: ("str", 1), 0xDA: ("str", 2), 0xDB: ("str", 4), 0xC4: ("bin", 1), 0xC5: ("bin", 2),
             0xC6: ("bin", 4), 0xDC: ("array", 2), 0xDD: ("array", 4), 0xDE: ("map", 2), 0xDF: ("map", 4),
             0xD6: ("fixext", 4), 0xD7: ("fixext", 8), 0xC7: ("ext", 1)}  # fmt: skip
    if 0xA0 <= head < 0xC0:
        kind, length, at = "str", head & 0x1F, at + 1
    elif 0x90 <= head < 0xA0:
        kind, length, at = "array", head & 0x0F, at + 1
    elif 0x80 <= head < 0x90:
        kind, length, at = "map", head & 0x0F, at + 1
    elif head in kinds:
        kind, n = kinds[head]
        length = n if kind == "fixext" else int.from_bytes(data[at + 1 : at + 1 + n], "big")
        at += 1 if kind == "fixext" else 1 + n
    else:
        raise ValueError(f"unknown MessagePack byte {head:#x} at {at}")
    if kind in ("str", "bin"):
        raw = data[at : at + length]
        return (raw.decode() if kind == "str" else raw), at + length
    if kind in ("fixext", "ext"):
        return ("ext", data[at], data[at + 1 : at + 1 + length]), at + 1 + length
    items = []
    for _ in range(length * (2 if kind == "map" else 1)):
        item, at = _unpack(data, at)
        items.append(item)
    if kind == "map":
        return dict(zip(items[::2], items[1::2], strict=True)), at
    return items, at


def _msgpack(path: Path, word: str | None) -> None:
    data = path.read_bytes()
    value, end = _unpack(data, 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} bytes after the MessagePack object")
    _word(_texts(value), word)


DATA_CHECKS: dict[str, Callable[[Path, str | None], None]] = {
    "json": _json, "jsonl": _jsonl, "yaml": _yaml, "toml": _toml, "xml": _xml, "plist": _plist,
    "xlsx": _xlsx, "ini": _ini, "properties": _properties, "vcf": _vcf, "ics": _ics,
    "msgpack": _msgpack,
}  # fmt: skip
