"""Seeds of the documents family: the formats LibreOffice only reads (written by hand from their
layouts: tests/import_samples.py) and a BibTeX bibliography. Markdown's other inputs (pptx, xlsx and
their kin) are made from the md and csv seeds by the service or soffice, as before."""

from __future__ import annotations

from pathlib import Path

from import_samples import IMPORT_SAMPLES, write_import_sample

__all__ = ["DOCS_WORDED", "docs_seeds"]

WORD = "Quokka"
_BIB = f"""@article{{quokka2020,
  author = {{Smith, Jane and Doe, John}},
  title = {{The {WORD} of Rottnest Island}},
  journal = {{Journal of Marsupials}},
  year = {{2020}}, volume = {{12}}, pages = {{34--56}}
}}
@book{{wombat2019,
  author = {{Brown, Alice}}, title = {{Wombats and Their Burrows}},
  publisher = {{Outback Press}}, year = {{2019}}
}}
"""
DOCS_WORDED = {*IMPORT_SAMPLES, "bib"}


def docs_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path."""
    made: dict[str, Path] = {}
    for fmt in sorted(wanted & DOCS_WORDED):
        path = directory / f"sample.{fmt}"
        if fmt == "bib":
            path.write_text(_BIB, encoding="utf-8")
        else:
            write_import_sample(path, WORD)
        made[fmt] = path
    return made
