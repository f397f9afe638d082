"""What the checker knows about operations and options, asked the way an editor asks.

Options of a task come from two places, as in the check: the operation's schema (schemas/operations/)
and, when the task's formats are known, the catalog's conversion type (engine options). Formats come
from the last rendered pipeline, inferred along the graph by the catalog check's own inference.
The keys of a test case and of an expectation come from the tables the file schema is made of.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import yaml

from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.inference import TaskFormats
from mcv_pipelines.catalog.pipelinecheck import pipeline_formats
from mcv_pipelines.pipeline.case_outline import CASE_KEYS, EXPECTATION_KEYS
from mcv_pipelines.pipeline.model import RenderedPipeline
from mcv_pipelines.pipeline.opcheck import OperationSchemas, schema_file_name

__all__ = ["Knowledge", "OptionInfo", "case_keys", "expectation_keys"]

# Where each runner key means something; `for_each` and `when` fit every task.
_RUNNER_KEY_OPERATIONS = {"upload_from": "import/upload", "download_to": "export/url"}
_RUNNER_KEY_DOCS = {
    "upload_from": "mcv: the local file `mcv run` uploads to this task (never sent to the service).",
    "download_to": "mcv: the directory the exported files are downloaded into (never sent).",
    "for_each": "mcv: one task per item of this list, named <task>-<item> (never sent).",
    "when": "mcv: the task exists only when this is true (never sent).",
}


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option as an editor shows it."""

    name: str
    type: str | None = None
    default: Any = None
    description: str | None = None
    values: tuple[Any, ...] = ()
    source: str = "schema"


class Knowledge:
    """Operation schemas and a catalog, read once and answered from memory."""

    def __init__(self, schemas: OperationSchemas | None, catalog: Catalog | None) -> None:
        self.registry = schemas if schemas is not None else OperationSchemas()
        self.catalog = catalog
        self._schemas: dict[str, dict[str, Any] | None] = {}
        self._operations: list[str] | None = None
        # The latest pipeline asked about and its formats (held, so that it is this pipeline's).
        self._formats: tuple[RenderedPipeline, dict[str, TaskFormats]] | None = None

    def operations(self) -> list[str]:
        if self._operations is None:
            names = dict.fromkeys(self.registry.available())
            if self.catalog is not None:
                names.update(dict.fromkeys(self.catalog.operations))
            self._operations = list(names)
        return self._operations

    def schema(self, operation: str) -> dict[str, Any] | None:
        if operation not in self._schemas:
            found: dict[str, Any] | None = None
            try:
                entry = self.registry.directory / schema_file_name(operation)
                if "/." not in operation and entry.is_file():
                    loaded = json.loads(entry.read_text(encoding="utf-8"))
                    found = loaded if isinstance(loaded, dict) else None
            except (OSError, ValueError):
                found = None
            self._schemas[operation] = found
        return self._schemas[operation]

    def formats(self, pipeline: RenderedPipeline | None, group: str) -> TaskFormats | None:
        """What the task named ``group`` in the file receives and makes (its first for_each task's)."""
        if pipeline is None:
            return None
        if self._formats is not None and self._formats[0] is pipeline:
            flows = self._formats[1]
        else:
            flows = pipeline_formats(pipeline)[0]
            self._formats = (pipeline, flows)
        for name, task in pipeline.tasks.items():
            if task.group == group and name in flows:
                return flows[name]
        return None

    def options(
        self, operation: str, formats: TaskFormats | None, engine: str | None = None
    ) -> dict[str, OptionInfo]:
        """Every option a task of ``operation`` may have, schema options first."""
        found: dict[str, OptionInfo] = {}
        schema = self.schema(operation) or {}
        properties = schema.get("properties", {})
        for name, spec in properties.items() if isinstance(properties, Mapping) else ():
            if name != "operation" and isinstance(spec, Mapping):
                found[name] = _from_schema(name, spec)
        for key, doc in _RUNNER_KEY_DOCS.items():
            if _RUNNER_KEY_OPERATIONS.get(key, operation) == operation:
                found.setdefault(key, OptionInfo(key, description=doc, source="mcv"))
        for name, info in self._catalog_options(operation, formats, engine).items():
            found[name] = _merged(found[name], info) if name in found else info
        return found

    def _catalog_options(
        self, operation: str, formats: TaskFormats | None, engine: str | None
    ) -> dict[str, OptionInfo]:
        if self.catalog is None or formats is None or formats.input_format is None or formats.output is None:
            return {}
        found: dict[str, OptionInfo] = {}
        for desc in self.catalog.engines(operation, formats.input_format, formats.output):
            if engine and desc.engine != engine:
                continue
            for opt in desc.options or ():
                values = tuple(opt.possible_values or ()) or ((True, False) if opt.type == "boolean" else ())
                found.setdefault(
                    opt.name,
                    OptionInfo(opt.name, opt.type, opt.default, opt.description, values, f"{desc.key}"),
                )
            if not engine:
                break  # the default engine's options: what the task gets without `engine:`
        return found

    def values(
        self, operation: str, option: str, formats: TaskFormats | None, engine: str | None
    ) -> list[str]:
        """The values an option may take, as text to insert (formats and engines from the catalog)."""
        cat = self.catalog
        fin = formats.input_format if formats else None
        if cat is not None and option == "output_format":
            return cat.output_formats(operation, fin)
        if cat is not None and option == "input_format":
            return cat.input_formats(operation)
        if cat is not None and option == "engine":
            fout = formats.output if formats else None
            if fin and fout:
                return [d.engine for d in cat.engines(operation, fin, fout)]
            return cat.engines_of(operation)
        info = self.options(operation, formats, engine).get(option)
        return [_yaml_text(v) for v in info.values] if info else []


