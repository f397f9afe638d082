"""Across every conversion type of the bundled catalog, the editor's schema flags the lines `mcv
validate` flags and no other: no false alarm in the editor for a valid task.

One pipeline holds a task per conversion type (its formats, its engine, and every option it lists set
to its default or a value of its type), so a schema that narrowed a format, engine or option too far
shows up as a line the schema flags and mcv does not.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator

from mcv_pipelines.catalog.formats import output_format_of
from mcv_pipelines.catalog.model import Descriptor, OptionDef
from mcv_pipelines.catalog.snapshot import load_default_catalog
from mcv_pipelines.pipeline import check_pipeline, load_document
from mcv_pipelines.pipeline.editor_schema import build_editor_schema

_SAMPLES = {"integer": 2, "float": 1.5, "boolean": True, "string": "x", "dictionary": {"Title": "t"}}
_PAYLOAD: dict[str, dict[str, Any]] = {
    "capture-website": {"url": "https://example.com/"},
    "watermark": {"text": "draft"},
    "metadata/write": {"metadata": {"Title": "t"}},
    "command": {"arguments": "-i /input/a/x /output/y"},
}
_NAMES_OUTPUT = frozenset({"convert", "thumbnail", "capture-website", "archive", "merge"})
_UNEXPECTED = re.compile(r"\('(.+)' (?:was|were) unexpected\)")


def _sample(opt: OptionDef) -> Any:
    if opt.default is not None:
        return opt.default
    if opt.possible_values:
        return opt.possible_values[0]
    return _SAMPLES[opt.type]


def _task(desc: Descriptor, source: str | None) -> dict[str, Any]:
    task: dict[str, Any] = {"operation": desc.operation}
    if source is not None:
        task["input"] = source
    if desc.operation in _NAMES_OUTPUT:
        task["output_format"] = desc.output_format
    program = desc.option("command")
    if desc.operation == "command" and program is not None and program.possible_values:
        task["command"] = program.possible_values[0]
    task["engine"] = desc.engine
    task.update(_PAYLOAD.get(desc.operation, {}))
    for opt in desc.options or ():
        task.setdefault(opt.name, _sample(opt))
    if desc.engine_versions:
        task["engine_version"] = desc.engine_versions[-1].version
    return task


def _pipeline() -> dict[str, Any]:
    tasks: dict[str, Any] = {}
    made: list[str] = []
    for i, desc in enumerate(load_default_catalog()):
        source = None
        if desc.operation != "capture-website":
            source = f"in-{re.sub(r'[^a-z0-9]', '-', desc.input_format)}"
            tasks.setdefault(source, {"operation": "import/upload", "upload_from": f"x.{desc.input_format}"})
        if desc.operation == "merge":
            tasks[f"t{i}"] = {**_task(desc, None), "input": [source, source]}
        else:
            tasks[f"t{i}"] = _task(desc, source)
        if output_format_of(desc.operation, desc.input_format, desc.output_format) != "any":
            made.append(f"t{i}")
    tasks["publish"] = {"operation": "export/url", "input": made}
    return {"version": 1, "name": "every-type", "tasks": tasks}


def test_the_schema_flags_no_line_mcv_validate_accepts(tmp_path: Path) -> None:
    file = tmp_path / "every-type.yaml"
    data = _pipeline()
    file.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    catalog = load_default_catalog()
    found = check_pipeline(file, {}, catalog=catalog).diagnostics
    mcv_lines = {d.location.line for d in found if d.is_error and d.location}
    document = load_document(file)
    flagged: dict[int, str] = {}
    for error in Draft202012Validator(build_editor_schema(catalog)).iter_errors(document.data):
        path = tuple(error.absolute_path)
        unexpected = _UNEXPECTED.search(error.message)
        keys = [(*path, k) for k in unexpected.group(1).split("', '")] if unexpected else [path]
        for key in keys:
            line = (document.locate_key(key) if unexpected else document.locate(key)).line
            flagged[line] = f"{'.'.join(map(str, key))}: {error.message}"
    false_alarms = {line: why for line, why in flagged.items() if line not in mcv_lines}
    assert not false_alarms, false_alarms
    # the two the schema shares with mcv: pypdf lists `password` for metadata and metadata/write, whose
    # operation schemas take none
    assert set(flagged) == mcv_lines
    assert len(mcv_lines) == 2
    assert len(data["tasks"]) > len(catalog)  # every conversion type has its task
