"""The outline of a pipeline file: version, name, params, job, tasks, and the keys every task may have.

It is what the ``file-schema`` stage of `mcv validate` checks, and the frame ``editor_schema`` fills
in with each operation's options to make schemas/pipeline.schema.json. The options themselves are
checked later, after rendering, by the operation and catalog checks, which word their findings better
than a schema can.
"""

from __future__ import annotations

from typing import Any

from mcv_pipelines.pipeline.case_outline import case_defs

__all__ = ["SCHEMA_ID", "TEMPLATE", "outline_schema", "runner_properties"]

SCHEMA_ID = "https://github.com/mcv-pipelines/mcv-pipelines/schemas/pipeline.schema.json"
# A string holding a Jinja marker is rendered before any check, so it stands for a value of any type.
TEMPLATE: dict[str, Any] = {
    "type": "string",
    "pattern": "\\{[{%#]",
    "$comment": "A template (`{{ ... }}`): rendered before mcv checks the value.",
}
_PARAM_TYPES = ["string", "integer", "number", "boolean", "array", "object", "null"]


def runner_properties() -> dict[str, Any]:
    """The task keys mcv itself reads (``input`` as well: it is the graph), on every task."""
    return {
        "input": {
            "description": "Task name(s) whose files this task reads; a for_each task's name means all of "
            "its tasks.",
            "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
        },
        "upload_from": {
            "type": "string",
            "description": "Runner key: local file uploaded to this import/upload task.",
        },
        "download_to": {
            "type": "string",
            "description": "Runner key: local directory (ending in /) or file where this export's files "
            "land.",
        },
        "for_each": {
            "description": "Runner key: one task per item (named <task>-<item> or <task>-<index>); a list or "
            "a template giving one.",
            "anyOf": [{"type": "array"}, {"type": "string"}],
        },
        "when": {
            "description": "Runner key: the task exists only when this is true; a boolean or a template "
            "giving one.",
            "type": ["boolean", "string"],
        },
    }


def _param() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "type": {
                "anyOf": [
                    {"enum": list(_PARAM_TYPES)},
                    {"type": "array", "items": {"enum": list(_PARAM_TYPES)}},
                ]
            },
            "description": {"type": "string"},
            "secret": {"type": "boolean"},
        },
    }


def _job() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "Job-level keys of the POST /v2/jobs body.",
        "additionalProperties": False,
        "properties": {
            "tag": {"type": "string", "description": "Caller tag linking the job to your own identifiers."},
            "webhook_url": {
                "type": "string",
                "description": "A one-off webhook for this job (job.finished or job.failed).",
            },
            "ignore_error": {
                "type": ["boolean", "string"],
                "description": "Continue the job when tasks fail (a template may give the boolean).",
            },
            "redirect": {
                "type": ["boolean", "string"],
                "description": "With synchronous creation: answer with a redirect to the export file.",
            },
        },
    }


def _task() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["operation"],
        "description": "One task: `operation` plus its options as the service takes them, and runner keys "
        "(upload_from, download_to, for_each, when) that never reach the service.",
        "properties": {
            "operation": {
                "type": "string",
                "description": "For example import/upload, convert, thumbnail, export/url.",
            },
            **runner_properties(),
        },
    }


def outline_schema() -> dict[str, Any]:
    """The outline as a new JSON Schema (draft 2020-12) each call: callers may fill it in."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "mcv pipeline (format version 1)",
        "description": "A job of tasks for a media conversion service. Put `# yaml-language-server: "
        "$schema=<path to this file>` on the first line of a pipeline for completion in editors.",
        "type": "object",
        "required": ["version", "tasks"],
        "additionalProperties": False,
        "properties": {
            "version": {"const": 1, "description": "Format version of the file; always 1."},
            "name": {"type": "string", "description": "A short name of the recipe."},
            "description": {"type": "string", "description": "What the recipe is for."},
            "params": {
                "type": "object",
                "description": "Inputs of the recipe, each declared with a JSON Schema (type, default, "
                "example, enum, minimum, pattern, description...).",
                "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                "additionalProperties": {"$ref": "#/$defs/param"},
            },
            "job": _job(),
            "tasks": {
                "type": "object",
                "description": "Task name to task. Names: letters, digits, '-' and '_'.",
                "minProperties": 1,
                "additionalProperties": {"$ref": "#/$defs/task"},
            },
            "tests": {
                "type": "array",
                "description": "Test cases of the recipe, run by `mcv test`: params (fixture files inside "
                "the repository) and what the run must make. Never sent to the service.",
                "items": {"$ref": "#/$defs/test"},
            },
        },
        "$defs": {"param": _param(), "task": _task(), **case_defs()},
    }
