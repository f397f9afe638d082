"""Reading a program's progress: parsers of what ffmpeg, pdftoppm and Ghostscript print, and a pipe
that hands a program's progress lines to one of them while it runs.

Each parser takes lines (``feed``) and calls ``report(percent)`` when it learns something; the task's
``TaskProgress`` throttles and stores it. Percent stays below 100 here: a task is 100 once it has
finished, not when the program's last frame is out.

Example::

    parser = FfmpegProgress(total_seconds=12.0, report=request.progress)
    with line_pipe(parser.feed) as fd:
        run_checked([ffmpeg, "-progress", f"pipe:{fd}", ...], pass_fds=(fd,), ...)
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator

__all__ = [
    "FfmpegProgress",
    "GhostscriptPages",
    "PdftoppmPages",
    "Steps",
    "line_pipe",
    "parse_clock",
]

Report = Callable[[float], None]
log = logging.getLogger(__name__)
_CEILING = 99.0


def parse_clock(text: str) -> float | None:
    """Seconds of an ffmpeg time: ``HH:MM:SS.ffffff`` (sign allowed), or None (``N/A``)."""
    match = re.fullmatch(r"\s*(-?)(\d+):(\d{1,2}):(\d{1,2}(?:\.\d+)?)\s*", text)
    if match is None:
        return None
    sign, hours, minutes, seconds = match.groups()
    value = int(hours) * 3600 + int(minutes) * 60 + float(seconds)
    return -value if sign else value


class FfmpegProgress:
    """ffmpeg's ``-progress`` output (``key=value`` lines, a block every half second): the time written
    so far (``out_time_us``, ``out_time_ms`` — also microseconds, despite its name — or ``out_time``)
    against ``total_seconds``, the length of what is being written."""

    def __init__(self, total_seconds: float | None, report: Report) -> None:
        self.total = total_seconds if total_seconds and total_seconds > 0 else None
        self.report = report

    def feed(self, line: str) -> None:
        key, sep, value = line.strip().partition("=")
        if not sep or self.total is None:
            return
        seconds: float | None = None
        if key in ("out_time_us", "out_time_ms"):
            with contextlib.suppress(ValueError):
                seconds = int(value) / 1_000_000
        elif key == "out_time":
            seconds = parse_clock(value)
        if seconds is not None and seconds >= 0:
            self.report(min(_CEILING, 100.0 * seconds / self.total))


class PdftoppmPages:
    """``pdftoppm -progress`` prints ``PAGE LAST FILE`` to stderr as each page is written; ``total``
    is the number of pages this task renders (over every pdftoppm call it makes)."""

    def __init__(self, total: int, report: Report) -> None:
        self.steps = Steps(total, report)

    def feed(self, line: str) -> None:
        if re.fullmatch(r"\s*\d+\s+\d+\s+\S.*", line):
            self.steps.advance()


class GhostscriptPages:
    """Ghostscript (without ``-q``) says ``Processing pages 1 through N.``, then ``Page K`` before each
    page it interprets."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.first = 1
        self.total: int | None = None

    def feed(self, line: str) -> None:
        text = line.strip()
        span = re.fullmatch(r"Processing pages (\d+) through (\d+)\.", text)
        if span:
            self.first = int(span.group(1))
            self.total = int(span.group(2)) - self.first + 1
            return
        page = re.fullmatch(r"Page (\d+)", text)
        if page and self.total:
            done = int(page.group(1)) - self.first  # pages finished before this one starts
            self.report(min(_CEILING, 100.0 * done / self.total))


class Steps:
    """Progress over ``total`` equal steps between ``start`` and ``end`` percent (pages, files)."""

    def __init__(self, total: int, report: Report, *, start: float = 0.0, end: float = 95.0) -> None:
        self.total = max(1, total)
        self.report = report
        self.start = start
        self.end = min(end, _CEILING)
        self.done = 0

    def advance(self, count: int = 1) -> None:
        self.done = min(self.total, self.done + count)
        self.report(self.start + (self.end - self.start) * self.done / self.total)


def _read_lines(fd: int, on_line: Callable[[str], None]) -> None:
    with open(fd, encoding="utf-8", errors="replace", closefd=True) as stream:
        for line in stream:
            try:
                on_line(line)
            except Exception:  # progress is a courtesy: a parser's bug must not fail the conversion
                log.exception("progress line not understood: %r", line[:200])


@contextlib.contextmanager
def line_pipe(on_line: Callable[[str], None]) -> Iterator[int]:
    """A pipe's write end for a child (pass it in ``pass_fds``); a thread feeds its lines to ``on_line``
    as they come, so a long run's progress never fills the pipe. Read to the end on exit."""
    read_fd, write_fd = os.pipe()
    reader = threading.Thread(target=_read_lines, args=(read_fd, on_line), daemon=True)
    reader.start()
    try:
        yield write_fd
    finally:
        os.close(write_fd)  # the child has ended: our copy was the last writer, so the reader ends
        reader.join(5)
