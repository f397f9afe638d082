"""Checks of the data formats' outputs, each by a parser that is not the engine's writer: json and
jsonl with the json module, yaml with PyYAML's safe loader, toml with tomllib, xml and plist with
ElementTree (not plistlib, which the engine writes with), xlsx by reading its sheets' XML with
ElementTree (not openpyxl). The word the sample held, when it held one, must come through (md, html,
csv and tsv are text, checked for it by check.py)."""

from __future__ import annotations

import json
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


DATA_CHECKS: dict[str, Callable[[Path, str | None], None]] = {
    "json": _json, "jsonl": _jsonl, "yaml": _yaml, "toml": _toml, "xml": _xml, "plist": _plist,
    "xlsx": _xlsx,
}  # fmt: skip
