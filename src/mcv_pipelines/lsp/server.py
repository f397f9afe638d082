"""The language server's features: LSP requests in, the adapters' answers out (pygls over stdio).

Every handler turns the client's positions into code points, asks an adapter (completion,
navigation), and turns the answer's ranges back into the client's units. None lets an exception
out: a failure is logged (to the log file, if any) and answered with nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from lsprotocol import types
from pygls.workspace import TextDocument

from mcv_pipelines.lsp.completion import complete
from mcv_pipelines.lsp.navigation import definition, hover, quick_fixes
from mcv_pipelines.lsp.session import DEFAULT_DEBOUNCE, McvServer, client_range

__all__ = ["create_server"]

log = logging.getLogger(__name__)
T = TypeVar("T")


def _guarded(handler: Callable[..., T], fallback: T) -> Callable[..., T]:
    """``handler``, with any exception logged and answered by ``fallback``."""

    def run(*args: Any) -> T:
        try:
            return handler(*args)
        except Exception:
            log.exception("%s failed", getattr(handler, "__name__", "handler"))
            return fallback

    return run


def _cursor(doc: TextDocument, position: types.Position) -> tuple[int, int]:
    at = doc.position_from_client_units(position)
    return at.line, at.character


def _out(doc: TextDocument, r: types.Range) -> types.Range:
    return client_range(doc.position_codec, doc.lines, r)


def _declared_params(ls: McvServer, uri: str) -> dict[str, Any] | None:
    last = ls.last.get(uri)
    data = last.document.data if last and last.document else None
    found = data.get("params") if isinstance(data, dict) else None
    return found if isinstance(found, dict) else None


def create_server(debounce: float = DEFAULT_DEBOUNCE) -> McvServer:
    """The server with every feature registered; ``start_io()`` runs it."""
    server = McvServer(debounce)

    @server.feature(types.INITIALIZE)
    def initialize(ls: McvServer, params: types.InitializeParams) -> None:
        _guarded(ls.configure, None)(params.initialization_options, ls.workspace.root_path)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(ls: McvServer, params: types.DidChangeConfigurationParams) -> None:
        _guarded(ls.configure, None)(params.settings, ls.workspace.root_path)
        _guarded(ls.recheck_all, None)()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: McvServer, params: types.DidOpenTextDocumentParams) -> None:
        _guarded(ls.check_soon, None)(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: McvServer, params: types.DidChangeTextDocumentParams) -> None:
        _guarded(ls.changed, None)(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: McvServer, params: types.DidCloseTextDocumentParams) -> None:
        _guarded(ls.closed, None)(params.text_document.uri)

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
                    item.text_edit.range = _out(doc, item.text_edit.range)
            return types.CompletionList(is_incomplete=False, items=items)

        return _guarded(run, types.CompletionList(is_incomplete=False, items=[]))()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: McvServer, params: types.HoverParams) -> types.Hover | None:
        def run() -> types.Hover | None:
            doc = ls.workspace.get_text_document(params.text_document.uri)
            line, column = _cursor(doc, params.position)
            last = ls.last.get(doc.uri)
            pipeline = last.pipeline if last else None
            declared = _declared_params(ls, doc.uri)
            found = hover(ls.outline(doc), ls.knowledge, pipeline, line, column, declared)
            if found is not None and found.range is not None:
                found.range = _out(doc, found.range)
            return found

        return _guarded(run, None)()

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: McvServer, params: types.DefinitionParams) -> types.Location | None:
        def run() -> types.Location | None:
            doc = ls.workspace.get_text_document(params.text_document.uri)
            line, column = _cursor(doc, params.position)
            found = definition(ls.outline(doc), doc.uri, line, column)
            if found is not None:
                found.range = _out(doc, found.range)
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
