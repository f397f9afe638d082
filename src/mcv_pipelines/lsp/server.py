"""The language server: LSP requests in, the checker's answers out (pygls over stdio).

Diagnostics run on open at once. A change is checked at once when the buffer was last checked more
than ``debounce`` seconds ago; changes that follow within that time wait until ``debounce`` seconds
of quiet and are checked once, with the latest text (a burst of keystrokes costs two checks, and a
lone edit gets its answer without waiting). Each open pipeline keeps its last successful check
(the rendered pipeline, the parsed document) so completion and hover still work while the text is
half-typed. Handlers never let an exception out: a failure is logged and answered with nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import ServerTextPosition, ServerTextRange

from mcv_pipelines import __version__
from mcv_pipelines.lsp.checking import Checked, check_text
from mcv_pipelines.lsp.completion import complete
from mcv_pipelines.lsp.convert import to_lsp
from mcv_pipelines.lsp.knowledge import Knowledge
from mcv_pipelines.lsp.navigation import definition, hover, quick_fixes
from mcv_pipelines.lsp.outline import Outline, read_outline
from mcv_pipelines.lsp.settings import Tools, load_tools, parse_settings

__all__ = ["McvServer", "create_server"]

log = logging.getLogger(__name__)
T = TypeVar("T")
DEFAULT_DEBOUNCE = 0.05


class McvServer(LanguageServer):
    """State of one editor session: settings, loaded tools, and the last check of each buffer."""

    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__("mcv", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.tools: Tools = load_tools(parse_settings(None), None)
        self.knowledge = Knowledge(self.tools.schemas, self.tools.catalog)
        self.last: dict[str, Checked] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.checked_at: dict[str, float] = {}
        self.outlines: dict[str, tuple[int | None, Outline]] = {}

    def configure(self, raw: Any) -> None:
        """Load the catalog and schemas the editor's settings name; say what could not be loaded."""
        root = self.workspace.root_path if self._has_workspace() else None
        self.tools = load_tools(parse_settings(raw), root)
        self.knowledge = Knowledge(self.tools.schemas, self.tools.catalog)
        for problem in self.tools.problems:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"mcv: {problem}"))

    def _has_workspace(self) -> bool:
        try:
            self.workspace  # noqa: B018 - raises before initialize
        except Exception:
            return False
        return True

    def check(self, uri: str) -> None:
        """Check the buffer now and publish what the checker found (nothing for a non-pipeline)."""
        self.timers.pop(uri, None)
        doc = self.workspace.get_text_document(uri)
        path = doc.path or to_fs_path(uri) or uri
        text = doc.source
        try:
            checked = check_text(path, text, self.tools)
        finally:
            self.checked_at[uri] = time.monotonic()
        if checked is None:
            self.last.pop(uri, None)
            self.publish(doc, [])
            return
        if checked.document is not None or uri not in self.last:
            self.last[uri] = checked
        lines = text.split("\n")
        found = [_to_client(doc, to_lsp(d, lines, path, uri)) for d in checked.diagnostics]
        self.publish(doc, found)

    def outline(self, doc: TextDocument) -> Outline:
        """The buffer's outline, read once per version (completion asks on every keystroke)."""
        known = self.outlines.get(doc.uri)
        if known is not None and known[0] == doc.version and doc.version is not None:
            return known[1]
        outline = read_outline(doc.source)
        self.outlines[doc.uri] = (doc.version, outline)
        return outline

    def publish(self, doc: TextDocument, found: list[types.Diagnostic]) -> None:
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(doc.uri, found, doc.version))

    def schedule(self, uri: str) -> None:
        pending = self.timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        elif time.monotonic() - self.checked_at.get(uri, 0.0) >= self.debounce:
            self.check(uri)
            return
        loop = asyncio.get_running_loop()
        self.timers[uri] = loop.call_later(self.debounce, _guarded(self.check, None), uri)

    def recheck_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            _guarded(self.check, None)(uri)


def _guarded(handler: Callable[..., T], fallback: T) -> Callable[..., T]:
    """``handler``, with any exception logged (to the log file, if any) and answered by ``fallback``."""

    def run(*args: Any) -> T:
        try:
            return handler(*args)
        except Exception:
            log.exception("%s failed", getattr(handler, "__name__", "handler"))
            return fallback

    run.__name__ = getattr(handler, "__name__", "handler")
    return run


