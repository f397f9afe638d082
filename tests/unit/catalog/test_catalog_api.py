"""The catalog package's declared public API."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import mcv_pipelines.catalog as catalog_pkg


def test_every_exported_name_exists() -> None:
    for name in catalog_pkg.__all__:
        assert hasattr(catalog_pkg, name), name


def test_every_module_declares_its_api() -> None:
    for info in pkgutil.iter_modules(catalog_pkg.__path__):
        module = importlib.import_module(f"mcv_pipelines.catalog.{info.name}")
        exported = module.__all__
        assert exported, info.name
        for name in exported:
            assert hasattr(module, name), f"{info.name}.{name}"


def test_the_library_does_not_import_the_cli() -> None:
    for info in pkgutil.iter_modules(catalog_pkg.__path__):
        module = importlib.import_module(f"mcv_pipelines.catalog.{info.name}")
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "mcv_pipelines.cli" not in source, info.name


def test_docstring_examples_hold() -> None:
    attempted = 0
    for info in pkgutil.iter_modules(catalog_pkg.__path__):
        module = importlib.import_module(f"mcv_pipelines.catalog.{info.name}")
        result = doctest.testmod(module)
        assert result.failed == 0, info.name
        attempted += result.attempted
    assert attempted >= 10
