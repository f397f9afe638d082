"""One editor session: settings, loaded tools, and when each open buffer is checked.

A check runs on a worker thread, one at a time, so completion and hover keep answering while a large
pipeline is checked. Diagnostics run on open at once. A change is checked at once when the buffer was
last checked more than ``debounce`` seconds ago; changes that follow within that time wait for
``debounce`` seconds of quiet and are checked once, with the latest text. A change that arrives while
its buffer is being checked gets a fresh check as soon as that one is published.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition, ServerTextRange

from mcv_pipelines import __version__
from mcv_pipelines.lsp.checking import Checked, check_text
from mcv_pipelines.lsp.convert import to_lsp
from mcv_pipelines.lsp.knowledge import Knowledge
from mcv_pipelines.lsp.outline import Outline, read_outline
from mcv_pipelines.lsp.settings import Tools, load_tools, parse_settings

__all__ = ["DEFAULT_DEBOUNCE", "McvServer", "client_range"]

log = logging.getLogger(__name__)
DEFAULT_DEBOUNCE = 0.05


def client_range(codec: PositionCodec, lines: Sequence[str], r: types.Range) -> types.Range:
    """A range in code points (what the adapters make) in the client's units (UTF-16 by default).

    ``lines`` are the text's lines with their endings, as the range was computed on them.
    """
    start, end = r.start, r.end
    server = ServerTextRange(
        ServerTextPosition(start.line, start.character), ServerTextPosition(end.line, end.character)
    )
    return codec.range_to_client_units(lines, server)


def _to_client(codec: PositionCodec, lines: Sequence[str], d: types.Diagnostic) -> types.Diagnostic:
    d.range = client_range(codec, lines, d.range)
    fix = d.data.get("fix") if isinstance(d.data, dict) else None
    if isinstance(fix, dict):
        line, start, end = fix["range"]["line"], fix["range"]["start"], fix["range"]["end"]
        span = client_range(codec, lines, types.Range(types.Position(line, start), types.Position(line, end)))
        fix["range"] = {"line": span.start.line, "start": span.start.character, "end": span.end.character}
    return d


def _settle() -> None:
    """Keep the garbage collector off what lives as long as the session (the catalog, the schemas).

    A full collection otherwise walks the whole catalog index again and again while checks allocate:
    on a 200-task pipeline that made one check in ten take three times as long (bench/lsp.py).
    """
    gc.collect()
    gc.freeze()


def _timed_check(path: str, text: str, tools: Tools, version: int | None) -> Checked | None:
    """``check_text``, with its wall and CPU time in the log (bench/lsp.py reads them from there)."""
    started, cpu = time.perf_counter(), time.thread_time()
    checked = check_text(path, text, tools)
    log.info(
        "checked %s version %s: %d diagnostics in %.1f ms (%.1f ms CPU)",
        path,
        version,
        len(checked.diagnostics) if checked else 0,
        (time.perf_counter() - started) * 1000,
        (time.thread_time() - cpu) * 1000,
    )
    return checked


class McvServer(LanguageServer):
    """State of one editor session: settings, loaded tools, and the last check of each buffer."""

    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__("mcv", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.tools: Tools = load_tools(parse_settings(None), None)
        self.knowledge = Knowledge(self.tools.schemas, self.tools.catalog)
        self.last: dict[str, Checked] = {}
        self.outlines: dict[str, tuple[int | None, Outline]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._checked_at: dict[str, float] = {}
        self._running: set[str] = set()
        self._again: set[str] = set()
        self._tasks: dict[str, asyncio.Future[None]] = {}  # held: the loop keeps only weak references
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcv-check")
        _settle()

    def configure(self, raw: Any, root: str | None) -> None:
        """Load the catalog and schemas the editor's settings name; say what could not be loaded."""
        self.tools = load_tools(parse_settings(raw, self.tools.settings), root)
        self.knowledge = Knowledge(self.tools.schemas, self.tools.catalog)
        _settle()
        for problem in self.tools.problems:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"mcv: {problem}"))

    def outline(self, doc: TextDocument) -> Outline:
        """The buffer's outline, read once per version (completion asks on every keystroke)."""
        known = self.outlines.get(doc.uri)
        if known is not None and known[0] == doc.version and doc.version is not None:
            return known[1]
        outline = read_outline(doc.source)
        self.outlines[doc.uri] = (doc.version, outline)
        return outline

    def changed(self, uri: str) -> None:
        """A change arrived: check now after a quiet spell, else once the changes stop."""
        pending = self._timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        elif uri not in self._running and time.monotonic() - self._checked_at.get(uri, 0.0) >= self.debounce:
            self.check_soon(uri)
            return
        self._timers[uri] = asyncio.get_running_loop().call_later(self.debounce, self.check_soon, uri)

    def check_soon(self, uri: str) -> None:
        """Check ``uri`` on the worker (or right after the check of it that is running)."""
        self._timers.pop(uri, None)
        if uri in self._running:
            self._again.add(uri)
            return
        self._running.add(uri)
        self._tasks[uri] = asyncio.ensure_future(self._check(uri))

    def recheck_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            self.check_soon(uri)

    def closed(self, uri: str) -> None:
        pending = self._timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        for table in (self.last, self.outlines, self._checked_at):
            table.pop(uri, None)
        self._again.discard(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    async def _check(self, uri: str) -> None:
        loop = asyncio.get_running_loop()
        try:
            while uri in self.workspace.text_documents:
                self._again.discard(uri)
                doc = self.workspace.get_text_document(uri)
                path = doc.path or to_fs_path(uri) or uri
                text, version = doc.source, doc.version
                checked = await loop.run_in_executor(
                    self._worker, _timed_check, path, text, self.tools, version
                )
                self._checked_at[uri] = time.monotonic()
                if uri in self.workspace.text_documents:
                    self._publish(uri, path, text, version, checked)
                if uri not in self._again:
                    break
        except Exception:  # logged to the log file, if any; never onto stderr or the protocol
            log.exception("checking %s failed", uri)
        finally:
            self._running.discard(uri)
            self._tasks.pop(uri, None)

    def _publish(self, uri: str, path: str, text: str, version: int | None, checked: Checked | None) -> None:
        doc = self.workspace.get_text_document(uri)
        found: list[types.Diagnostic] = []
        if checked is None:
            self.last.pop(uri, None)
        else:
            if checked.document is not None or uri not in self.last:
                self.last[uri] = checked
            lines = text.split("\n")
            ended = text.splitlines(True)
            codec = doc.position_codec
            found = [_to_client(codec, ended, to_lsp(d, lines, path, uri)) for d in checked.diagnostics]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, found, version))
