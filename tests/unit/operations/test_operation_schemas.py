"""The static operation schemas (schemas/operations/*.schema.json) judge task bodies as a user expects.

Each case is a task body as it would be sent in POST /v2/jobs (runner keys already removed); the
assertions name the keyword and the path of every error, since that is what a diagnostic points at.
"""

from __future__ import annotations

import base64
import json
import math
from functools import cache
from importlib.resources import files
from typing import Any

import pytest
from jsonschema import Draft202012Validator

# Every operation the spec (media-conversion-api-v2.md, reference-facts.md) names for a task body:
# the imports of 4.1, the exports of 4.7 and reference-facts (sftp and openstack included), the
# processing operations of 4.3, and watermark, metadata, metadata/write.
SPEC_OPERATIONS = (
    "import/url",
    "import/upload",
    "import/base64",
    "import/raw",
    "import/s3",
    "import/azure/blob",
    "import/google-cloud-storage",
    "export/url",
    "export/upload",
    "export/s3",
    "export/azure/blob",
    "export/google-cloud-storage",
    "import/sftp",
    "export/sftp",
    "import/openstack",
    "export/openstack",
    "convert",
    "thumbnail",
    "optimize",
    "merge",
    "capture-website",
    "archive",
    "command",
    "watermark",
    "metadata",
    "metadata/write",
)
# Unknown keys are errors here; the other operations take engine options checked against the catalog.
CLOSED = {op for op in SPEC_OPERATIONS if op.startswith(("import/", "export/"))} | {
    "archive",
    "command",
    "metadata",
    "metadata/write",
}
TEN_MIB = 10 * 1024 * 1024
BASE64_LIMIT = math.ceil(TEN_MIB / 3) * 4

OPERATIONS_DIR = files("mcv_pipelines") / "schemas" / "operations"

S3 = {
    "bucket": "media",
    "region": "eu-central-1",
    "access_key_id": "AKIAEXAMPLE",
    "secret_access_key": "s3cr3t",
}
AZURE = {"storage_account": "acct", "container": "media"}
GCS = {
    "project_id": "proj",
    "bucket": "media",
    "client_email": "sa@proj.iam.gserviceaccount.com",
    "private_key": "-----BEGIN PRIVATE KEY-----",
}


def schema_file(operation: str) -> str:
    return operation.replace("/", "-") + ".schema.json"


