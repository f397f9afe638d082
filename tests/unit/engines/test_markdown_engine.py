"""The Markdown engine's pure parts: escaping and tables, a PDF block's shape, a sheet's trimming, a
presentation read from a hand-written pptx (lists, numbering, links it must not follow), the listing."""

from __future__ import annotations

import datetime
import zipfile
from pathlib import Path

import pytest

from markdown_samples import Slide, write_pptx
from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.markdown.blocks import escape, list_item, table
from mcv_pipelines.service.engines.markdown.engine import MarkdownEngine
from mcv_pipelines.service.engines.markdown.package import Package
from mcv_pipelines.service.engines.markdown.pdf_text import Line, block_markdown, pages_markdown
from mcv_pipelines.service.engines.markdown.sheets import cell_text, trimmed
from mcv_pipelines.service.engines.markdown.slides import presentation_markdown

_A = "http://schemas.openxmlformats.org/drawingml/2006/main"


def test_escaping_keeps_text_from_becoming_structure() -> None:
    assert escape("# 1. a_b | [x](y) <b>") == "\\# 1. a\\_b \\| \\[x\\](y) \\<b\\>"
    assert escape("1. first") == "1\\. first"
    assert escape("  two\nlines ") == "two lines"
    assert list_item("x", 2) == "    - x"
    assert list_item("x", 1, ordered=True) == "    1. x"
    assert table([]) == ""
    assert table([["a|b"]]) == "| a\\|b |\n| --- |"


def test_pdf_blocks_become_headings_lists_and_paragraphs() -> None:
    assert (
        block_markdown([Line(("Body", "text"), 50, 12), Line(("goes", "on."), 50, 12)], 12)
        == "Body text goes on."
    )
    assert block_markdown([Line(("Chapter", "two"), 50, 16)], 12) == "#### Chapter two"
    assert block_markdown([Line(("Ends", "with", "a", "stop."), 50, 24)], 12) == "Ends with a stop."
    numbered = [Line(("1.", "first"), 50, 12), Line(("carried",), 62, 12), Line(("2.", "second"), 50, 12)]
    assert block_markdown(numbered, 12) == "1. first carried\n1. second"
    assert block_markdown([Line((), 0, 0)], 12) == ""


def test_pdf_pages_are_numbered_from_the_first_asked() -> None:
    page = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><doc><page><flow><block>'
        '<line xMin="50" yMin="10" xMax="90" yMax="22"><word>Hop</word></line></block></flow></page>'
        "</doc></body></html>"
    )
    assert pages_markdown("<!DOCTYPE html>" + page, first_page=3) == "## Page 3\n\nHop\n"
    with pytest.raises(EngineError, match="could not be read"):
        pages_markdown("<html")


def test_sheet_cells_and_trimming() -> None:
    assert [cell_text(v) for v in (1e20, -2.0, False, datetime.datetime(2024, 5, 1, 8, 30))] == [
        "1e+20", "-2", "FALSE", "2024-05-01 08:30:00",
    ]  # fmt: skip
    assert trimmed([["", ""], ["", ""]]) == []
    assert trimmed([["a"], [], ["", "b"]]) == [["a", ""], ["", ""], ["", "b"]]


def _paragraphs(*items: str) -> str:
    return "".join(f"<a:p>{item}</a:p>" for item in items)


def test_text_boxes_lists_numbering_and_plain_body_lines(tmp_path: Path) -> None:
    box = (
        '<p:sp><p:nvSpPr><p:cNvPr id="7" name="b"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:txBody>'
        + _paragraphs(
            "<a:r><a:t>Intro</a:t></a:r>",
            '<a:pPr><a:buAutoNum type="arabicPeriod"/></a:pPr><a:r><a:t>one</a:t></a:r>',
            '<a:pPr lvl="1"><a:buChar char="o"/></a:pPr><a:r><a:t>sub</a:t></a:r><a:br/>'
            "<a:r><a:t>more</a:t></a:r>",
        )
        + "</p:txBody></p:sp>"
    )
    deck = write_pptx(tmp_path / "d.pptx", [Slide("", extra_shapes=box)])
    assert presentation_markdown(deck, "d.pptx") == "## Slide 1\n\nIntro\n\n1. one\n  - sub more\n"


def test_links_outside_the_package_are_never_followed(tmp_path: Path) -> None:
    rels = (
        '<Relationship Id="a" Type="x/notesSlide" Target="file:///etc/passwd" TargetMode="External"/>'
        '<Relationship Id="b" Type="x/notesSlide" Target="/etc/passwd"/>'
        '<Relationship Id="c" Type="x/notesSlide" Target="../../../../etc/passwd"/>'
    )
    deck = write_pptx(tmp_path / "d.pptx", [Slide("Title", extra_rels=rels)])
    package = Package(deck, "d.pptx")
    try:
        assert package.related("ppt/slides/slide1.xml") == {}
    finally:
        package.close()
    assert presentation_markdown(deck, "d.pptx") == "## Slide 1: Title\n"


def test_a_document_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.pptx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("ppt/presentation.xml", '<!DOCTYPE p [<!ENTITY a "aaaa">]><p>&a;</p>')
    with pytest.raises(EngineError, match="is not plain XML"):
        presentation_markdown(path, "d.pptx")


def test_the_listing_adds_what_libreoffice_reads_only_once_given_it() -> None:
    engine = MarkdownEngine()
    alone = {c.input_format for c in engine.conversion_types()}
    assert {"pptx", "ppsx", "pptm", "potx"} <= alone
    assert not alone & {"ppt", "odp", "xls", "ods", "tsv"}
    assert {c.output_format for c in engine.conversion_types()} == {"md"}
