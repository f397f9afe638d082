"""scripts/operations-table.py groups the listing into few honest rows."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "operations-table.py"


def load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("operations_table", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def entry(operation: str, source: str, target: str, engine: str = "e") -> dict[str, str]:
    return {"operation": operation, "input_format": source, "output_format": target, "engine": engine}


def test_rows_group_inputs_with_the_same_outputs() -> None:
    listing = [
        *(entry("convert", s, t) for s in ("mp3", "wav") for t in ("mp3", "wav", "ogg") if s != t),
        *(entry("convert", "aiff", t) for t in ("mp3", "wav", "ogg")),
        *(entry("watermark", s, s) for s in ("png", "jpg")),
        entry("command", "any", "any"),
    ]
    assert load().rows(listing) == [
        ("command", "e", "any", "any"),
        ("convert", "e", "aiff, mp3, wav", "mp3, ogg, wav (each to another format)"),
        ("watermark", "e", "jpg, png", "same as input"),
    ]
