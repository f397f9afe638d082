"""Settings files: ini (sections of ``key = value``) and Java .properties (flat ``key=value``), read as
documents and written from them.

ini is read as Python's configparser reads it with interpolation off (``%`` is text), key case kept,
``key = value`` or ``key: value``, ``#`` and ``;`` comment lines, indented lines continuing a value; a
``[DEFAULT]`` section is an ordinary section here (its keys are not copied into the others). The
document is two levels: sections -> keys -> values, every value text (a key without a value: null). A
key before any section, or a section or key given twice, is an error. Written from a document of
the same shape: a value is written as its text (numbers as written, true/false, dates ISO 8601, null
as an empty value; spaces around a value are not kept, as INI readers strip them), a value of several
lines continues on indented lines (one whose later line starts with ``#`` or ``;`` fails: INI reads a
comment there); a document deeper than two
levels, a value outside a section or a list fails naming its path.

.properties is read as java.util.Properties reads it: ``#`` and ``!`` comments, ``=``, ``:`` or
spaces between key and value, a line ending in an odd number of backslashes continued on the next,
``\\t \\n \\r \\f \\uXXXX`` and ``\\`` before any other character undone; UTF-8 (Java 9's resource
bundles), else ISO 8859-1. The document is flat: keys as written (``a.b.c`` stays one key, never split),
every value text. Written: a nested object's keys joined with dots (``{"a": {"b": 1}}`` is ``a.b=1``;
a joined key met twice fails), lists fail naming their path, non-ASCII as ``\\uXXXX`` so both UTF-8 and
ISO 8859-1 readers get it right.
"""

from __future__ import annotations

import configparser
import re
from typing import Any

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import MAX_VALUES, path_text
from mcv_pipelines.service.engines.data.tables import cell_text
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, INVALID_INPUT_FILE

__all__ = ["dump_ini", "dump_properties", "load_ini", "load_properties"]

_NO_DEFAULT = "\x00no default section"  # [DEFAULT] read as an ordinary section


