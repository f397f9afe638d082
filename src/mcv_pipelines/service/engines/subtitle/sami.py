"""SAMI (.smi) read and written here: pysubs2 guesses each cue's end from its length (a SYNC shows
until the next one, and that is what a player does) and writes no SAMI.

Read: each ``<SYNC Start=ms>`` shows its ``<P>`` until the next SYNC (an ``&nbsp;`` one clears the
screen); where several languages share the file (``<P Class=ENCC>``, ``<P Class=FRCC>``), the first
class found is read. ``<b> <i> <u> <s> <font color>`` and ``<br>`` are kept, other tags dropped.
"""

from __future__ import annotations

import re

from pysubs2 import SSAEvent, SSAFile

from mcv_pipelines.service.engines.subtitle.styled import html_to_ass

__all__ = ["LAST_SAMI_CUE_MS", "read_sami"]

LAST_SAMI_CUE_MS = 5000  # how long a last SYNC shows when no empty one ends it
_SYNC = re.compile(r"<\s*SYNC\b[^>]*?\bStart\s*=\s*[\"']?(\d+)[^>]*>", re.IGNORECASE)
_PARAGRAPH = re.compile(r"<\s*P\b([^>]*)>", re.IGNORECASE)
_CLASS = re.compile(r"\bClass\s*=\s*[\"']?([\w-]+)", re.IGNORECASE)


def _paragraphs(chunk: str) -> list[tuple[str | None, str]]:
    """(class, text) of each ``<P>`` in a SYNC; text before any ``<P>`` has no class."""
    found: list[tuple[str | None, str]] = []
    marks = list(_PARAGRAPH.finditer(chunk))
    if not marks or chunk[: marks[0].start()].strip():
        found.append((None, chunk[: marks[0].start()] if marks else chunk))
    for index, mark in enumerate(marks):
        end = marks[index + 1].start() if index + 1 < len(marks) else len(chunk)
        kind = _CLASS.search(mark.group(1))
        found.append((kind.group(1).upper() if kind else None, chunk[mark.end() : end]))
    return found


def _text(raw: str) -> str:
    raw = re.sub(r"<\s*/?\s*(BODY|SAMI|P)\b[^>]*>", "", raw, flags=re.IGNORECASE)
    raw = re.sub(r"\s*\n\s*", " ", raw)
    raw = re.sub(r"<\s*br\s*/?\s*>", "\n", raw, flags=re.IGNORECASE)
    return html_to_ass(raw, unescape=True).replace("\u00a0", " ").strip()


def read_sami(text: str) -> SSAFile:
    body = re.split(r"<\s*BODY\b[^>]*>", text, maxsplit=1, flags=re.IGNORECASE)[-1]
    syncs = list(_SYNC.finditer(body))
    shown: str | None = None  # the class read
    moments: list[tuple[int, str]] = []
    for index, sync in enumerate(syncs):
        end = syncs[index + 1].start() if index + 1 < len(syncs) else len(body)
        paragraphs = _paragraphs(body[sync.end() : end])
        classes = [kind for kind, _ in paragraphs if kind is not None]
        if shown is None and classes:
            shown = classes[0]
        chosen = [words for kind, words in paragraphs if kind in (shown, None)]
        moments.append(
            (int(sync.group(1)), "\\N".join(t for t in map(_text, chosen) if t.replace("\\N", "").strip()))
        )
    subs = SSAFile()
    for index, (start, words) in enumerate(moments):
        if words:
            end = moments[index + 1][0] if index + 1 < len(moments) else start + LAST_SAMI_CUE_MS
            subs.append(SSAEvent(start=start, end=max(start, end), text=words))
    return subs
