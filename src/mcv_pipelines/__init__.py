"""Media conversion recipes as code.

The public API is re-exported here; see each module's ``__all__``.
"""

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
