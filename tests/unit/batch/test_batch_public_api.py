"""The batch package exports exactly the public names of its modules."""

from __future__ import annotations

import importlib

import mcv_pipelines.batch as batch

MODULES = [
    "errors", "execute", "journal", "keys", "manifest", "meta", "naming", "prepare", "progress", "report",
    "shard", "states", "view",
]


def test_package_exports_exactly_the_public_names_of_its_modules() -> None:
    public: set[str] = set()
    for name in MODULES:
        module = importlib.import_module(f"mcv_pipelines.batch.{name}")
        assert all(hasattr(module, item) for item in module.__all__), name
        public |= set(module.__all__)
    assert set(batch.__all__) == public
    assert all(getattr(batch, name) is not None for name in batch.__all__)


def test_row_template_context() -> None:
    row = batch.ManifestRow(3, "m.csv", 4, {"photo": "a.jpg"}, {"sku": "x", "index": "shadowed"})
    assert row.template_context("k3") == {"sku": "x", "index": 3, "key": "k3"}
