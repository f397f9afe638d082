"""Making a Pandoc document (its JSON AST) safe to write without ``--sandbox``.

Pandoc's docx, odt, epub and pptx writers read their own data files, which Debian's Pandoc cannot do
inside its sandbox; so the document is read in the sandbox, cleaned here, and written outside it.
Cleaning leaves nothing those writers would fetch: an image whose address is not a plain relative
path (``file:``, ``http:``, an absolute path, ``..``) becomes a link, which no writer fetches; raw
HTML that names a source (``<img src=...>``, which the EPUB writer fetches) or is a ``<meta http-equiv>``
(a refresh navigates a printed page away) is dropped; metadata keeps
only descriptive fields (not ``cover-image``, ``css``, ``stylesheet``, which writers read).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["clean_document", "is_local_relative"]

_SAFE_META = frozenset(
    {"title", "subtitle", "author", "date", "lang", "abstract", "keywords", "subject", "description",
     "rights", "publisher", "creator", "contributor", "identifier", "toc-title", "pagetitle"}
)  # fmt: skip
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# http-equiv: a meta refresh navigates the printed page away (refused, it failed the print at random)
_FETCHING_HTML = re.compile(
    r"\b(?:src|srcset|poster|data|href|background|http-equiv)\s*=|url\s*\(|@import", re.I
)


def is_local_relative(url: str) -> bool:
    """A path below the working directory: no scheme, not absolute, no ``..``, no backslash.

    >>> [is_local_relative(u) for u in ("media/a.png", "file:///etc/passwd", "/etc/passwd", "../a")]
    [True, False, False, False]
    """
    if not url or _SCHEME.match(url) or url.startswith(("/", "~")) or "\\" in url:
        return False
    return ".." not in url.split("/")


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node if not _is_fetching_raw(item)]
    if not isinstance(node, dict):
        return node
    if node.get("t") == "Image":
        attr, inlines, (url, title) = node["c"]
        if not (url.startswith("data:") or is_local_relative(url)):
            return {"t": "Link", "c": [attr, _clean(inlines), [url, title]]}
    return {key: _clean(value) for key, value in node.items()}


def _is_fetching_raw(node: Any) -> bool:
    if not isinstance(node, dict) or node.get("t") not in ("RawBlock", "RawInline"):
        return False
    fmt, text = node["c"]
    return str(fmt).lower().startswith("html") and bool(_FETCHING_HTML.search(str(text)))


def clean_document(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (Pandoc's JSON AST) with fetching images, raw HTML and metadata taken out."""
    meta = {key: value for key, value in document.get("meta", {}).items() if key in _SAFE_META}
    return {**document, "meta": _clean(meta), "blocks": _clean(document.get("blocks", []))}
