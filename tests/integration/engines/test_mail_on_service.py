"""The mail engine through the service: eml, msg, mbox and emlx to pdf, html, txt, md and eml, with the
attachments as further files of the task, each read back by a reader that is not the engine's
(pdftotext, html.parser, the email package) and compared byte for byte."""

from __future__ import annotations

import base64
import subprocess
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import download_all, run_job, task_named

from engine_needs import engine_program
from mail_samples import (
    ATTACHMENT_NAME,
    PDF_BYTES,
    PICTURE_BYTES,
    SUBJECT,
    WORD,
    mbox_sample,
    sample_eml,
    sample_emlx,
    sample_msg,
)
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _job(client: httpx.Client, name: str, data: bytes, **converts: dict[str, Any]) -> dict[str, Any]:
    tasks: dict[str, Any] = {
        "in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name}
    }
    tasks.update({key: {"operation": "convert", "input": "in", **task} for key, task in converts.items()})
    tasks["export"] = {"operation": "export/url", "input": list(converts)}
    return run_job(client, tasks)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.sources: list[str] = []
        self.tags: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        self.sources += [value or "" for name, value in attrs if name == "src"]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_eml_to_pdf_html_and_txt_with_its_attachment(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mail", "convert", "eml", "pdf")
    require_engine("poppler-text", "convert", "pdf", "txt")  # pdftotext, to read the PDF
    pdftotext = engine_program("poppler-text", "pdftotext")
    job = _job(
        client, "note.eml", sample_eml(), pdf={"output_format": "pdf"}, html={"output_format": "html"},
        txt={"output_format": "txt", "attachments": False},
    )  # fmt: skip
    assert task_named(job, "pdf")["engine"] == "mail"
    names = [item["filename"] for item in task_named(job, "pdf")["result"]["files"]]
    assert names == ["note.pdf", ATTACHMENT_NAME]  # the mail first; the inline picture is in the page
    assert [item["filename"] for item in task_named(job, "txt")["result"]["files"]] == ["note.txt"]
    files = download_all(job, tmp_path / "out")
    text = subprocess.run([pdftotext, "-layout", "-enc", "UTF-8", str(files["note.pdf"]), "-"],
                          capture_output=True, text=True, check=True).stdout  # fmt: skip
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    assert lines[:5] == [
        "From: Alice Ashby <alice@example.org>", "To: Bob Brook <bob@example.net>, carol@example.net",
        "Cc: Dora Dune <dora@example.com>", "Date: Sat, 14 Mar 2026 09:26:53 +0000", f"Subject: {SUBJECT}",
    ]  # fmt: skip
    assert lines.index(f"The {WORD} count is 3.") > 5
    assert files[ATTACHMENT_NAME].read_bytes() == PDF_BYTES
    page = _Page()
    page.feed(files["note.html"].read_text(encoding="utf-8"))
    assert SUBJECT in "".join(page.text)
    assert "Dora Dune" in "".join(page.text)
    assert page.sources == ["data:image/png;base64," + base64.b64encode(PICTURE_BYTES).decode()]
    plain = files["note.txt"].read_text(encoding="utf-8")
    assert plain.startswith("From: Alice Ashby <alice@example.org>\nTo: Bob Brook")
    assert f"Subject: {SUBJECT}\n\nHello Bob," in plain


def test_msg_to_eml_keeps_headers_attachments_and_the_embedded_message(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mail", "convert", "msg", "eml")
    job = _job(client, "outlook.msg", sample_msg(big=True), eml={"output_format": "eml"},
               md={"output_format": "md", "attachments": False})  # fmt: skip
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == sorted(
        ["outlook.eml", "outlook.md", ATTACHMENT_NAME, f"Forwarded {WORD} note.eml"]
    )
    message = message_from_bytes(files["outlook.eml"].read_bytes(), policy=policy.default)
    assert isinstance(message, EmailMessage)
    assert message["subject"] == SUBJECT
    assert message["from"].addresses[0].addr_spec == "alice@example.org"
    assert [a.addr_spec for a in message["cc"].addresses] == ["dora@example.com"]
    assert message["date"].datetime.isoformat() == "2026-03-14T09:26:53+00:00"
    attached = {part.get_filename(): part for part in message.iter_attachments()}
    assert attached[ATTACHMENT_NAME].get_content() == files[ATTACHMENT_NAME].read_bytes()
    assert files[ATTACHMENT_NAME].read_bytes().startswith(PDF_BYTES)
    inner = next(part for part in message.iter_attachments() if part.get_content_type() == "message/rfc822")
    assert inner.get_content()["subject"] == f"Forwarded {WORD} note"
    html = message.get_body(("html",))
    assert html is not None
    assert WORD in html.get_content()
    related = [part for part in message.walk() if part.get("content-id") == "<chart@example.org>"]
    assert related[0].get_content() == PICTURE_BYTES
    saved = message_from_bytes(files[f"Forwarded {WORD} note.eml"].read_bytes(), policy=policy.default)
    assert f"The inner {WORD} says hello." in saved.get_body(("plain",)).get_content()  # type: ignore[union-attr]  # it has one
    markdown = files["outlook.md"].read_text(encoding="utf-8")
    assert markdown.startswith(f"# {WORD} Grüße")
    assert "## Forwarded Quokka note" in markdown


def test_mbox_gives_every_message_and_emlx_its_mail(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mail", "convert", "mbox", "txt")
    job = _job(client, "box.mbox", mbox_sample(), txt={"output_format": "txt"})
    apple = sample_emlx()
    emlx = _job(client, "12.emlx", apple, eml={"output_format": "eml", "attachments": False})
    text = download_all(job, tmp_path / "box")["box.txt"].read_text(encoding="utf-8")
    assert text.index(SUBJECT) < text.index(f"Second {WORD} note")
    eml = download_all(emlx, tmp_path / "emlx")["12.eml"].read_bytes()
    assert apple.startswith(f"{len(eml)}\n".encode() + eml + b"<?xml")  # the message inside, as it was


def test_a_file_that_is_no_mail_fails_clearly(require_engine: RequireEngine, client: httpx.Client) -> None:
    require_engine("mail", "convert", "msg", "txt")
    job = _job(client, "broken.msg", b"not a compound file at all", txt={"output_format": "txt"})
    task = task_named(job, "txt")
    assert task["status"] == "error"
    assert task["code"] == "INVALID_INPUT_FILE"
    assert "broken.msg is not an Outlook message" in task["message"]