@cache
def schema(operation: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((OPERATIONS_DIR / schema_file(operation)).read_text("utf-8"))
    return loaded


@cache
def validator(operation: str) -> Draft202012Validator:
    return Draft202012Validator(schema(operation))


def errors_of(body: dict[str, Any], operation: str | None = None) -> list[tuple[str, list[str | int]]]:
    """(keyword, path) of every error, sorted so a case can list them in any order."""
    found = validator(operation or body["operation"]).iter_errors(body)
    return sorted((str(e.validator), list(e.absolute_path)) for e in found)


def test_one_schema_per_spec_operation() -> None:
    present = {p.name for p in OPERATIONS_DIR.iterdir() if p.name.endswith(".schema.json")}
    assert present == {schema_file(op) for op in SPEC_OPERATIONS}


@pytest.mark.parametrize("operation", SPEC_OPERATIONS)
def test_schema_is_valid_draft_2020_12(operation: str) -> None:
    Draft202012Validator.check_schema(schema(operation))
    assert schema(operation)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


@pytest.mark.parametrize("operation", SPEC_OPERATIONS)
def test_schema_names_its_operation_and_describes_every_key(operation: str) -> None:
    sch = schema(operation)
    assert sch["$id"].endswith("/" + schema_file(operation))
    assert sch["title"]
    assert sch["description"]
    assert sch["properties"]["operation"]["const"] == operation
    assert "operation" in sch["required"]
    undescribed = [key for key, prop in sch["properties"].items() if not prop.get("description")]
    assert undescribed == []


@pytest.mark.parametrize("operation", SPEC_OPERATIONS)
def test_unknown_keys_rejected_only_where_the_spec_lists_every_key(operation: str) -> None:
    body = {**ACCEPTED[operation][0], "brightness": 3}
    if operation in CLOSED:
        assert errors_of(body) == [("additionalProperties", [])]
    else:
        assert errors_of(body) == []


@pytest.mark.parametrize("operation", SPEC_OPERATIONS)
def test_body_of_another_operation_is_rejected(operation: str) -> None:
    other = "thumbnail" if operation == "convert" else "convert"
    body = {**ACCEPTED[operation][0], "operation": other}
    assert ("const", ["operation"]) in errors_of(body, operation)


@pytest.mark.parametrize(
    ("operation", "field"),
    [
        ("import/s3", "secret_access_key"),
        ("import/s3", "session_token"),
        ("export/s3", "secret_access_key"),
        ("import/azure/blob", "storage_access_key"),
        ("import/azure/blob", "sas_token"),
        ("export/azure/blob", "sas_token"),
        ("import/google-cloud-storage", "private_key"),
        ("export/google-cloud-storage", "private_key"),
    ],
)
def test_credentials_are_marked_write_only(operation: str, field: str) -> None:
    # The checker flags a writeOnly field written as a literal (rule secret-in-plain-text).
    assert schema(operation)["properties"][field]["writeOnly"] is True


ACCEPTED: dict[str, list[dict[str, Any]]] = {
    "import/url": [
        {"operation": "import/url", "url": "https://example.com/a.jpg"},
        {
            "operation": "import/url",
            "url": "http://example.com/x",
            "filename": "x.pdf",
            "headers": {"Authorization": "Bearer t"},
        },
    ],
    "import/upload": [
        {"operation": "import/upload"},
        {"operation": "import/upload", "redirect": "https://example.com/done"},
    ],
    "import/base64": [
        {"operation": "import/base64", "file": "aGVsbG8=", "filename": "hello.txt"},
        {"operation": "import/base64", "file": "aGVs\nbG8=", "filename": "a.b.tar.gz"},
    ],
    "import/raw": [
        {"operation": "import/raw", "file": "<svg/>", "filename": "logo.svg"},
        {"operation": "import/raw", "file": "", "filename": "empty.txt"},
    ],
    "import/s3": [
        {"operation": "import/s3", **S3, "key": "in/photo.jpg"},
        {
            "operation": "import/s3",
            **S3,
            "key_prefix": "in/",
            "endpoint": "https://minio.local:9000",
            "session_token": "tok",
        },
    ],
    "import/azure/blob": [
        {"operation": "import/azure/blob", **AZURE, "storage_access_key": "k", "blob": "a.pdf"},
        {"operation": "import/azure/blob", **AZURE, "sas_token": "sv=x", "blob_prefix": "in/"},
        {
            "operation": "import/azure/blob",
            **AZURE,
            "sas_token": "sv=x",
            "storage_access_key": "k",
            "blob": "a.pdf",
            "filename": "b.pdf",
        },
    ],
    "import/google-cloud-storage": [
        {"operation": "import/google-cloud-storage", **GCS, "file": "a.pdf"},
        {"operation": "import/google-cloud-storage", **GCS, "file_prefix": "in/", "filename": "x.pdf"},
    ],
    "export/url": [
        {"operation": "export/url", "input": "web"},
        {
            "operation": "export/url",
            "input": ["web-320", "sheet"],
            "inline": False,
            "archive_multiple_files": True,
        },
    ],
    "export/upload": [
        {"operation": "export/upload", "input": "web", "url": "https://bucket.example.com/put?sig=1"},
        {"operation": "export/upload", "input": ["a", "b"], "url": "http://127.0.0.1:9000/put"},
    ],
    "export/s3": [
        {"operation": "export/s3", "input": "web", **S3, "key": "out/page-%d.png"},
        {
            "operation": "export/s3",
            "input": ["a", "b"],
            **S3,
            "key_prefix": "out/",
            "acl": "public-read",
            "metadata": {"origin": "mcv"},
            "tagging": {"team": "web"},
            "cache_control": "max-age=60",
        },
    ],
    "export/azure/blob": [
        {"operation": "export/azure/blob", "input": "web", **AZURE, "sas_token": "sv=x", "blob": "o.png"},
        {
            "operation": "export/azure/blob",
            "input": "web",
            **AZURE,
            "storage_access_key": "k",
            "blob_prefix": "out/",
            "metadata": {"a": "b"},
        },
    ],
    "export/google-cloud-storage": [
        {"operation": "export/google-cloud-storage", "input": "web", **GCS, "file": "o.png"},
        {"operation": "export/google-cloud-storage", "input": ["a"], **GCS, "file_prefix": "out/"},
    ],
    "convert": [
        {"operation": "convert", "input": "original", "output_format": "webp"},
        {
            "operation": "convert",
            "input": ["a", "b"],
            "input_format": "jpg",
            "output_format": "png",
            "width": 320,
            "quality": 82,
            "filename": "page-%d.png",
            "engine": "pillow",
            "timeout": 60,
            "some_engine_option": {"nested": True},
        },
        {"operation": "convert", "input": "doc", "output_format": "pdf", "page_range": None, "pdf_a": True},
    ],
    "thumbnail": [
        {"operation": "thumbnail", "input": "original", "output_format": "png"},
        {
            "operation": "thumbnail",
            "input": "v",
            "output_format": "webp",
            "width": 64,
            "height": 64,
            "fit": "crop",
            "timestamp": "00:00:05",
        },
    ],
    "optimize": [
        {"operation": "optimize", "input": "sheet"},
        {"operation": "optimize", "input": "sheet", "input_format": "pdf", "profile": "print"},
    ],
    "merge": [
        {"operation": "merge", "input": ["a", "b"], "output_format": "pdf"},
        {"operation": "merge", "input": "pages", "output_format": "pdf", "filename": "all.pdf"},
    ],
    "capture-website": [
        {"operation": "capture-website", "url": "https://example.com", "output_format": "pdf"},
        {
            "operation": "capture-website",
            "url": "https://example.com",
            "output_format": "png",
            "screenshot_width": 1280,
            "device_scale_factor": 1,
            "wait_time": 0,
        },
    ],
    "archive": [
        {"operation": "archive", "input": ["a", "b"], "output_format": "zip"},
        {"operation": "archive", "input": "a", "output_format": "TAR.GZ", "filename": "bundle.tar.gz"},
    ],
    "command": [
        {
            "operation": "command",
            "input": "audio",
            "engine": "ffmpeg",
            "command": "ffmpeg",
            "arguments": "-i /input/audio/tone.wav /output/tone.mp3",
        },
        {
            "operation": "command",
            "input": ["a", "b"],
            "engine": "imagemagick",
            "command": "convert",
            "arguments": "/input/a/x.png -resize 50% /output/x.png",
            "capture_output": True,
            "timeout": 30,
        },
        {
            "operation": "command",
            "input": "a",
            "engine": "graphicsmagick",
            "command": "gm",
            "arguments": "identify /input/a/x.png",
        },
    ],
    "watermark": [
        {
            "operation": "watermark",
            "input": "doc",
            "text": "DRAFT",
            "opacity": 50,
            "layer": "above",
            "position_vertical": "center",
            "position_horizontal": "center",
            "font_color": "#ff0000",
        },
        {"operation": "watermark", "input": "doc", "image": "logo", "image_width_percent": 20},
    ],
    "metadata": [
        {"operation": "metadata", "input": "doc"},
        {"operation": "metadata", "input": "doc", "input_format": "pdf", "engine": "pypdf"},
    ],
    "metadata/write": [
        {"operation": "metadata/write", "input": "doc", "metadata": {"Title": "Sheet", "Pages": 2}},
        {
            "operation": "metadata/write",
            "input": "doc",
            "input_format": "pdf",
            "metadata": {"Author": None, "Trapped": False},
            "filename": "titled.pdf",
            "engine": "pypdf",
        },
    ],
}


SFTP = {"host": "sftp.example.com", "username": "media"}
SWIFT = {
    "auth_url": "https://auth.example.com:5000",
    "username": "media",
    "password": "pw",
    "region": "RegionOne",
    "container": "media",
}
ACCEPTED.update(
    {
        "import/sftp": [
            {"operation": "import/sftp", **SFTP, "port": 22, "password": "pw", "file": "in/a.jpg"},
            {"operation": "import/sftp", **SFTP, "port": "2222", "private_key": "k", "path": "in/"},
        ],
        "export/sftp": [
            {"operation": "export/sftp", "input": "a", **SFTP, "file": "out/page-%d.png"},
            {"operation": "export/sftp", "input": ["a", "b"], **SFTP, "path": "out/"},
        ],
        "import/openstack": [
            {"operation": "import/openstack", **SWIFT, "file": "a.jpg", "filename": "b.jpg"},
            {"operation": "import/openstack", **SWIFT, "file_prefix": "in/", "tenant_name": "t"},
        ],
        "export/openstack": [{"operation": "export/openstack", "input": "a", **SWIFT, "file_prefix": "out/"}],
    }
)


def test_every_operation_has_accepted_cases() -> None:
    assert set(ACCEPTED) == set(SPEC_OPERATIONS)


@pytest.mark.parametrize(
    "body",
    [body for bodies in ACCEPTED.values() for body in bodies],
    ids=lambda body: str(body["operation"]),
)
def test_accepted(body: dict[str, Any]) -> None:
    assert errors_of(body) == []


REJECTED: list[tuple[str, dict[str, Any], list[tuple[str, list[str | int]]]]] = [
    # -- imports
    ("url missing", {"operation": "import/url"}, [("required", [])]),
    ("url not http", {"operation": "import/url", "url": "file:///etc/passwd"}, [("pattern", ["url"])]),
    (
        "header value not a string",
        {"operation": "import/url", "url": "https://e.x/a", "headers": {"X": 1}},
        [("type", ["headers", "X"])],
    ),
    ("upload takes no input", {"operation": "import/upload", "input": "x"}, [("additionalProperties", [])]),
    ("base64 without filename", {"operation": "import/base64", "file": "aGk="}, [("required", [])]),
    (
        "base64 filename without extension",
        {"operation": "import/base64", "file": "aGk=", "filename": "x"},
        [("pattern", ["filename"])],
    ),
    (
        "base64 not base64",
        {"operation": "import/base64", "file": "hi there!", "filename": "x.txt"},
        [("pattern", ["file"])],
    ),
    (
        "raw file not a string",
        {"operation": "import/raw", "file": 12, "filename": "x.txt"},
        [("type", ["file"])],
    ),
    ("s3 neither key nor key_prefix", {"operation": "import/s3", **S3}, [("oneOf", [])]),
    (
        "s3 both key and key_prefix",
        {"operation": "import/s3", **S3, "key": "a", "key_prefix": "b/"},
        [("oneOf", [])],
    ),
    (
        "s3 missing secret",
        {"operation": "import/s3", **{k: v for k, v in S3.items() if k != "secret_access_key"}, "key": "a"},
        [("required", [])],
    ),
    (
        "s3 region not a string",
        {"operation": "import/s3", **S3, "region": 1, "key": "a"},
        [("type", ["region"])],
    ),
    ("azure without credentials", {"operation": "import/azure/blob", **AZURE, "blob": "a"}, [("anyOf", [])]),
    (
        "azure both blob and prefix",
        {"operation": "import/azure/blob", **AZURE, "sas_token": "t", "blob": "a", "blob_prefix": "b/"},
        [("oneOf", [])],
    ),
    (
        "azure neither blob nor prefix",
        {"operation": "import/azure/blob", **AZURE, "sas_token": "t"},
        [("oneOf", [])],
    ),
    (
        "gcs both file and prefix",
        {"operation": "import/google-cloud-storage", **GCS, "file": "a", "file_prefix": "b/"},
        [("oneOf", [])],
    ),
    ("gcs neither file nor prefix", {"operation": "import/google-cloud-storage", **GCS}, [("oneOf", [])]),
    (
        "gcs key typo",
        {"operation": "import/google-cloud-storage", **GCS, "file": "a", "private-key": "x"},
        [("additionalProperties", [])],
    ),
    # -- exports
    ("export without input", {"operation": "export/url"}, [("required", [])]),
    ("export empty input list", {"operation": "export/url", "input": []}, [("minItems", ["input"])]),
    ("export input not a name", {"operation": "export/url", "input": ["a b"]}, [("pattern", ["input", 0])]),
    ("export input a number", {"operation": "export/url", "input": 3}, [("type", ["input"])]),
    (
        "export inline not boolean",
        {"operation": "export/url", "input": "a", "inline": "yes"},
        [("type", ["inline"])],
    ),
    ("upload export without url", {"operation": "export/upload", "input": "a"}, [("required", [])]),
    (
        "s3 export both key and prefix",
        {"operation": "export/s3", "input": "a", **S3, "key": "k", "key_prefix": "p/"},
        [("oneOf", [])],
    ),
    ("s3 export neither key nor prefix", {"operation": "export/s3", "input": "a", **S3}, [("oneOf", [])]),
    (
        "s3 export unknown acl",
        {"operation": "export/s3", "input": "a", **S3, "key": "k", "acl": "world"},
        [("enum", ["acl"])],
    ),
    (
        "azure export without credentials",
        {"operation": "export/azure/blob", "input": "a", **AZURE, "blob": "o"},
        [("anyOf", [])],
    ),
    (
        "gcs export neither",
        {"operation": "export/google-cloud-storage", "input": "a", **GCS},
        [("oneOf", [])],
    ),
    (
        "upload redirect not a URL",
        {"operation": "import/upload", "redirect": "done.html"},
        [("pattern", ["redirect"])],
    ),
    ("raw without filename", {"operation": "import/raw", "file": "x"}, [("required", [])]),
    (
        "upload export to a non-http URL",
        {"operation": "export/upload", "input": "a", "url": "ftp://host/x"},
        [("pattern", ["url"])],
    ),
    (
        "azure export both blob and prefix",
        {
            "operation": "export/azure/blob",
            "input": "a",
            **AZURE,
            "sas_token": "t",
            "blob": "o",
            "blob_prefix": "p/",
        },
        [("oneOf", [])],
    ),
    (
        "gcs export without private key",
        {
            "operation": "export/google-cloud-storage",
            "input": "a",
            **{k: v for k, v in GCS.items() if k != "private_key"},
            "file": "o",
        },
        [("required", [])],
    ),
    # -- processing
    ("convert without output_format", {"operation": "convert", "input": "a"}, [("required", [])]),
    (
        "convert width as text",
        {"operation": "convert", "input": "a", "output_format": "png", "width": "320"},
        [("type", ["width"])],
    ),
    (
        "convert quality above 100",
        {"operation": "convert", "input": "a", "output_format": "jpg", "quality": 101},
        [("maximum", ["quality"])],
    ),
    (
        "convert timeout zero",
        {"operation": "convert", "input": "a", "output_format": "pdf", "timeout": 0},
        [("minimum", ["timeout"])],
    ),
    (
        "convert timeout fractional",
        {"operation": "convert", "input": "a", "output_format": "pdf", "timeout": 1.5},
        [("type", ["timeout"])],
    ),
    (
        "convert filename is a path",
        {"operation": "convert", "input": "a", "output_format": "pdf", "filename": "../x.pdf"},
        [("pattern", ["filename"])],
    ),
    (
        "convert engine not a string",
        {"operation": "convert", "input": "a", "output_format": "pdf", "engine": 1},
        [("type", ["engine"])],
    ),
    (
        "thumbnail to gif",
        {"operation": "thumbnail", "input": "a", "output_format": "gif"},
        [("enum", ["output_format"])],
    ),
    (
        "thumbnail zero width",
        {"operation": "thumbnail", "input": "a", "output_format": "png", "width": 0},
        [("minimum", ["width"])],
    ),
    (
        "optimize unknown profile",
        {"operation": "optimize", "input": "a", "profile": "tiny"},
        [("enum", ["profile"])],
    ),
    (
        "optimize with output_format",
        {"operation": "optimize", "input": "a", "output_format": "pdf"},
        [("not", ["output_format"])],
    ),
    (
        "optimize a gif",
        {"operation": "optimize", "input": "a", "input_format": "gif"},
        [("enum", ["input_format"])],
    ),
    (
        "merge one input",
        {"operation": "merge", "input": ["a"], "output_format": "pdf"},
        [("minItems", ["input"])],
    ),
    (
        "merge to png",
        {"operation": "merge", "input": ["a", "b"], "output_format": "png"},
        [("enum", ["output_format"])],
    ),
    ("capture without url", {"operation": "capture-website", "output_format": "pdf"}, [("required", [])]),
    (
        "capture to webp",
        {"operation": "capture-website", "url": "https://e.x", "output_format": "webp"},
        [("enum", ["output_format"])],
    ),
    (
        "capture with input",
        {"operation": "capture-website", "url": "https://e.x", "output_format": "pdf", "input": "a"},
        [("not", ["input"])],
    ),
    (
        "archive unknown format",
        {"operation": "archive", "input": "a", "output_format": "cpio"},
        [("enum", ["output_format"])],
    ),
    (
        "archive engine option",
        {"operation": "archive", "input": "a", "output_format": "zip", "level": 9},
        [("additionalProperties", [])],
    ),
    (
        "command unknown engine",
        {"operation": "command", "input": "a", "engine": "bash", "command": "ffmpeg", "arguments": "-h"},
        [("enum", ["engine"])],
    ),
    (
        "command program of another engine",
        {"operation": "command", "input": "a", "engine": "ffmpeg", "command": "convert", "arguments": "x"},
        [("enum", ["command"])],
    ),
    (
        "command program not allowed",
        {"operation": "command", "input": "a", "engine": "ffmpeg", "command": "sh", "arguments": "-c id"},
        [("enum", ["command"]), ("enum", ["command"])],
    ),
    (
        "command without arguments",
        {"operation": "command", "input": "a", "engine": "ffmpeg", "command": "ffmpeg"},
        [("required", [])],
    ),
    (
        "command arguments as list",
        {
            "operation": "command",
            "input": "a",
            "engine": "ffmpeg",
            "command": "ffmpeg",
            "arguments": ["-i", "x"],
        },
        [("type", ["arguments"])],
    ),
    (
        "watermark neither text nor image",
        {"operation": "watermark", "input": "a", "opacity": 50},
        [("anyOf", [])],
    ),
    (
        "watermark opacity zero",
        {"operation": "watermark", "input": "a", "text": "x", "opacity": 0},
        [("minimum", ["opacity"])],
    ),
    (
        "watermark opacity above 100",
        {"operation": "watermark", "input": "a", "text": "x", "opacity": 101},
        [("maximum", ["opacity"])],
    ),
    (
        "watermark layer middle",
        {"operation": "watermark", "input": "a", "text": "x", "layer": "middle"},
        [("enum", ["layer"])],
    ),
    (
        "watermark position",
        {
            "operation": "watermark",
            "input": "a",
            "text": "x",
            "position_vertical": "left",
            "position_horizontal": "top",
        },
        [("enum", ["position_horizontal"]), ("enum", ["position_vertical"])],
    ),
    (
        "watermark colour as a number",
        {"operation": "watermark", "input": "a", "text": "x", "font_color": 0xFF0000},
        [("type", ["font_color"])],
    ),
    (
        "metadata unknown key",
        {"operation": "metadata", "input": "a", "fields": ["Title"]},
        [("additionalProperties", [])],
    ),
    ("metadata without input", {"operation": "metadata"}, [("required", [])]),
    ("metadata/write without metadata", {"operation": "metadata/write", "input": "a"}, [("required", [])]),
    (
        "metadata/write empty",
        {"operation": "metadata/write", "input": "a", "metadata": {}},
        [("minProperties", ["metadata"])],
    ),
    (
        "metadata/write nested value",
        {"operation": "metadata/write", "input": "a", "metadata": {"Keywords": ["a", "b"]}},
        [("type", ["metadata", "Keywords"])],
    ),
]


REJECTED.extend(
    [
        (
            "sftp port not a port",
            {"operation": "import/sftp", **SFTP, "port": "22a", "file": "a"},
            [("pattern", ["port"])],
        ),
        ("sftp without file or path", {"operation": "export/sftp", "input": "a", **SFTP}, [("oneOf", [])]),
        (
            "swift without password",
            {
                "operation": "import/openstack",
                **{k: v for k, v in SWIFT.items() if k != "password"},
                "file": "a",
            },
            [("required", [])],
        ),
        (
            "swift auth_url not http",
            {"operation": "export/openstack", "input": "a", **SWIFT, "auth_url": "keystone", "file": "a"},
            [("pattern", ["auth_url"])],
        ),
    ]
)


@pytest.mark.parametrize(
    ("body", "expected"), [(b, e) for _, b, e in REJECTED], ids=[c for c, _, _ in REJECTED]
)
def test_rejected(body: dict[str, Any], expected: list[tuple[str, list[str | int]]]) -> None:
    assert errors_of(body) == sorted(expected)


def test_every_operation_has_rejected_cases() -> None:
    assert {body["operation"] for _, body, _ in REJECTED} == set(SPEC_OPERATIONS)


def test_alternative_errors_name_the_branches() -> None:
    # A checker explains "exactly one of" from the branch titles, so each branch carries one.
    (error,) = validator("import/s3").iter_errors({"operation": "import/s3", **S3})
    assert [branch["title"] for branch in error.schema[error.validator]] == [
        "one object by key",
        "several objects by key_prefix",
    ]
    assert sorted(sub.message for sub in error.context) == [
        "'key' is a required property",
        "'key_prefix' is a required property",
    ]


def test_base64_limit_is_the_encoding_of_ten_mib() -> None:
    encoded = base64.b64encode(bytes(TEN_MIB)).decode("ascii")
    assert len(encoded) == BASE64_LIMIT
    assert errors_of({"operation": "import/base64", "file": encoded, "filename": "big.bin"}) == []
    # Characters, not bytes, are what a schema can count: three more bytes give four more characters.
    too_big = base64.b64encode(bytes(TEN_MIB + 3)).decode("ascii")
    assert errors_of({"operation": "import/base64", "file": too_big, "filename": "big.bin"}) == [
        ("maxLength", ["file"])
    ]


def test_raw_limit_is_ten_mib() -> None:
    assert errors_of({"operation": "import/raw", "file": "x" * TEN_MIB, "filename": "big.txt"}) == []
    assert errors_of({"operation": "import/raw", "file": "x" * (TEN_MIB + 1), "filename": "big.txt"}) == [
        ("maxLength", ["file"])
    ]
