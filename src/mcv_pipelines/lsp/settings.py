"""The server's settings: which catalog and operation schemas the checks use.

An editor sends them as ``initializationOptions`` and again with ``workspace/didChangeConfiguration``,
either flat (``{"catalog": "..."}``) or under an ``mcv`` section (``{"mcv": {"catalog": "..."}}``, what
VS Code sends for a settings section). A relative path is taken from the workspace root. Both are
loaded once and kept until the settings change, so a check costs no loading.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.snapshot import select_catalog
from mcv_pipelines.diagnostics import Diagnostic
from mcv_pipelines.errors import McvError
from mcv_pipelines.pipeline.opcheck import OperationSchemas

__all__ = ["Settings", "Tools", "load_tools", "parse_settings"]


@dataclass(frozen=True, slots=True)
class Settings:
    """What the editor asked for: paths as given (None: the bundled default)."""

    catalog: str | None = None
    operation_schemas: str | None = None
    use_catalog: bool = True


@dataclass(frozen=True)
class Tools:
    """What the checks run with, loaded from ``Settings``; ``problems`` say what could not be loaded."""

    settings: Settings
    catalog: Catalog | None
    schemas: OperationSchemas | None
    problems: tuple[str, ...] = ()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


_KEYS = ("catalog", "operationSchemas")


def parse_settings(raw: Any, current: Settings | None = None) -> Settings:
    """Settings from what the client sent; anything unknown or mistyped is ignored.

    A payload that names none of our keys (many clients send ``null``, or every extension's settings,
    to mean "something changed") keeps ``current``.
    """
    section = raw.get("mcv") if isinstance(raw, Mapping) else None
    if isinstance(section, Mapping):
        raw = section
    if not isinstance(raw, Mapping) or not any(key in raw for key in _KEYS):
        return current or Settings()
    catalog = raw.get("catalog")
    return Settings(
        catalog=_text(catalog),
        operation_schemas=_text(raw.get("operationSchemas")),
        use_catalog=catalog is not False,
    )


def _resolve(path: str, root: str | None) -> Path:
    candidate = Path(path).expanduser()
    if not candidate.is_absolute() and root:
        candidate = Path(root) / candidate
    return candidate


def load_tools(settings: Settings, root: str | None) -> Tools:
    """Load the catalog and schemas of ``settings``; what fails falls back to the bundled default."""
    problems: list[str] = []
    schemas: OperationSchemas | None = None
    if settings.operation_schemas:
        directory = _resolve(settings.operation_schemas, root)
        if directory.is_dir():
            schemas = OperationSchemas(directory)
        else:
            problems.append(
                f"operationSchemas {settings.operation_schemas!r}: no such directory "
                f"({directory}); using the bundled operation schemas"
            )
    catalog: Catalog | None = None
    warnings: list[Diagnostic] = []
    path = _resolve(settings.catalog, root) if settings.catalog else None
    try:
        catalog, warnings = select_catalog(path, enabled=settings.use_catalog)
    except McvError as exc:
        problems.append(f"catalog {settings.catalog!r}: {exc}; using the bundled catalog")
        try:
            catalog, warnings = select_catalog(None)
        except McvError as again:
            problems.append(f"the bundled catalog cannot be used either: {again}")
    problems.extend(f"{w.message} ({w.hint})" if w.hint else w.message for w in warnings)
    return Tools(settings, catalog, schemas, tuple(problems))
