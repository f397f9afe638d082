"""Stream parsers for manifest files: CSV/TSV with a header, JSONL, and a YAML list of mappings.

Each reader takes the file as an iterable of byte lines and yields ``(line, values)`` one record at a
time, so a manifest of a million rows is never held whole. Lines are decoded one by one: UTF-8 never
puts a newline byte inside a character, and a decoding error can then name its exact line.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any, Protocol

import yaml

from mcv_pipelines.batch.errors import ManifestError

__all__ = ["RawRecord", "decode_lines", "read_csv", "read_jsonl", "read_yaml"]

RawRecord = tuple[int | None, dict[str, Any]]
"""One record as read: the line it starts on (1-based) and its values by column."""

_BOM = b"\xef\xbb\xbf"
_OTHER_BOMS = (b"\xff\xfe", b"\xfe\xff")
_ENCODING_HINT = "save the manifest as UTF-8"


def decode_lines(lines: Iterable[bytes], file: str) -> Iterator[str]:
    """Decode byte lines as UTF-8 (a leading BOM is dropped), naming the line of a bad byte."""
    for number, raw in enumerate(lines, start=1):
        chunk = raw
        if number == 1:
            if chunk.startswith(_BOM):
                chunk = chunk[len(_BOM) :]
            elif chunk.startswith(_OTHER_BOMS):
                raise ManifestError(
                    file, "is UTF-16, not UTF-8", line=number, rule="manifest-encoding", hint=_ENCODING_HINT
                )
        try:
            yield chunk.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ManifestError(
                file,
                f"is not UTF-8: byte 0x{chunk[exc.start]:02x} at column {exc.start + 1} cannot be decoded",
                line=number,
                column=exc.start + 1,
                rule="manifest-encoding",
                hint=_ENCODING_HINT,
            ) from None


def read_csv(lines: Iterable[bytes], file: str, *, delimiter: str = ",") -> Iterator[RawRecord]:
    """Records of a CSV file whose first record is the header; every cell is a string.

    Blank lines are skipped; a record's line is the physical line it starts on (a quoted cell may span
    lines). Header names are stripped of surrounding spaces.
    """
    reader = csv.reader(decode_lines(lines, file), delimiter=delimiter, strict=True)
    header: list[str] | None = None
    while True:
        start = reader.line_num + 1
        try:
            record = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            problem, hint = _csv_problem(str(exc))
            raise ManifestError(file, problem, line=start, rule="manifest-csv", hint=hint) from None
        if not record:
            continue
        if header is None:
            header = _check_header(record, file, start)
            continue
        if len(record) != len(header):
            raise ManifestError(
                file,
                f"has {len(record)} cells in this row but the header has {len(header)} columns",
                line=start,
                rule="manifest-ragged",
                hint="quote cells that contain the delimiter, and give every row one cell per column",
            )
        yield start, dict(zip(header, record, strict=True))
    if header is None:
        raise ManifestError(
            file, "is empty: expected a header line and at least one row", rule="manifest-empty"
        )


def _csv_problem(text: str) -> tuple[str, str | None]:
    """The csv module's message, said for someone holding the file rather than the file object."""
    if "new-line character seen in unquoted field" in text:
        return ("has lines ending in a bare carriage return (CR)",
                "save it with LF or CRLF line endings")
    if "end of data" in text:
        return "is not valid CSV: unexpected end of the file", "a quoted cell in this row is never closed"
    if "field larger than field limit" in text:
        return (f"is not valid CSV: {text}",
                "usually a quote opened in this row and closed much later; check the quoting")
    return f"is not valid CSV: {text}", None


def _check_header(record: list[str], file: str, line: int) -> list[str]:
    names = [cell.strip() for cell in record]
    seen: dict[str, int] = {}
    for position, name in enumerate(names, start=1):
        if not name:
            raise ManifestError(
                file, f"header column {position} has no name", line=line, rule="manifest-header"
            )
        if name in seen:
            raise ManifestError(
                file,
                f"header names column {name!r} twice (columns {seen[name]} and {position})",
                line=line,
                rule="manifest-header",
            )
        seen[name] = position
    return names


