"""Media conversion recipes as code.

The public API is re-exported here; see each module's ``__all__``. Names are imported on first use
(``lazy_exports``): `mcv --version` and `mcv --help` need none of them, and importing
``mcv_pipelines.diagnostics`` (dataclasses, inspect) cost them a third of their start (issue 15).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcv_pipelines.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
    from mcv_pipelines.errors import (
        ExitCode,
        InterruptedRun,
        InvalidInput,
        JobFailed,
        McvError,
        ServiceTrouble,
        UsageError,
    )

__version__ = "0.1.0"

__all__ = [
    "Diagnostic",
    "ExitCode",
    "InterruptedRun",
    "InvalidInput",
    "JobFailed",
    "Location",
    "McvError",
    "ServiceTrouble",
    "Severity",
    "UsageError",
    "__version__",
]

__getattr__ = lazy_exports(
    __name__,
    {
        "Diagnostic": "diagnostics",
        "Location": "diagnostics",
        "Severity": "diagnostics",
        "ExitCode": "errors",
        "InterruptedRun": "errors",
        "InvalidInput": "errors",
        "JobFailed": "errors",
        "McvError": "errors",
        "ServiceTrouble": "errors",
        "UsageError": "errors",
    },
)
