"""XML to a document (nested dicts and lists) and back, with the common convention (as xmltodict has it).

Reading:
- the root element becomes the document's one key: ``<animals>...</animals>`` -> ``{"animals": ...}``;
- an element with neither attributes nor children becomes its text (``None`` when it is empty);
- otherwise an object: attributes first as ``"@name"``, then the child elements in the order their
  names first appear, a name met more than once becoming a list of its elements in document order,
  then the element's own text, stripped, as ``"#text"`` when it has any (mixed content keeps its text
  but not where it stood between the children);
- names are kept as written, prefixes included (``dc:title``), and namespace declarations are
  attributes like any other (``"@xmlns:dc"``), so a document read and written again keeps them;
- every value is text: XML has no numbers, booleans or dates. Comments and processing instructions go.

Writing is the reverse: a document that is one object with one key whose value is not a list names
its root element; any other document is wrapped, a list in ``<rows>`` with one ``<row>`` per item, an
object in ``<root>``. Numbers and dates are written as their text, ``true``/``false`` for booleans,
binary data as base64, ``None`` as an empty element. A key that is no XML name is an error naming its
path.

Safety: the stdlib's expat parser, with every entity declaration refused (no billion laughs, no
external entity), never asked to load an external DTD, nothing resolved by name (an XInclude is only
an element called ``xi:include``), and nesting deeper than ``limits.MAX_DEPTH`` refused.
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from typing import Any
from xml.etree import ElementTree as ET
from xml.parsers import expat

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.limits import MAX_DEPTH, path_text
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, INVALID_INPUT_FILE

__all__ = ["read_xml", "write_xml"]

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # characters XML 1.0 cannot hold
_NAME = re.compile(r"[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?")


class _Element:
    __slots__ = ("attributes", "children", "name", "text")

    def __init__(self, name: str, attributes: dict[str, str]) -> None:
        self.name = name
        self.attributes = attributes
        self.children: dict[str, Any] = {}
        self.text: list[str] = []

    def value(self) -> Any:
        text = "".join(self.text)
        if not self.attributes and not self.children:
            return text if text.strip() else None
        built: dict[str, Any] = {f"@{name}": value for name, value in self.attributes.items()}
        built.update(self.children)
        if text.strip():
            built["#text"] = text.strip()
        return built

    def add(self, name: str, value: Any, repeated: set[str]) -> None:
        if name not in self.children:
            self.children[name] = value
        elif name in repeated:
            self.children[name].append(value)
        else:
            self.children[name] = [self.children[name], value]
            repeated.add(name)


def read_xml(data: bytes) -> dict[str, Any]:
    """The document an XML file holds, as the module's docstring maps it."""
    parser = expat.ParserCreate()
    parser.buffer_text = True
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[tuple[_Element, set[str]]] = []
    result: dict[str, Any] = {}

    def refuse_entity(name: str, *_: Any) -> None:
        raise EngineError(
            INVALID_INPUT_FILE, f"the XML declares an entity ({name}); entity declarations are refused"
        )

    def refuse_external(*_: Any) -> int:
        raise EngineError(INVALID_INPUT_FILE, "the XML refers to an external entity, which is refused")

    def start(name: str, attributes: dict[str, str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise EngineError(INVALID_INPUT_FILE, f"the XML nests deeper than {MAX_DEPTH} elements")
        stack.append((_Element(name, attributes), set()))

    def end(name: str) -> None:
        element, _ = stack.pop()
        if stack:
            parent, repeated = stack[-1]
            parent.add(name, element.value(), repeated)
        else:
            result[name] = element.value()

    def text(data: str) -> None:
        if stack:
            stack[-1][0].text.append(data)

    parser.EntityDeclHandler = refuse_entity
    parser.UnparsedEntityDeclHandler = refuse_entity
    parser.ExternalEntityRefHandler = refuse_external
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise EngineError(INVALID_INPUT_FILE, f"not well-formed XML: {exc}") from exc
    return result


def _text(value: Any, where: tuple[str | int, ...]) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, str) and _NOT_XML.search(value):
        raise EngineError(
            CONVERSION_FAILED, f"{path_text(where)} holds a control character, which XML cannot hold"
        )
    if isinstance(value, str | int | float):
        return str(value)
    raise EngineError(CONVERSION_FAILED, f"{path_text(where)} holds a {type(value).__name__}, not text")


def _name(name: str, where: tuple[str | int, ...]) -> str:
    if not _NAME.fullmatch(name) or (name.lower().startswith("xml") and ":" not in name):
        raise EngineError(CONVERSION_FAILED, f"{path_text(where)}: {name!r} is not an XML element name")
    return name


def _fill(element: ET.Element, value: Any, where: tuple[str | int, ...]) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        element.text = _text(value, where)
        return
    for key, item in value.items():
        key = str(key)
        if key == "#text":
            element.text = _text(item, (*where, key))
        elif key.startswith("@"):
            if item is not None:
                element.set(_name(key[1:], (*where, key)), _text(item, (*where, key)))
        elif isinstance(item, list):
            for index, each in enumerate(item):
                _fill(ET.SubElement(element, _name(key, (*where, key))), each, (*where, key, index))
        else:
            _fill(ET.SubElement(element, _name(key, (*where, key))), item, (*where, key))


def write_xml(document: Any) -> bytes:
    """The XML text of ``document`` (see the module docstring), UTF-8 with its declaration."""
    if isinstance(document, dict) and len(document) == 1:
        ((key, value),) = document.items()
        if not isinstance(value, list) and not str(key).startswith(("@", "#")):
            root = ET.Element(_name(str(key), ()))
            _fill(root, value, (str(key),))
            return _serialize(root)
    if isinstance(document, list):
        root = ET.Element("rows")
        for index, item in enumerate(document):
            _fill(ET.SubElement(root, "row"), item, (index,))
        return _serialize(root)
    root = ET.Element("root")
    _fill(root, document, ())
    return _serialize(root)


def _serialize(root: ET.Element) -> bytes:
    ET.indent(root, space="  ")
    written: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return written + b"\n"