def read_jsonl(lines: Iterable[bytes], file: str) -> Iterator[RawRecord]:
    """Records of a JSON Lines file: one JSON object per non-blank line."""
    for number, text in enumerate(decode_lines(lines, file), start=1):
        if not text.strip():
            continue
        try:
            value = json.loads(text, object_pairs_hook=_unique_pairs, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise ManifestError(
                file, f"is not valid JSON: {exc.msg}", line=number, column=exc.colno, rule="manifest-json"
            ) from None
        except ValueError as exc:
            raise ManifestError(file, str(exc), line=number, rule="manifest-json") from None
        if not isinstance(value, dict):
            raise ManifestError(
                file,
                f"has a JSON {_json_kind(value)} on this line; every line must be an object",
                line=number,
                rule="manifest-json",
                hint='write one object per line, e.g. {"photo": "a.jpg", "width": 320}',
            )
        yield number, value


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, value in pairs:
        if name in result:
            raise ValueError(f"has the field {name!r} twice in one object")
        result[name] = value
    return result


def _no_constant(name: str) -> Any:
    raise ValueError(f"has {name}, which is not a JSON value")


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "boolean" if isinstance(value, bool) else "number"


class _Lines:
    """A read()-able view of an iterable of byte lines, so PyYAML reads it chunk by chunk."""

    def __init__(self, lines: Iterable[bytes]) -> None:
        self._lines = iter(lines)
        self._buffer = b""

    def read(self, size: int = -1) -> bytes:
        while size < 0 or len(self._buffer) < size:
            chunk = next(self._lines, None)
            if chunk is None:
                break
            self._buffer += chunk
        if size < 0:
            size = len(self._buffer)
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data


class _Loader(Protocol):
    """What the YAML reader uses of a PyYAML loader, C (libyaml) or pure Python."""

    def check_event(self, *choices: type[yaml.Event]) -> bool: ...
    def get_event(self) -> yaml.Event | None: ...
    def peek_event(self) -> yaml.Event | None: ...
    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None: ...
    def construct_document(self, node: yaml.Node) -> Any: ...
    def dispose(self) -> None: ...


class _PureLoader(yaml.SafeLoader):
    """Safe loading in pure Python, where PyYAML was built without libyaml."""


_LOADERS: list[type[Any]] = [_PureLoader]
if yaml.__with_libyaml__:  # libyaml parses about 7 times faster; composing stays PyYAML's own code
    from yaml._yaml import CParser
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    class _FastLoader(CParser, Composer, SafeConstructor, Resolver):
        def __init__(self, stream: Any) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)

    _LOADERS.insert(0, _FastLoader)

for _loader in _LOADERS:
    # Dates stay the text they were written as: manifest cells are JSON values.
    _loader.yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }

_JSON_SCALARS = (str, int, float, bool, type(None))


def read_yaml(lines: Iterable[bytes], file: str) -> Iterator[RawRecord]:
    """Records of a YAML document that is a list of mappings, composed one item at a time."""
    loader: _Loader = _LOADERS[0](_Lines(_reencode(decode_lines(lines, file))))
    try:
        yield from _yaml_items(loader, file)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        raise ManifestError(
            file,
            f"is not valid YAML: {exc.problem or exc}",
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
            rule="manifest-yaml",
        ) from None
    except yaml.YAMLError as exc:
        raise ManifestError(file, f"is not valid YAML: {exc}", rule="manifest-yaml") from None
    finally:
        loader.dispose()


def _reencode(texts: Iterator[str]) -> Iterator[bytes]:
    # Decoding first gives bad bytes their line; PyYAML then reads clean UTF-8.
    for text in texts:
        yield text.encode("utf-8")


def _yaml_items(loader: _Loader, file: str) -> Iterator[RawRecord]:
    _skip_event(loader)  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        return
    _skip_event(loader)  # document start
    if not loader.check_event(yaml.SequenceStartEvent):
        node = loader.compose_node(None, None)  # type: ignore[arg-type]  # PyYAML accepts None parents
        if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null":
            return
        raise ManifestError(
            file,
            "must be a YAML list of mappings (one per row), not a "
            + ("mapping" if isinstance(node, yaml.MappingNode) else "single value"),
            line=node.start_mark.line + 1 if node else None,
            rule="manifest-yaml",
            hint="start each row with '- ', e.g. '- {photo: a.jpg, width: 320}'",
        )
    _skip_event(loader)
    while not loader.check_event(yaml.SequenceEndEvent):
        node = loader.compose_node(None, None)  # type: ignore[arg-type]  # PyYAML accepts None parents
        assert node is not None
        line = node.start_mark.line + 1
        if not isinstance(node, yaml.MappingNode):
            raise ManifestError(
                file, "has a list item that is not a mapping", line=line, rule="manifest-yaml",
                hint="every item is one row: a mapping of column names to values",
            )
        _check_mapping_keys(node, file)
        value = loader.construct_document(node)
        _check_json_values(value, file, line)
        yield line, value
    _skip_event(loader)  # sequence end
    _skip_event(loader)  # document end
    if not loader.check_event(yaml.StreamEndEvent):
        raise ManifestError(
            file, "has more than one YAML document; put every row in one list",
            line=_peek_line(loader), rule="manifest-yaml",
        )


def _skip_event(loader: _Loader) -> None:
    loader.get_event()


def _peek_line(loader: _Loader) -> int:
    event = loader.peek_event()
    mark = event.start_mark if event is not None else None
    return mark.line + 1 if mark is not None else 0


def _check_mapping_keys(node: yaml.MappingNode, file: str) -> None:
    seen: set[object] = set()
    for key_node, _ in node.value:
        where = key_node.start_mark.line + 1
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
            raise ManifestError(
                file, f"has a column name that is not a string: {getattr(key_node, 'value', '?')!r}",
                line=where, rule="manifest-yaml", hint="quote the column name",
            )
        if key_node.value in seen:
            raise ManifestError(
                file, f"names the column {key_node.value!r} twice in one row", line=where,
                rule="manifest-yaml",
            )
        seen.add(key_node.value)


def _check_json_values(value: Any, file: str, line: int) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _check_json_values(item, file, line)
    elif isinstance(value, list):
        for item in value:
            _check_json_values(item, file, line)
    elif not isinstance(value, _JSON_SCALARS):
        raise ManifestError(
            file, f"has a value of YAML type {type(value).__name__}, which a manifest cell cannot hold",
            line=line, rule="manifest-yaml",
        )