def _server_range(r: types.Range) -> ServerTextRange:
    return ServerTextRange(
        ServerTextPosition(r.start.line, r.start.character), ServerTextPosition(r.end.line, r.end.character)
    )


def _client_range(doc: TextDocument, r: types.Range) -> types.Range:
    return doc.range_to_client_units(_server_range(r))


def _to_client(doc: TextDocument, d: types.Diagnostic) -> types.Diagnostic:
    d.range = _client_range(doc, d.range)
    fix = d.data.get("fix") if isinstance(d.data, dict) else None
    if isinstance(fix, dict):
        line, start, end = fix["range"]["line"], fix["range"]["start"], fix["range"]["end"]
        span = _client_range(doc, types.Range(types.Position(line, start), types.Position(line, end)))
        fix["range"] = {"line": span.start.line, "start": span.start.character, "end": span.end.character}
    return d


def _cursor(doc: TextDocument, position: types.Position) -> tuple[int, int]:
    at = doc.position_from_client_units(position)
    return at.line, at.character


def create_server(debounce: float = DEFAULT_DEBOUNCE) -> McvServer:
    """The server with every feature registered; ``start_io()`` runs it."""
    server = McvServer(debounce)

    @server.feature(types.INITIALIZE)
    def initialize(ls: McvServer, params: types.InitializeParams) -> None:
        _guarded(ls.configure, None)(params.initialization_options)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: McvServer, params: types.DidChangeConfigurationParams) -> None:
        _guarded(ls.configure, None)(params.settings)
        ls.recheck_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: McvServer, params: types.DidOpenTextDocumentParams) -> None:
        _guarded(ls.check, None)(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: McvServer, params: types.DidChangeTextDocumentParams) -> None:
        _guarded(ls.schedule, None)(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: McvServer, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        pending = ls.timers.pop(uri, None)
        if pending is not None:
            pending.cancel()
        ls.last.pop(uri, None)
        ls.checked_at.pop(uri, None)
        ls.outlines.pop(uri, None)
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=[".", " ", "[", ","])
    )
    def completion(ls: McvServer, params: types.CompletionParams) -> types.CompletionList:
        def run() -> types.CompletionList:
            doc = ls.workspace.get_text_document(params.text_document.uri)
            line, column = _cursor(doc, params.position)
            last = ls.last.get(doc.uri)
            pipeline = last.pipeline if last else None
            items = complete(ls.outline(doc), ls.knowledge, pipeline, line, column)
            for item in items:
                if isinstance(item.text_edit, types.TextEdit):
                    item.text_edit.range = _client_range(doc, item.text_edit.range)
            return types.CompletionList(is_incomplete=False, items=items)

        return _guarded(run, types.CompletionList(is_incomplete=False, items=[]))()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: McvServer, params: types.HoverParams) -> types.Hover | None:
        def run() -> types.Hover | None:
            doc = ls.workspace.get_text_document(params.text_document.uri)
            line, column = _cursor(doc, params.position)
            last = ls.last.get(doc.uri)
            pipeline = last.pipeline if last else None
            data = last.document.data if last and last.document else None
            found_params = data.get("params") if isinstance(data, dict) else None
            declared = found_params if isinstance(found_params, dict) else None
            outline = ls.outline(doc)
            found = hover(outline, ls.knowledge, pipeline, line, column, declared)
            if found is not None and found.range is not None:
                found.range = _client_range(doc, found.range)
            return found

        return _guarded(run, None)()

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: McvServer, params: types.DefinitionParams) -> types.Location | None:
        def run() -> types.Location | None:
            doc = ls.workspace.get_text_document(params.text_document.uri)
            line, column = _cursor(doc, params.position)
            found = definition(ls.outline(doc), doc.uri, line, column)
            if found is not None:
                found.range = _client_range(doc, found.range)
            return found

        return _guarded(run, None)()

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: McvServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        # The fix ranges travel in client units already (converted when the diagnostic was published).
        fallback: list[types.CodeAction] = []
        return _guarded(quick_fixes, fallback)(params.text_document.uri, params.context.diagnostics)

    return server
