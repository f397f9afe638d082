"""mcv serve --azure-blob-endpoint / MCV_AZURE_BLOB_ENDPOINT: the template reaches the service's
settings, and one that is not an http(s) URL is a usage error saying what is expected."""

from __future__ import annotations

import argparse

import pytest

from mcv_pipelines.cli import serve
from mcv_pipelines.errors import UsageError


def serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mcv")
    serve.register(parser.add_subparsers())
    return parser.parse_args(["serve", *argv])


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("127.0.0.1:10000/{account}", "expected an http(s) URL"),
        ("https://{account}.blob.example?sv=1", "no query, fragment or credentials"),
        ("https://user:pw@{account}.blob.example", "no query, fragment or credentials"),
    ],
)
def test_a_bad_endpoint_is_a_usage_error(template: str, expected: str) -> None:
    with pytest.raises(UsageError) as raised:
        serve.serve(serve_args("--azure-blob-endpoint", template))
    assert str(raised.value).startswith("--azure-blob-endpoint ")
    assert expected in str(raised.value)


def test_the_flag_or_its_variable_sets_the_template(monkeypatch: pytest.MonkeyPatch) -> None:
    flag = "http://127.0.0.1:10000/{account}"
    assert serve._settings(serve_args("--azure-blob-endpoint", flag))["azure_blob_endpoint"] == flag
    monkeypatch.setenv("MCV_AZURE_BLOB_ENDPOINT", "https://{account}.blob.core.chinacloudapi.cn")
    from_env = serve._settings(serve_args())["azure_blob_endpoint"]
    assert from_env == "https://{account}.blob.core.chinacloudapi.cn"
    monkeypatch.delenv("MCV_AZURE_BLOB_ENDPOINT")
    assert "azure_blob_endpoint" not in serve._settings(serve_args())  # Azure's public address
