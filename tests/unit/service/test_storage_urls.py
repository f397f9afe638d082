"""--storage and --s3-endpoint: what is accepted, and the usage errors that say what is expected."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mcv_pipelines.cli import serve
from mcv_pipelines.errors import UsageError
from mcv_pipelines.service.files.storage import DirectoryStorage, open_storage


def serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mcv")
    serve.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("ftp://host/dir", "expected file:///ABSOLUTE/DIR or s3://BUCKET[/PREFIX]"),
        ("file://relative/dir", "three slashes: file:///srv/mcv"),
        ("s3://My_Bucket", "the bucket name is 3-63 lowercase letters"),
        ("s3://bucket/prefix?region=x", "no ?query or #fragment allowed"),
        ("/srv/mcv", "expected file:///ABSOLUTE/DIR"),
    ],
)
def test_a_bad_storage_url_is_a_usage_error_saying_what_is_expected(url: str, expected: str) -> None:
    with pytest.raises(UsageError) as raised:
        serve.serve(serve_args("--storage", url))
    assert str(raised.value).startswith(f"--storage: {url!r}")
    assert expected in str(raised.value)


def test_credentials_in_the_storage_url_are_refused_without_being_repeated() -> None:
    with pytest.raises(UsageError) as raised:
        serve.serve(serve_args("--storage", "s3://AKIAEXAMPLE:hunter2secret@bucket/prefix"))
    assert "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in str(raised.value)
    assert "hunter2secret" not in str(raised.value)


def test_a_bad_s3_endpoint_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match=r"--s3-endpoint: S3 endpoint 'minio:9000': expected http\(s\)://"):
        serve.serve(serve_args("--storage", "s3://bucket", "--s3-endpoint", "minio:9000"))


def test_an_s3_endpoint_without_s3_storage_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="--s3-endpoint: only an s3:// --storage uses it"):
        serve.serve(serve_args("--s3-endpoint", "http://127.0.0.1:9000"))


def test_the_default_store_and_file_urls_are_directories(tmp_path: Path) -> None:
    default = open_storage(None, tmp_path)
    assert isinstance(default, DirectoryStorage)
    assert default.root == tmp_path
    other = open_storage(f"file://{tmp_path}/files", tmp_path / "data")
    assert isinstance(other, DirectoryStorage)
    assert other.root == tmp_path / "files"
    assert other.url == (tmp_path / "files").as_uri()
