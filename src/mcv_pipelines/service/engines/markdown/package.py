"""Reading the parts of an Office Open XML package (a zip) safely: only its own members, each XML part
bounded in size and parsed by defusedxml without a document type (so no entity is declared, none
expanded, no external file or URL named by the document is opened), and relationships resolved
inside the zip."""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE

__all__ = ["MAX_PART_BYTES", "REL", "Package"]

MAX_PART_BYTES = 64 * 1024 * 1024  # one XML part, unpacked: far above any real slide's
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"


class Package:
    """An open Office Open XML package; ``name`` is the user's file name, for messages."""

    def __init__(self, path: Path, name: str) -> None:
        self.name = name
        try:
            self.zip = zipfile.ZipFile(path)
        except (OSError, zipfile.BadZipFile) as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{name} is not an Office Open XML file (a zip)") from exc
        self.members = {info.filename: info for info in self.zip.infolist()}

    def close(self) -> None:
        self.zip.close()

    def xml(self, part: str) -> Element | None:
        """The part's root element, or None when the package has no such part."""
        info = self.members.get(part)
        if info is None:
            return None
        if info.file_size > MAX_PART_BYTES:
            raise EngineError(INVALID_INPUT_FILE, f"{self.name}: its part {part} is too large to read")
        try:
            with self.zip.open(info) as stream:
                data = stream.read(MAX_PART_BYTES + 1)
        except (OSError, zipfile.BadZipFile, RuntimeError) as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{self.name}: its part {part} cannot be read") from exc
        if len(data) > MAX_PART_BYTES:
            raise EngineError(INVALID_INPUT_FILE, f"{self.name}: its part {part} is too large to read")
        from defusedxml import DefusedXmlException  # imported by a task that reads XML, not at start
        from defusedxml.ElementTree import fromstring

        try:
            root: Element = fromstring(data, forbid_dtd=True)
        except DefusedXmlException as exc:  # a document type: entities, external files
            raise EngineError(INVALID_INPUT_FILE, f"{self.name}: its part {part} is not plain XML") from exc
        except ParseError as exc:
            raise EngineError(INVALID_INPUT_FILE, f"{self.name}: its part {part} is not XML") from exc
        return root

    def related(self, part: str) -> dict[str, tuple[str, str]]:
        """``part``'s relationships inside the package: id -> (type's last word, member name).
        Links to anything outside (``TargetMode="External"``) are left out, never followed."""
        folder, base = posixpath.split(part)
        root = self.xml(posixpath.join(folder, "_rels", f"{base}.rels"))
        found: dict[str, tuple[str, str]] = {}
        for rel in [] if root is None else root.iter(_PKG_REL):
            target, kind = rel.get("Target", ""), rel.get("Type", "")
            if rel.get("TargetMode") == "External" or not target or "://" in target:
                continue
            inside = posixpath.normpath(posixpath.join(folder, target))
            member = target[1:] if target.startswith("/") else inside
            if member in self.members:
                found[rel.get("Id", "")] = (kind.rsplit("/", 1)[-1], member)
        return found