@cache
def case_keys() -> dict[str, OptionInfo]:
    """The keys of a test case (`tests: - ...`), from the table the file schema is made of."""
    return _from_table(CASE_KEYS)


@cache
def expectation_keys() -> dict[str, OptionInfo]:
    """The keys of an expectation (`tests: - expect: <task>: ...`), in the table's order."""
    return _from_table(EXPECTATION_KEYS)


def _from_table(table: Mapping[str, tuple[dict[str, Any], str]]) -> dict[str, OptionInfo]:
    return {
        name: _from_schema(name, {**schema, "description": text}, "mcv")
        for name, (schema, text) in table.items()
    }


def _merged(schema: OptionInfo, catalog: OptionInfo) -> OptionInfo:
    """An option both describe: the catalog knows this conversion's values and default, the schema
    the general meaning."""
    return OptionInfo(
        schema.name,
        schema.type or catalog.type,
        catalog.default if catalog.default is not None else schema.default,
        schema.description or catalog.description,
        catalog.values or schema.values,
        catalog.source,
    )


def _from_schema(name: str, spec: Mapping[str, Any], source: str = "schema") -> OptionInfo:
    kind = spec.get("type")
    type_text = " or ".join(kind) if isinstance(kind, list) else kind if isinstance(kind, str) else None
    values: tuple[Any, ...] = ()
    if isinstance(spec.get("enum"), list):
        values = tuple(spec["enum"])
    elif "const" in spec:
        values = (spec["const"],)
    elif kind == "boolean":
        values = (True, False)
    description = spec.get("description")
    return OptionInfo(
        name,
        type_text,
        spec.get("default"),
        description if isinstance(description, str) else None,
        values,
        source,
    )


def _yaml_text(value: Any) -> str:
    """``value`` as YAML reads it back: a string YAML would take for something else gets quotes."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str):
        return json.dumps(value)
    try:
        plain = yaml.safe_load(value) == value
    except yaml.YAMLError:
        plain = False
    return value if plain else json.dumps(value)
