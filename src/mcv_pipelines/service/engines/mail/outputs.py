"""The attachments of a mail as files of the task: each under its own name made safe and unique.

A name comes from the mail (a hostile one may say ``../../x`` or ``/etc/passwd``): only its last
component is kept, reserved characters replaced (files.safe_filename), and a name already taken in the
task's output (the converted mail's own, or another attachment's) gets ``-1``, ``-2`` before its
extension. The pictures the HTML body shows (``cid:``) are part of the page, not files. A nameless
attachment is named for its type (``attachment-3.pdf``); an attached message is written as eml and
named for its subject. Every file is written inside ``output_dir`` and nowhere else.
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from mcv_pipelines.service.engines.files import safe_filename, split_extension
from mcv_pipelines.service.engines.mail.eml_writer import eml_bytes
from mcv_pipelines.service.engines.mail.message import MAX_PARTS, Mail

__all__ = ["UniqueNames", "write_attachments"]


class UniqueNames:
    """Safe names, each used once in ``directory`` (names already there count as used)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.used = {path.name.lower() for path in directory.iterdir()} if directory.is_dir() else set()

    def path(self, wanted: str, fallback: str) -> Path:
        name = safe_filename(wanted, fallback=fallback)
        stem, suffix = split_extension(name)
        candidate, number = name, 0
        while candidate.lower() in self.used:
            number += 1
            candidate = f"{stem}-{number}{suffix}"
        self.used.add(candidate.lower())
        path = self.directory / candidate
        if path.parent != self.directory:  # safe_filename keeps one component; this never happens
            raise ValueError(f"{wanted!r} names a file outside the output")
        return path


def write_attachments(mails: list[Mail], output_dir: Path) -> list[Path]:
    """Every attachment and attached message of ``mails`` written to ``output_dir``, in order."""
    output_dir.mkdir(parents=True, exist_ok=True)
    names = UniqueNames(output_dir)
    written: list[Path] = []
    number = 0
    for mail in mails:
        for item in mail.attachments:
            number += 1
            if item.content_id and mail.html is not None and f"cid:{item.content_id}" in mail.html:
                continue  # a picture the HTML body shows, inlined in the page
            if len(written) >= MAX_PARTS:
                return written
            extension = mimetypes.guess_extension(item.content_type) or ".bin"
            path = names.path(item.name, f"attachment-{number}{extension}")
            path.write_bytes(item.data)
            written.append(path)
        for inner in mail.embedded:
            number += 1
            wanted = f"{inner.subject}.eml" if inner.subject else ""
            path = names.path(wanted, f"message-{number}.eml")
            path.write_bytes(inner.source if inner.source is not None else eml_bytes(inner))
            written.append(path)
    return written
