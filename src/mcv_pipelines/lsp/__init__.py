"""`mcv lsp`: a Language Server Protocol server over the one checker `mcv validate` runs.

Adapters only: diagnostics are ``check_pipeline``'s, completion and hover read the operation schemas
and the catalog the checks use. ``create_server().start_io()`` serves one editor over stdin/stdout.
"""

from __future__ import annotations

from mcv_pipelines.lsp.server import create_server
from mcv_pipelines.lsp.session import McvServer

__all__ = ["McvServer", "create_server"]
