"""Hostile mails read nothing outside their task and make no request (issue 47).

A mail's HTML names the planted secrets (planted_secrets.py) every way a page loads a file, and a
loopback origin every way a page fetches (pictures, styles, frames, scripts, a refresh, a base URL);
its attachments are named to climb out of the output. Converted to pdf (printed by Chromium under each
sealing method) and html: the outputs hold no secret, the origin gets no request, the attachment
names stay inside the output. A multipart nested past what Python's parser follows fails clearly; one
nested past the engine's depth and a mail of fifty thousand headers convert.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from email.message import EmailMessage
from pathlib import Path

import httpx
import pytest
from engine_job_helpers import run_job, task_named
from hostile_origin import Origin, listening_origin
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the fixtures, planted secrets under each seal
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from mail_samples import PDF_BYTES, WORD, message_storage, msg_file
from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]
_HOSTILE_NAMES = ("../../x.txt", "/etc/passwd", "..", "a\\..\\..\\win.ini")
__all__ = ["sealing", "secrets"]  # imported for pytest to find
# What a sanitised page must not hold: a way to load a file or an address.
_LOADERS = (b'src="http', b"file://", b"url(", b"<script", b"<iframe", b"<base", b"refresh",
            b'<link rel="stylesheet', b"srcset", b"poster", b"background=")  # fmt: skip


def _hostile_html(secrets: Planted, origin: Origin) -> str:
    files = [*secrets.text.values(), *secrets.pictures.values(), Path("/etc/passwd")]
    loads = "".join(
        f'<img src="file://{path}"><img src="{path}"><iframe src="file://{path}"></iframe>'
        f'<object data="file://{path}"></object><embed src="{path}"><link rel="stylesheet" href="file://{path}">'
        f'<svg><image href="file://{path}"/></svg><a href="file://{path}">{path.name}</a>'
        for path in files
    )  # fmt: skip
    url = origin.url
    fetches = (
        f'<base href="{url}/base/"><meta http-equiv="refresh" content="0; url={url}/refresh">'
        f'<style>@import url("{url}/import.css"); body {{ background: url("{url}/bg.png") }}</style>'
        f"<div style=\"background-image: url('{url}/div.png')\">styled</div>"
        f'<img src="{url}/pixel.png"><img src="relative.png"><img srcset="{url}/srcset.png 2x">'
        f'<video poster="{url}/poster.png"></video><iframe src="{url}/frame"></iframe>'
        f'<form action="{url}/form"><input type="image" src="{url}/input.png"></form>'
        f'<script>fetch("{url}/script"); document.write(\'<img src="{url}/written.png">\')</script>'
        f'<table background="{url}/table.png"><tr><td>cell</td></tr></table>'
    )
    return f"<html><head>{fetches}</head><body><p>The {WORD} stays.</p>{loads}</body></html>"


def _hostile_eml(html: str) -> bytes:
    message = EmailMessage()
    message["From"] = "Mallory <mallory@example.org>"
    message["To"] = "victim@example.net"
    message["Subject"] = f"{WORD} invoice"
    message.set_content(f"The {WORD} stays.")
    message.add_alternative(html, subtype="html")
    for name in _HOSTILE_NAMES:
        message.add_attachment(PDF_BYTES, maintype="application", subtype="pdf", filename=name)
    return message.as_bytes()


def _hostile_msg(html: str) -> bytes:
    attachments = [{"name": name, "data": PDF_BYTES, "mime": "application/pdf"} for name in _HOSTILE_NAMES]
    return msg_file(message_storage(f"{WORD} invoice", html, None, attachments))


@pytest.mark.parametrize("target", ["pdf", "html"])
def test_a_mail_loads_no_file_and_no_url_and_names_no_path(
    target: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("mail", "convert", "eml", target)
    task = {"operation": "convert", "output_format": target}
    with listening_origin() as origin:
        html = _hostile_html(secrets, origin)
        outcomes = {
            "hostile.eml": convert(client, tmp_path / "eml", "hostile.eml", _hostile_eml(html), task),
            "hostile.msg": convert(client, tmp_path / "msg", "hostile.msg", _hostile_msg(html), task),
        }
        assert origin.paths == []
    assert_nothing_out(outcomes, secrets)
    for name, outcome in outcomes.items():
        assert outcome.status == "finished", outcome.message
        assert WORD.encode() in outcome.output, name
        if target == "html":  # the page itself names nothing it could load
            kept = [needle for needle in _LOADERS if needle in outcome.output]
            assert kept == [], name
    written = sorted(path.name for path in (tmp_path / "eml" / "out").iterdir())
    assert written == sorted([f"hostile.{target}", "x.txt", "passwd", "attachment-3.pdf", "win.ini"])
    assert all(path.read_bytes() == PDF_BYTES for path in (tmp_path / "msg" / "out").iterdir()
               if path.suffix != f".{target}")  # fmt: skip


def _nested(depth: int) -> bytes:
    head = "".join(f'Content-Type: multipart/mixed; boundary="b{n}"\n\n--b{n}\n' for n in range(depth))
    tail = "".join(f"--b{n}--\n" for n in reversed(range(depth)))
    return (
        f"Subject: {WORD} deep\n{head}Content-Type: text/plain\n\nThe {WORD} at the bottom.\n{tail}".encode()
    )


def _one(client: httpx.Client, name: str, data: bytes, target: str = "txt") -> dict[str, object]:
    job = run_job(client, {
        "in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name},
        "txt": {"operation": "convert", "input": "in", "output_format": target},
    })  # fmt: skip
    return task_named(job, "txt")


def test_deep_nesting_fails_clearly_and_many_headers_convert(
    require_engine: RequireEngine, client: httpx.Client
) -> None:
    require_engine("mail", "convert", "eml", "txt")
    too_deep = _one(client, "deep.eml", _nested(1200))
    assert too_deep["status"] == "error"
    assert too_deep["code"] == "INVALID_INPUT_FILE"
    assert "deep.eml nests its parts too deeply to be read" in str(too_deep["message"])
    deep = _one(client, "deeper-than-kept.eml", _nested(300))
    assert deep["status"] == "finished", deep.get("message")
    headers = "".join(f"X-Filler-{n}: {n}\n" for n in range(50_000))
    many = _one(client, "headers.eml", f"{headers}Subject: {WORD} many\n\nBody of the {WORD}.\n".encode())
    assert many["status"] == "finished", many.get("message")
