"""The schema of a recipe's `tests:` list: cases, their params and what each task must make.

One table (``EXPECTATION_KEYS``) says which keys an expectation takes and what each means; the file
schema, the editor schema, `mcv lsp`'s completion and the reference page are all made from it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CASE_KEYS", "EXPECTATION_KEYS", "case_defs"]

_NUMBER = {"type": "number"}
_INTEGER = {"type": "integer", "minimum": 0}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_ONE_OR_MORE = {"anyOf": [{"type": "string"}, _STRINGS]}


def _bound(exact: dict[str, Any]) -> dict[str, Any]:
    """A value that is exact, or a mapping of min/max or value/tolerance."""
    number: dict[str, Any] = {"anyOf": [_NUMBER, {"type": "string"}]} if exact.get("size") else _NUMBER
    plain = {k: v for k, v in exact.items() if k != "size"}
    return {
        "anyOf": [
            plain,
            {
                "type": "object",
                "additionalProperties": False,
                "minProperties": 1,
                "properties": {"min": number, "max": number, "value": number, "tolerance": _NUMBER},
            },
        ]
    }


# key -> (schema, description): the order is the order completion offers them in.
EXPECTATION_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "files": (_bound(_INTEGER), "How many files the task (or group) makes: a number, or {min, max}."),
    "format": (
        _ONE_OR_MORE,
        "The format of every file, sniffed from its bytes (not its name); a list allows any.",
    ),
    "names": (_STRINGS, "The names of the files, in any order."),
    "size": (
        _bound({"anyOf": [_INTEGER, {"type": "string"}], "size": True}),
        "Each file's size: bytes, or a string with a unit (12 KB, 3 MB, 1 MiB); a number or {min, max}.",
    ),
    "width": (_bound(_INTEGER), "Images: each file's width in pixels; a number or {min, max}."),
    "height": (_bound(_INTEGER), "Images: each file's height in pixels; a number or {min, max}."),
    "pages": (_bound(_INTEGER), "PDF documents: each file's page count; a number or {min, max}."),
    "text": (_ONE_OR_MORE, "Documents and text: each file's text contains each of these."),
    "duration": (
        _bound(_NUMBER),
        "Audio and video: seconds; a plain number allows +-0.1 s, or {value, tolerance} or {min, max}.",
    ),
    "streams": (_STRINGS, "Audio and video: the kinds of the streams in order (video, audio, subtitle)."),
    "codecs": (_STRINGS, "Audio and video: the codecs of the streams in order (h264, aac, ...)."),
    "members": (_STRINGS, "Archives: the names of the member files, in any order."),
    "golden": (
        {"type": ["boolean", "string"]},
        "Compare each file with the golden file of the same name: true for the default folder beside the "
        "recipe, or a folder relative to it. `mcv test --update-golden` writes them.",
    ),
    "similarity": (
        {"type": "number", "minimum": 0, "maximum": 1},
        "Images against their golden file: the least perceptual similarity (0 to 1, default 0.95).",
    ),
    "fails": (
        {"type": "string", "minLength": 1},
        "The task fails with this error code (INVALID_INPUT_FILE, ...).",
    ),
}

CASE_KEYS: dict[str, tuple[dict[str, Any], str]] = {
    "name": ({"type": "string", "minLength": 1}, "The case's name, unique in the file."),
    "description": ({"type": "string"}, "What the case proves."),
    "params": (
        {"type": "object"},
        "Values for the recipe's params, typed as declared; fixture paths resolve inside the repository.",
    ),
    "requires_env": (
        {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}},
        "Environment variables the case needs (credentials, a storage endpoint): skipped, with the "
        "names said, while one is unset. A param may read one as {env: NAME}.",
    ),
    "expect": (
        {
            "type": "object",
            "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
            "additionalProperties": {"$ref": "#/$defs/expectation"},
        },
        "Per task, or per for_each group (every task it made): what the run must make.",
    ),
    "fails": (
        {"type": "string", "minLength": 1},
        "The job must fail, with a task failing with this error code.",
    ),
}


def case_defs() -> dict[str, dict[str, Any]]:
    """The ``$defs`` entries ``test`` and ``expectation`` (new objects each call: callers may fill them)."""
    return {
        "test": {
            "type": "object",
            "description": "One test case: params, and what the run must make (expect) or how it fails.",
            "required": ["name"],
            "additionalProperties": False,
            "properties": {k: {**schema, "description": text} for k, (schema, text) in CASE_KEYS.items()},
        },
        "expectation": {
            "type": "object",
            "description": "What a task (or every task of a for_each group) must make.",
            "additionalProperties": False,
            "minProperties": 1,
            "properties": {
                k: {**schema, "description": text} for k, (schema, text) in EXPECTATION_KEYS.items()
            },
        },
    }
