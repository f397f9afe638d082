"""A CHM's extracted pages made into one HTMLZ book: its pages in the order of its table of contents.

The order: the pages the ``.hhc`` table of contents names (``<param name="Local" value=...>``, read
with the standard library's HTML tokenizer, which loads nothing), then the home page, then any other
HTML page in natural order. Each page's body goes into ``index.html`` as a section of its own:
scripts dropped, links between pages turned into links to their sections, relative pictures and
styles made relative to the book's top. The extracted files go beside it, so pictures come along.
"""

from __future__ import annotations

import re
import struct
import zipfile
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from mcv_pipelines.service.engines.pages.comic_pages import natural_key

__all__ = ["chm_system", "page_order", "write_htmlz"]

_PAGE_SUFFIXES = (".htm", ".html", ".xhtml")
_CONTENTS_SUFFIXES = (".hhc", ".hhk")  # the contents and the index: read here, not part of the book
_BODY = re.compile(rb"<body[^>]*>(.*?)(?:</body>|\Z)", re.IGNORECASE | re.DOTALL)
_SCRIPT = re.compile(r"<script\b.*?(?:</script>|\Z)", re.IGNORECASE | re.DOTALL)
_LINK = re.compile(r"""(\b(?:src|href)\s*=\s*)(["'])(.*?)\2""", re.IGNORECASE | re.DOTALL)


def chm_system(data: bytes) -> dict[int, str]:
    """The records of a ``#SYSTEM`` file: code -> text (0: contents file, 2: home page, 3: title)."""
    records: dict[int, str] = {}
    position = 4  # after the version
    while position + 4 <= len(data):
        code, length = struct.unpack("<HH", data[position : position + 4])
        value = data[position + 4 : position + 4 + length]
        position += 4 + length
        if code in (0, 2, 3):
            records[code] = value.split(b"\x00", 1)[0].decode("utf-8", "replace")
    return records


class _Locals(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name.lower(): value or "" for name, value in attrs}
        if tag == "param" and values.get("name", "").lower() == "local":
            self.found.append(values.get("value", ""))


_TOP = PurePosixPath()


def _member(root: Path, reference: str, base: PurePosixPath = _TOP) -> str | None:
    """The extracted file a reference names (relative to ``base``), as a path under ``root``; None
    for a reference that leaves the book or names nothing in it."""
    parts = urlsplit(reference.strip())
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = unquote(parts.path).replace("\\", "/")
    joined = PurePosixPath(path.lstrip("/")) if path.startswith("/") else base / path
    normal: list[str] = []
    for part in joined.parts:
        if part == "..":
            if not normal:
                return None
            normal.pop()
        elif part not in (".", ""):
            normal.append(part)
    name = "/".join(normal)
    return name if name and (root / name).is_file() else None


def page_order(root: Path) -> list[str]:
    """The HTML pages under ``root`` (the extracted CHM) in reading order."""
    system = chm_system((root / "#SYSTEM").read_bytes()) if (root / "#SYSTEM").is_file() else {}
    ordered: list[str] = []
    contents = _member(root, system.get(0, ""))
    if contents is None:
        contents = next((p.name for p in sorted(root.glob("*.hhc"))), None)
    if contents is not None:
        parser = _Locals()
        parser.feed((root / contents).read_text("utf-8", "replace"))
        ordered += [m for m in (_member(root, local) for local in parser.found) if m]
    home = _member(root, system.get(2, ""))
    if home:
        ordered.append(home)
    pages = sorted(
        (
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and p.suffix.lower() in _PAGE_SUFFIXES
        ),
        key=natural_key,
    )
    ordered += pages
    return [
        page
        for index, page in enumerate(ordered)
        if page.endswith(_PAGE_SUFFIXES) and page not in ordered[:index]
    ]


def _anchor(page: str) -> str:
    return "page-" + re.sub(r"[^A-Za-z0-9]+", "-", page)


def _section(root: Path, page: str, pages: set[str]) -> str:
    raw = (root / page).read_bytes()
    match = _BODY.search(raw)
    body = (match.group(1) if match else raw).decode("utf-8", "replace")
    body = _SCRIPT.sub("", body)
    base = PurePosixPath(page).parent

    def relink(found: re.Match[str]) -> str:
        prefix, quote, reference = found.groups()
        target = _member(root, reference.split("#", 1)[0], base) if not reference.startswith("#") else None
        if target in pages:
            fragment = reference.split("#", 1)[1] if "#" in reference else ""
            new = f"#{fragment}" if fragment else f"#{_anchor(target or '')}"
        elif target is not None:
            new = target  # a picture or style of the book, from the book's top
        elif reference.startswith("#") or urlsplit(reference).scheme in ("http", "https", "mailto"):
            new = reference
        else:
            new = ""  # names nothing in the book: dropped
        return f"{prefix}{quote}{new}{quote}"

    return f'<div id="{_anchor(page)}">{_LINK.sub(relink, body)}</div>\n'


def write_htmlz(root: Path, target: Path, title: str) -> int:
    """Write the HTMLZ book of the CHM extracted at ``root``; the number of pages it holds."""
    pages = page_order(root)
    if not pages:
        return 0
    if (root / "#SYSTEM").is_file():
        title = chm_system((root / "#SYSTEM").read_bytes()).get(3) or title
    chosen = set(pages)
    sections = "".join(_section(root, page, chosen) for page in pages)
    index = (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8"/>'
        f"<title>{title.replace('&', '&amp;').replace('<', '&lt;')}</title></head>"
        f"<body>{sections}</body></html>\n"
    )
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("index.html", index)
        for path in sorted(root.rglob("*")):
            name = str(path.relative_to(root))
            kept = (
                name not in chosen and name[0] not in "#$" and not name.lower().endswith(_CONTENTS_SUFFIXES)
            )
            # HTMLZ has one top-level page: the book's other top-level pages stay out
            top_page = "/" not in name and name.lower().endswith(_PAGE_SUFFIXES)
            if path.is_file() and not path.is_symlink() and kept and not top_page:
                book.write(path, name)
    return len(pages)
