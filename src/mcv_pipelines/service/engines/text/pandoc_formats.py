"""Which file formats Pandoc reads and writes here, by the extension the listing uses.

Each entry maps the listing's format (a file extension) to Pandoc's reader or writer name. Only what
this Pandoc really does, proven by bench/formats.py: no ``pdf`` (that needs TeX, which the service
does not install; Markdown to PDF goes through html and the web engine), no ``asciidoc`` reader (Pandoc
2.x only writes AsciiDoc).
"""

from __future__ import annotations

__all__ = [
    "BIBLIOGRAPHIES",
    "PANDOC_READERS",
    "PANDOC_WRITERS",
    "STANDALONE",
    "UNPROVEN",
    "UNSANDBOXED_WRITERS",
]

# Markdown is read as Pandoc's Markdown plus GitHub's bare autolinks: it reads GitHub-flavoured files
# (pipe tables, task lists, strikeout, fenced code) and Pandoc's own (footnotes, metadata blocks).
PANDOC_READERS: dict[str, str] = {
    "md": "markdown+autolink_bare_uris",
    "rst": "rst",
    "org": "org",
    "html": "html",
    "tex": "latex",
    "docx": "docx",
    "odt": "odt",
    "epub": "epub",
    "ipynb": "ipynb",
    "textile": "textile",
    "mediawiki": "mediawiki",
    "rtf": "rtf",
    "fb2": "fb2",
    "opml": "opml",
    "dokuwiki": "dokuwiki",
    "t2t": "t2t",
    "muse": "muse",
    "creole": "creole",
    "vimwiki": "vimwiki",
    "twiki": "twiki",
    "tikiwiki": "tikiwiki",
    "jira": "jira",
    "csv": "csv",
    "dbk": "docbook",
    # issue 23, breadth: man pages, JATS articles, Haddock markup and Pandoc's own native AST
    "man": "man",
    "jats": "jats",
    "haddock": "haddock",
    "native": "native",
    # a BibTeX bibliography, written out as the formatted list of its entries (pandoc.py: citeproc)
    "bib": "bibtex",
}

# Markdown is written as GitHub-flavoured Markdown: what most readers of a .md file render.
PANDOC_WRITERS: dict[str, str] = {
    "html": "html5",
    "docx": "docx",
    "odt": "odt",
    "epub": "epub3",
    "md": "gfm",
    "rst": "rst",
    "tex": "latex",
    "txt": "plain",
    "org": "org",
    "adoc": "asciidoc",
    "textile": "textile",
    "mediawiki": "mediawiki",
    "rtf": "rtf",
    "fb2": "fb2",
    "ipynb": "ipynb",
    "pptx": "pptx",
    "dokuwiki": "dokuwiki",
    "opml": "opml",
    "muse": "muse",
    "jira": "jira",
    "dbk": "docbook5",
    "texi": "texinfo",
    "icml": "icml",
    "xwiki": "xwiki",
    "zimwiki": "zimwiki",
    "ms": "ms",
    "man": "man",
    "jats": "jats",
    "haddock": "haddock",
    "native": "native",
    "tei": "tei",
}

# Pairs bench/formats.py found this Pandoc gets wrong, left out of the listing: fb2 -> epub fails
# ("not found in reftable"; Calibre does it); rtf -> opml and csv -> opml keep only headings, and an
# RTF or a CSV has none (nor has a bibliography); the org writer drops a bibliography's entries.
UNPROVEN = frozenset({("fb2", "epub"), ("rtf", "opml"), ("csv", "opml"), ("bib", "opml"), ("bib", "org")})

# Readers of bibliographies: the document is their entries, formatted by Pandoc's citeproc in its
# built-in style (Chicago author-date), every entry cited (``nocite: "@*"``).
BIBLIOGRAPHIES = frozenset({"bib"})

# Writers whose output is a whole document only with --standalone (else a fragment).
STANDALONE = frozenset(
    {"html", "tex", "rtf", "fb2", "ipynb", "opml", "dbk", "texi", "ms", "man", "jats", "tei"}
)

# Writers that read Pandoc's data files, which Debian's Pandoc 2.x cannot do with --sandbox: they
# write a cleaned document outside it (see ast_guard).
UNSANDBOXED_WRITERS = frozenset({"docx", "odt", "epub", "pptx"})