def _text(data: bytes, fallback: str) -> str:
    if b"\x00" in data:  # any byte decodes as Latin-1: a binary file would pass for keys and values
        raise EngineError(INVALID_INPUT_FILE, "the file holds NUL bytes: it is binary, not a text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode(fallback)


class _CaseKeeping(configparser.ConfigParser):
    """Keys as written: configparser lowercases them by default."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def load_ini(data: bytes) -> dict[str, dict[str, str | None]]:
    parser = _CaseKeeping(interpolation=None, allow_no_value=True, default_section=_NO_DEFAULT, strict=True)
    try:
        parser.read_string(_text(data, "cp1252"))
    except configparser.Error as exc:
        detail = " ".join(str(exc).split())
        raise EngineError(INVALID_INPUT_FILE, f"not a valid ini file: {detail}") from exc
    document: dict[str, dict[str, str | None]] = {
        name: dict(parser.items(name, raw=True)) for name in parser.sections()
    }
    if sum(len(keys) + 1 for keys in document.values()) > MAX_VALUES:
        raise EngineError(INVALID_INPUT_FILE, f"the ini file holds more than {MAX_VALUES:,} values")
    return document


def _value_text(value: Any) -> str:
    return cell_text(value)


def dump_ini(document: Any) -> bytes:
    if not isinstance(document, dict):
        raise EngineError(CONVERSION_FAILED, "the document is no object ($); INI holds sections of keys")
    lines: list[str] = []
    for section, keys in document.items():
        name = str(section)
        if not isinstance(keys, dict):
            kind = "a list" if isinstance(keys, list) else "a value outside any section"
            raise EngineError(
                CONVERSION_FAILED,
                f"{path_text((name,))} is {kind}; INI holds sections of keys with plain values",
            )
        if not name or any(c in name for c in "]\r\n") or name != name.strip():
            raise EngineError(CONVERSION_FAILED, f"{path_text((name,))}: {name!r} cannot name an INI section")
        lines.append(f"[{name}]")
        for key, value in keys.items():
            where = (name, str(key))
            if isinstance(value, dict | list):
                raise EngineError(
                    CONVERSION_FAILED,
                    f"{path_text(where)} is {'an object' if isinstance(value, dict) else 'a list'}; "
                    "INI holds two levels only (sections of keys with plain values)",
                )
            key_text = str(key)
            if (not key_text or key_text != key_text.strip() or re.search(r"[=:\r\n]", key_text)
                    or key_text[0] in "#;["):  # fmt: skip
                raise EngineError(CONVERSION_FAILED, f"{path_text(where)}: {key_text!r} cannot be an INI key")
            text = _value_text(value).strip()
            if any(line.lstrip()[:1] in ("#", ";") for line in text.splitlines()[1:]):
                raise EngineError(
                    CONVERSION_FAILED, f"{path_text(where)} has a line starting with # or ;, an INI comment"
                )
            lines.append(f"{key_text} = {text.replace(chr(10), chr(10) + chr(9))}".rstrip())
        lines.append("")
    return "\n".join(lines).encode()


_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}


def _logical_lines(text: str) -> list[str]:
    lines: list[str] = []
    current: str | None = None
    for raw in text.splitlines():
        line = raw.lstrip(" \t\f")
        if current is None and (not line or line[0] in "#!"):
            continue
        trailing = len(line) - len(line.rstrip("\\"))
        body = line[:-1] if trailing % 2 else line
        current = body if current is None else current + body
        if not trailing % 2:
            lines.append(current)
            current = None
    if current is not None:
        lines.append(current)
    return lines


def _unescape(text: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char != "\\" or index + 1 >= len(text):
            out.append(char)
            index += 1
            continue
        code = text[index + 1]
        if code == "u":
            digits = text[index + 2 : index + 6]
            if not re.fullmatch(r"[0-9A-Fa-f]{4}", digits):
                raise EngineError(
                    INVALID_INPUT_FILE, f"malformed \\uXXXX escape: {text[index : index + 6]!r}"
                )
            out.append(chr(int(digits, 16)))
            index += 6
        else:
            out.append(_ESCAPES.get(code, code))
            index += 2
    joined = "".join(out)
    return joined.encode("utf-16", "surrogatepass").decode("utf-16", "replace")  # pairs made whole


def load_properties(data: bytes) -> dict[str, str]:
    document: dict[str, str] = {}
    for line in _logical_lines(_text(data, "latin-1")):
        index = 0
        while index < len(line) and not (line[index] in "=: \t\f" and _unescaped(line, index)):
            index += 1
        key, separator = line[:index], line[index : index + 1]
        rest = line[index + 1 :].lstrip(" \t\f")
        if separator not in ("=", ":") and rest[:1] in ("=", ":"):
            rest = rest[1:].lstrip(" \t\f")  # "key = value": the spaces, then one = or :
        document[_unescape(key)] = _unescape(rest)
        if len(document) > MAX_VALUES:
            raise EngineError(INVALID_INPUT_FILE, f"the properties file holds more than {MAX_VALUES:,} keys")
    return document


def _unescaped(line: str, index: int) -> bool:
    backslashes = len(line[:index]) - len(line[:index].rstrip("\\"))
    return backslashes % 2 == 0


def _escape(text: str, key: bool) -> str:
    out: list[str] = []
    for position, char in enumerate(text):
        if char == "\\":
            out.append("\\\\")
        elif char in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[char])
        elif char in "=:#!" or (char == " " and (key or position == 0)):
            out.append("\\" + char)
        elif not 0x20 <= ord(char) <= 0x7E:
            out.append("".join(f"\\u{unit:04x}" for unit in _utf16(char)))
        else:
            out.append(char)
    return "".join(out)


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def dump_properties(document: Any) -> bytes:
    flat: dict[str, str] = {}

    def walk(value: Any, where: tuple[str, ...]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, (*where, str(key)))
            return
        if isinstance(value, list):
            raise EngineError(
                CONVERSION_FAILED, f"{path_text(where)} is a list; .properties holds keys with plain values"
            )
        if not where:
            raise EngineError(CONVERSION_FAILED, "the document is a single value ($); .properties holds keys")
        key = ".".join(where)
        if key in flat:
            raise EngineError(
                CONVERSION_FAILED, f"{path_text(where)} joins to the key {key!r}, which is met twice"
            )
        flat[key] = _value_text(value)

    walk(document, ())
    lines = [f"{_escape(key, True)}={_escape(value, False)}" for key, value in flat.items()]
    return ("\n".join(lines) + "\n").encode("ascii")
