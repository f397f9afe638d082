"""Escaping the node names Assimp's X3D exporter writes as they are.

It puts a node's name into ``DEF='...'`` (and ``USE='...'``) unescaped, so a scene read from 3DS
(whose root is named ``<3DSRoot>``) or a name holding ``&`` became a file no XML reader opens.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

__all__ = ["escape_x3d_names"]

# the value runs to the quote that ends the attribute: one followed by space, '/' or '>'
_NAMED = re.compile(r"(\b(?:DEF|USE)=')(.*?)('(?=[\s/>]))", re.DOTALL)


def escape_x3d_names(x3d: Path) -> None:
    """Rewrite ``x3d`` with every DEF and USE value escaped for XML."""
    text = x3d.read_text(encoding="utf-8", errors="surrogateescape")

    def escape(match: re.Match[str]) -> str:
        return match.group(1) + html.escape(html.unescape(match.group(2)), quote=True) + match.group(3)

    x3d.write_text(_NAMED.sub(escape, text), encoding="utf-8", errors="surrogateescape")
