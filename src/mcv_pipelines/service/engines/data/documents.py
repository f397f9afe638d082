"""Documents among json, yaml, toml, xml and plist (and jsonl, a list with one item a line): where their
models meet.

Every reader makes the same model: objects (dicts, key order kept), lists, text, integers of any size,
floats, booleans, null, dates and date-times (yaml, toml, plist; a toml local time too) and binary
data (yaml's !!binary, plist's <data>). Each writer takes what its format holds and says which value it
cannot, with the value's path:

- json: dates and times become ISO 8601 text, binary data base64 text; NaN and infinities are an error.
- yaml: everything (a time of day becomes its ISO text). Read with the safe loader only.
- toml: no null and no top-level list (an error naming the value's path); integers within 64 bits;
  dates, date-times and local times kept as TOML's own; binary data as base64 text.
- plist: no null (an error); integers within 64 bits; a date becomes ISO text (a plist date is a
  date-time), a date-time is written in UTC (plist dates are UTC; one without an offset is taken as
  UTC), and a plist's dates are read as UTC date-times; xml plist by default,
  ``plist_format: binary`` for the binary one. Both kinds are read.
- xml: see xml_tree.py; everything read from XML is text.
- msgpack (MessagePack, with the msgpack library, Apache-2.0, imported only when a task needs it): one
  object per file; binary data kept; a timestamp (extension -1) read as a UTC date-time and a date-time
  with an offset written as one; a date without a time, a time of day and a date-time without an offset
  as ISO text; integers within 64 bits; any other extension type is refused with its path. Read with
  msgpack's own limits (no length beyond the file's size), so a header claiming a huge array costs
  nothing.

Keys that are not text (yaml's ``1: one``) become their text in every output.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import math
import plistlib
import tomllib
from collections.abc import Callable
from typing import Any

import yaml

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import check_size, path_text
from mcv_pipelines.service.engines.data.xml_tree import read_xml, write_xml
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, INVALID_INPUT_FILE

__all__ = ["DOCUMENT_FORMATS", "dump_document", "load_document", "load_jsonl"]

DOCUMENT_FORMATS = ("json", "yaml", "toml", "xml", "plist")
_INT64 = (-(2**63), 2**64 - 1)  # plist's unsigned 64-bit integers reach 2**64 - 1
_TOML_INT = (-(2**63), 2**63 - 1)

_Where = tuple[str | int, ...]


def _text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"the {what} is not UTF-8 text: {exc}") from exc


def _yaml_loader() -> type[yaml.SafeLoader]:
    loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


def load_jsonl(data: bytes) -> list[Any]:
    """One JSON value a line; blank lines are skipped."""
    rows = []
    for number, line in enumerate(_text(data, "JSON Lines file").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise EngineError(INVALID_INPUT_FILE, f"line {number} is not JSON: {exc}") from exc
    return rows


def load_document(fmt: str, data: bytes) -> Any:
    """The document ``data`` holds as a ``fmt`` file, measured (limits.check_size): a document that
    expands beyond the limits is refused here."""
    document = _parse(fmt, data)
    check_size(document)
    return _utc_dates(document) if fmt == "plist" else document


def _utc_dates(value: Any) -> Any:
    """A plist's dates, which are UTC (plistlib reads them without their zone), made aware of it."""
    if isinstance(value, dict):
        return {key: _utc_dates(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_utc_dates(item) for item in value]
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    return value


def _parse(fmt: str, data: bytes) -> Any:
    try:
        if fmt == "json":
            return json.loads(_text(data, "JSON file"))
        if fmt == "jsonl":
            return load_jsonl(data)
        if fmt == "yaml":
            documents = list(yaml.load_all(_text(data, "YAML file"), Loader=_yaml_loader()))
            if len(documents) > 1:
                raise EngineError(
                    INVALID_INPUT_FILE,
                    f"the YAML file holds {len(documents)} documents; convert one document at a time",
                )
            return documents[0] if documents else None
        if fmt == "toml":
            return tomllib.loads(_text(data, "TOML file"))
        if fmt == "plist":
            return plistlib.loads(data)
        if fmt == "xml":
            return read_xml(data)
        if fmt == "msgpack":
            return _load_msgpack(data)
    except RecursionError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"the {fmt} document nests too deeply") from exc
    except (ValueError, TypeError, yaml.YAMLError, plistlib.InvalidFileException) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise EngineError(INVALID_INPUT_FILE, f"not a valid {fmt} document: {detail}") from exc
    raise EngineError(CONVERSION_FAILED, f"no reader of {fmt} documents")


