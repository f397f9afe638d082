"""Loading a pipeline file: safe YAML with file:line:col kept for every node.

PyYAML composes the node tree (marks on every node); we construct plain values ourselves so that each
value's location is recorded by its path (``("tasks", "web", "width")``), duplicate keys are caught,
merge keys (``<<``) work, and YAML 1.1 booleans written as ``no``/``yes``/``on``/``off`` are remembered
so a later check can say "quote it". Only the safe tags are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.errors import InvalidInput

__all__ = ["Document", "PathKey", "load_document", "parse_document", "read_document"]

PathKey = tuple[str | int, ...]

_Loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"
_STR = "tag:yaml.org,2002:str"
_SCALAR_TAGS = frozenset(
    f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null", "timestamp")
)
_PLAIN_BOOLS = frozenset({"true", "false"})
# Aliases are expanded into plain values; these bounds stop alias bombs and runaway nesting.
MAX_VALUES = 200_000
MAX_DEPTH = 100


@dataclass(frozen=True, eq=False)
class Document:
    """A parsed pipeline file: plain values plus where each came from.

    ``locations`` maps a value's path to the start of its node, ``key_locations`` a mapping entry's
    path to the start of its key. ``yaml11_bools`` holds the paths of booleans written the YAML 1.1
    way (``no``, ``on``...) with their source text. ``diagnostics`` are non-fatal load problems
    (duplicate keys): the document is still usable, but it is not valid.
    """

    path: str
    data: Any
    locations: Mapping[PathKey, Location]
    key_locations: Mapping[PathKey, Location]
    yaml11_bools: Mapping[PathKey, str]
    diagnostics: tuple[Diagnostic, ...] = ()
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def locate(self, path: PathKey) -> Location:
        """The location of ``path``, or of its nearest ancestor that has one."""
        locations = self.locations
        while path:
            found = locations.get(path)
            if found is not None:
                return found
            path = path[:-1]
        return locations.get((), Location(self.path, 1, 1))

    def locate_key(self, path: PathKey) -> Location:
        """The location of the key of the mapping entry at ``path`` (falls back to its value)."""
        return self.key_locations.get(path) or self.locate(path)


class _TooLarge(Exception):
    def __init__(self, node: yaml.Node) -> None:
        self.node = node


def _loc(file: str, node: yaml.Node) -> Location:
    mark = node.start_mark
    return Location(file, mark.line + 1, mark.column + 1)


class _Builder:
    def __init__(self, file: str, loader: Any) -> None:
        self.file = file
        self.loader = loader
        self.locations: dict[PathKey, Location] = {}
        self.key_locations: dict[PathKey, Location] = {}
        self.yaml11_bools: dict[PathKey, str] = {}
        self.diagnostics: list[Diagnostic] = []
        self.fatal: list[Diagnostic] = []
        self.count = 0
        self.active: set[int] = set()

    def build(self, node: yaml.Node, path: PathKey) -> Any:
        self.count += 1
        if self.count > MAX_VALUES or len(path) > MAX_DEPTH or id(node) in self.active:
            raise _TooLarge(node)
        self.locations[path] = _loc(self.file, node)
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        self.active.add(id(node))
        try:
            return self._collection(node, path)
        finally:
            self.active.discard(id(node))

    def _collection(self, node: yaml.Node, path: PathKey) -> Any:
        if isinstance(node, yaml.MappingNode):
            if node.tag != _MAP:
                return self._bad_tag(node)
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != _SEQ:
                return self._bad_tag(node)
            return [self.build(child, (*path, i)) for i, child in enumerate(node.value)]
        return self._bad_tag(node)

    def _bad_tag(self, node: yaml.Node) -> None:
        self.fatal.append(
            Diagnostic(
                "yaml-syntax",
                Severity.ERROR,
                f"unsupported YAML tag {node.tag!r}",
                _loc(self.file, node),
                hint="only plain YAML values (strings, numbers, booleans, null, lists, mappings) are allowed",
            )
        )
        return None

    def _scalar(self, node: yaml.ScalarNode, path: PathKey) -> Any:
        if node.tag == _STR:
            # What the constructor would return, without its per-node bookkeeping: most values of a
            # pipeline are strings, and `mcv lsp` parses the whole file on every change.
            return node.value
        if node.tag not in _SCALAR_TAGS:
            return self._bad_tag(node)
        if node.tag.endswith(":timestamp"):
            return node.value  # a date is text to the service; keep what was written
        value = self.loader.construct_object(node, deep=True)
        if isinstance(value, bool) and not node.style and node.value.lower() not in _PLAIN_BOOLS:
            self.yaml11_bools[path] = node.value
        return value

    def _pairs(
        self, node: yaml.MappingNode, merging: frozenset[int] = frozenset()
    ) -> list[tuple[yaml.Node, yaml.Node]]:
        """Key/value node pairs with merge keys (``<<``) resolved; explicit keys win over merged ones."""
        own: list[tuple[yaml.Node, yaml.Node]] = []
        merged: list[tuple[yaml.Node, yaml.Node]] = []
        for key, value in node.value:
            if key.tag == _MERGE:
                sources = value.value if isinstance(value, yaml.SequenceNode) else [value]
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        self.fatal.append(
                            Diagnostic(
                                "yaml-syntax",
                                Severity.ERROR,
                                "a merge key (<<) needs a mapping or a list of mappings",
                                _loc(self.file, source),
                            )
                        )
                        continue
                    if id(source) in merging or id(source) in self.active or len(merging) > MAX_DEPTH:
                        raise _TooLarge(source)  # a mapping merged into itself
                    merged.extend(self._pairs(source, merging | {id(node)}))
            else:
                own.append((key, value))
        own_keys = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
        seen: set[str] = set()
        result: list[tuple[yaml.Node, yaml.Node]] = []
        for key, value in merged:
            if key.value not in own_keys and key.value not in seen:
                seen.add(key.value)
                result.append((key, value))
        return result + own

    def _mapping(self, node: yaml.MappingNode, path: PathKey) -> dict[str, Any]:
        result: dict[str, Any] = {}
        first_seen: dict[str, Location] = {}
        for key_node, value_node in self._pairs(node):
            if not isinstance(key_node, yaml.ScalarNode):
                self.fatal.append(
                    Diagnostic(
                        "yaml-syntax",
                        Severity.ERROR,
                        "a mapping key must be a plain value, not a list or mapping",
                        _loc(self.file, key_node),
                    )
                )
                continue
            # Keys are names, never values: `on:` stays the string "on", not True.
            key = key_node.value
            key_loc = _loc(self.file, key_node)
            if key in first_seen:
                self.diagnostics.append(
                    Diagnostic(
                        "yaml-duplicate-key",
                        Severity.ERROR,
                        f"duplicate key {key!r} (first at line {first_seen[key].line})",
                        key_loc,
                        hint="each key may appear once in a mapping; remove or rename one of them",
                        related=(first_seen[key],),
                    )
                )
                continue
            first_seen[key] = key_loc
            self.key_locations[(*path, key)] = key_loc
            result[key] = self.build(value_node, (*path, key))
        return result


def _position(text: bytes, offset: int) -> tuple[int, int]:
    before = text[:offset]
    line = before.count(b"\n") + 1
    column = offset - (before.rfind(b"\n") + 1) + 1
    return line, column


def parse_document(raw: bytes, file: str) -> Document:
    """Parse ``raw`` bytes of a pipeline named ``file``; raises ``InvalidInput`` when it is not YAML."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _position(raw, exc.start)
        raise InvalidInput(
            f"{file}: not UTF-8",
            [
                Diagnostic(
                    "yaml-encoding",
                    Severity.ERROR,
                    f"the file is not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})",
                    Location(file, line, column),
                    hint="save the file as UTF-8",
                )
            ],
        ) from None
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
    except RecursionError:
        raise InvalidInput(
            f"{file}: nested too deeply",
            [
                Diagnostic(
                    "yaml-syntax", Severity.ERROR, "the file is nested too deeply", Location(file, 1, 1)
                )
            ],
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file, 1, 1)
        problem = exc.problem or "invalid YAML"
        if exc.context:
            started = exc.context_mark
            at = f" at line {started.line + 1}" if started and mark and started.line != mark.line else ""
            problem = f"{problem} ({exc.context}{at})"
        raise InvalidInput(
            f"{file}: invalid YAML", [Diagnostic("yaml-syntax", Severity.ERROR, problem, where)]
        ) from None
    except yaml.YAMLError as exc:
        raise InvalidInput(
            f"{file}: invalid YAML",
            [Diagnostic("yaml-syntax", Severity.ERROR, str(exc), Location(file, 1, 1))],
        ) from None
    finally:
        loader.dispose()
    if root is None:
        raise InvalidInput(
            f"{file}: empty",
            [
                Diagnostic(
                    "yaml-empty",
                    Severity.ERROR,
                    "the file is empty: a pipeline needs at least `version: 1` and `tasks`",
                    Location(file, 1, 1),
                    hint="start from an example in pipelines/",
                )
            ],
        )
    builder = _Builder(file, loader)
    try:
        data = builder.build(root, ())
    except _TooLarge as exc:
        raise InvalidInput(
            f"{file}: too large",
            [
                Diagnostic(
                    "yaml-syntax",
                    Severity.ERROR,
                    f"the document expands to more than {MAX_VALUES} values, nests deeper than {MAX_DEPTH} "
                    "levels, or an alias refers to itself",
                    _loc(file, exc.node),
                    hint="anchors and aliases are for reuse, not for building large structures",
                )
            ],
        ) from None
    if builder.fatal:
        raise InvalidInput(f"{file}: invalid YAML", builder.fatal + builder.diagnostics)
    return Document(
        path=file,
        data=data,
        locations=builder.locations,
        key_locations=builder.key_locations,
        yaml11_bools=builder.yaml11_bools,
        diagnostics=tuple(builder.diagnostics),
    )


def load_document(path: str | Path) -> Document:
    """Read and parse a pipeline file.

    Raises ``InvalidInput`` (with diagnostics) when the file cannot be read or is not a YAML
    document; problems that leave a usable document (duplicate keys) are in ``Document.diagnostics``.
    """
    file = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInput(
            f"{file}: cannot read",
            [
                Diagnostic(
                    "file-unreadable",
                    Severity.ERROR,
                    f"cannot read the file: {exc.strerror}",
                    Location(file, 1, 1),
                )
            ],
        ) from None
    return parse_document(raw, file)


def read_document(
    path: str | Path, *, content: bytes | None = None
) -> tuple[Document | None, list[Diagnostic]]:
    """``load_document`` that returns its problems instead of raising (for checks that collect).

    With ``content``, those bytes are parsed as the file ``path`` instead of reading it.
    """
    try:
        document = load_document(path) if content is None else parse_document(content, str(path))
    except InvalidInput as exc:
        return None, list(exc.diagnostics)
    return document, list(document.diagnostics)
