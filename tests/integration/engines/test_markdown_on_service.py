"""Markdown out of pdf, pptx, xlsx, and tsv (the data engine); documents LibreOffice only imports
(abw, 602, wk1, gnumeric) and a BibTeX bibliography through Pandoc: on the real local service."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from markdown_it import MarkdownIt

from import_samples import write_import_sample
from markdown_samples import Slide, write_pptx, write_xlsx
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _md(client: httpx.Client, path: Path, tmp_path: Path, **options: object) -> tuple[dict[str, object], str]:
    job = run_job(
        client,
        {
            "in": b64_import(path),
            "md": {"operation": "convert", "input": "in", "output_format": "md", **options},
            "export": {"operation": "export/url", "input": "md"},
        },
    )
    if task_named(job, "md")["status"] != "finished":
        return task_named(job, "md"), ""
    (file,) = download_all(job, tmp_path / "out").values()
    return task_named(job, "md"), file.read_text(encoding="utf-8")


def _headings(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open"]


def test_slides_keep_titles_levels_tables_and_notes(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "pptx", "md")
    deck = write_pptx(tmp_path / "deck.pptx", [
        Slide("Quokka facts", [(0, "Small marsupial"), (1, "Rottnest Island"), (0, "Smiles")],
              [["animal", "weight"], ["Quokka | short-tailed", "3 kg"]], notes="Mention the *selfies*."),
        Slide("Second slide", pictures=["A quokka grinning"]),
    ])  # fmt: skip
    task, markdown = _md(client, deck, tmp_path)
    assert task["engine"] == "markdown"
    assert _headings(markdown) == ["Slide 1: Quokka facts", "Notes", "Slide 2: Second slide"]
    assert "- Small marsupial\n  - Rottnest Island\n- Smiles" in markdown
    assert "| Quokka \\| short-tailed | 3 kg |" in markdown  # a cell's own pipe stays text
    assert "Mention the \\*selfies\\*." in markdown
    assert "(picture: A quokka grinning)" in markdown


def test_workbook_has_a_table_per_sheet(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "xlsx", "md")
    book = write_xlsx(tmp_path / "zoo.xlsx", {
        "Animals": [["animal", "count"], ["Quokka", 3], ["Wombat", 5.5]], "Empty": [],
    })  # fmt: skip
    _, markdown = _md(client, book, tmp_path)
    assert _headings(markdown) == ["Animals", "Empty"]
    assert "| animal | count |\n| --- | --- |\n| Quokka | 3 |\n| Wombat | 5.5 |" in markdown
    assert "(empty sheet)" in markdown


def test_pdf_pages_in_order_and_a_page_range(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "pdf", "md")
    _, markdown = _md(client, ASSETS / "pages.pdf", tmp_path / "all")
    assert [h for h in _headings(markdown) if h.startswith("Page")] == ["Page 1", "Page 2"]
    assert markdown.index("Page 1 of 2") < markdown.index("Page 2 of 2")
    _, second = _md(client, ASSETS / "pages.pdf", tmp_path / "second", first_page=2)
    assert "## Page 2" in second
    assert "Page 1 of 2" not in second


def test_tsv_is_a_table_without_libreoffice(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """A tsv's Markdown comes from the data engine directly, not through a LibreOffice start."""
    require_engine("data", "convert", "tsv", "md")
    (tmp_path / "zoo.tsv").write_text("animal\tcount\nQuokka\t3\n", encoding="utf-8")
    task, markdown = _md(client, tmp_path / "zoo.tsv", tmp_path)
    assert task["engine"] == "data"
    assert "| animal | count |" in markdown
    assert "| Quokka | 3 |" in markdown


def test_a_broken_presentation_is_refused_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "pptx", "md")
    with zipfile.ZipFile(tmp_path / "notes.pptx", "w") as archive:  # a zip, but no presentation in it
        archive.writestr("notes.txt", "Quokka")
    task, _ = _md(client, tmp_path / "notes.pptx", tmp_path)
    assert task["status"] == "error"
    assert task["code"] == "INVALID_INPUT_FILE"
    assert task["message"] == "notes.pptx is not a presentation (no ppt/presentation.xml)"


def test_imported_documents_keep_their_text(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "abw", "odt")
    require_engine("libreoffice", "convert", "wk1", "xlsx")
    tasks: dict[str, object] = {}
    for fmt, target in (("abw", "odt"), ("602", "docx"), ("wk1", "xlsx"), ("gnumeric", "ods")):
        sample = write_import_sample(tmp_path / f"notes-{fmt}.{fmt}", "Quokka")
        tasks[f"in-{fmt}"] = b64_import(sample)
        tasks[f"to-{fmt}"] = {"operation": "convert", "input": f"in-{fmt}", "output_format": target}
    tasks["export"] = {"operation": "export/url", "input": [name for name in tasks if name.startswith("to-")]}
    job = run_job(client, tasks)
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["notes-602.docx", "notes-abw.odt", "notes-gnumeric.ods", "notes-wk1.xlsx"]
    for path in files.values():
        with zipfile.ZipFile(path) as archive:
            assert any(b"Quokka" in archive.read(name) for name in archive.namelist()), path.name


def test_a_bibliography_becomes_its_formatted_entries(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pandoc", "convert", "bib", "md")
    (tmp_path / "refs.bib").write_text(
        "@book{q, author = {Smith, Jane}, title = {The Quokka}, publisher = {Outback Press}, year = {2020}}\n"
    )
    task, markdown = _md(client, tmp_path / "refs.bib", tmp_path)
    assert task["engine"] == "pandoc"
    assert "Smith, Jane. 2020. *The Quokka*. Outback Press." in markdown


def test_an_abiword_file_through_libreoffice_and_pandoc(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "abw", "md")
    sample = write_import_sample(tmp_path / "notes.abw", "Quokka")
    task, markdown = _md(client, sample, tmp_path)
    assert task["engine"] == "markdown"
    assert markdown.index("Quokka notes") < markdown.index("About the **Quokka**.")  # bold kept too