def _load_msgpack(data: bytes) -> Any:
    import msgpack

    document = msgpack.unpackb(data, raw=False, strict_map_key=False, timestamp=3)

    check_size(document)

    def refuse_extensions(value: Any, where: _Where) -> None:
        if isinstance(value, msgpack.ExtType):  # a namedtuple: checked before lists
            raise EngineError(
                INVALID_INPUT_FILE, f"{path_text(where)} is a MessagePack extension of type {value.code}, "
                "which has no meaning outside the program that wrote it",
            )  # fmt: skip
        if isinstance(value, dict):
            for key, item in value.items():
                refuse_extensions(item, (*where, str(key)))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                refuse_extensions(item, (*where, index))

    refuse_extensions(document, ())
    return document


def _msgpack_leaf(value: Any, where: _Where) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        raise _cannot(where, f"{value}, an integer beyond 64 bits,", "msgpack")
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, plistlib.UID):
        return value.data
    return value


def _cannot(where: _Where, what: str, fmt: str) -> EngineError:
    return EngineError(
        CONVERSION_FAILED, f"{path_text(where)} is {what.rstrip(',')}, which {fmt.upper()} cannot hold"
    )


def _convert(value: Any, where: _Where, leaf: Callable[[Any, _Where], Any]) -> Any:
    """A copy of ``value`` with text keys and every leaf passed through ``leaf``."""
    if isinstance(value, dict):
        return {str(key): _convert(item, (*where, str(key)), leaf) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_convert(item, (*where, index), leaf) for index, item in enumerate(value)]
    return leaf(value, where)


def _json_leaf(value: Any, where: _Where) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        raise _cannot(where, str(value), "json")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, plistlib.UID):
        return value.data
    return value


def _yaml_leaf(value: Any, where: _Where) -> Any:
    if isinstance(value, dt.time):
        return value.isoformat()
    if isinstance(value, plistlib.UID):
        return value.data
    return value


def _toml_leaf(value: Any, where: _Where) -> Any:
    if value is None:
        raise _cannot(where, "null", "toml")
    if isinstance(value, int) and not isinstance(value, bool) and not _TOML_INT[0] <= value <= _TOML_INT[1]:
        raise _cannot(where, f"{value}, an integer beyond 64 bits,", "toml")
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, plistlib.UID):
        return value.data
    return value


def _plist_leaf(value: Any, where: _Where) -> Any:
    if value is None:
        raise _cannot(where, "null", "plist")
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        raise _cannot(where, f"{value}, an integer beyond 64 bits,", "plist")
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            return value.astimezone(dt.UTC).replace(tzinfo=None)
        return value
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return value


def dump_document(fmt: str, document: Any, plist_format: str = "xml") -> bytes:
    """``document`` written as ``fmt`` (see the module docstring for what each format holds)."""
    if fmt in ("json", "jsonl"):
        plain = _convert(document, (), _json_leaf)
        if fmt == "jsonl":
            rows = plain if isinstance(plain, list) else [plain]
            return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
        return (json.dumps(plain, ensure_ascii=False, indent=2) + "\n").encode()
    if fmt == "yaml":
        plain = _convert(document, (), _yaml_leaf)
        text = yaml.dump(
            plain, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False, allow_unicode=True
        )
        return text.encode()
    if fmt == "toml":
        import tomli_w

        if not isinstance(document, dict):
            kind = "a list" if isinstance(document, list) else f"a single {type(document).__name__}"
            raise EngineError(
                CONVERSION_FAILED, f"the document is {kind}; TOML holds only a table at its top ($)"
            )
        return tomli_w.dumps(_convert(document, (), _toml_leaf)).encode()
    if fmt == "plist":
        plain = _convert(document, (), _plist_leaf)
        return plistlib.dumps(
            plain, fmt=plistlib.FMT_BINARY if plist_format == "binary" else plistlib.FMT_XML, sort_keys=False
        )
    if fmt == "xml":
        return write_xml(document)
    if fmt == "msgpack":
        import msgpack

        packed: bytes = msgpack.packb(_convert(document, (), _msgpack_leaf), datetime=True)
        return packed
    raise EngineError(CONVERSION_FAILED, f"no writer of {fmt} documents")
