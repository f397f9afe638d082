"""`mcv serve --gcs-endpoint` and `--gcs-token-uri` (or their MCV_* variables): where a served instance
finds Google Cloud Storage's API and its token endpoint, for a sovereign cloud or an emulator."""

from __future__ import annotations

import argparse

import pytest

from mcv_pipelines.cli import serve
from mcv_pipelines.cli.main import build_parser
from mcv_pipelines.errors import UsageError


def _settings(*argv: str) -> dict[str, object]:
    args: argparse.Namespace = build_parser("serve").parse_args(["serve", *argv])
    return serve._settings(args)


def test_the_addresses_come_from_the_flags_else_the_variables_else_google(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("MCV_GCS_ENDPOINT", "MCV_GCS_TOKEN_URI"):
        monkeypatch.delenv(name, raising=False)
    plain = _settings()
    assert "gcs_endpoint" not in plain  # the service's default: https://storage.googleapis.com
    assert "gcs_token_uri" not in plain
    flagged = _settings(
        "--gcs-endpoint", "https://storage.example.eu/", "--gcs-token-uri", "http://10.0.0.5:8080/token"
    )
    assert flagged["gcs_endpoint"] == "https://storage.example.eu"
    assert flagged["gcs_token_uri"] == "http://10.0.0.5:8080/token"
    monkeypatch.setenv("MCV_GCS_ENDPOINT", "http://127.0.0.1:4443")
    monkeypatch.setenv("MCV_GCS_TOKEN_URI", "https://oauth2.example.eu/token")
    from_env = _settings()
    assert from_env["gcs_endpoint"] == "http://127.0.0.1:4443"
    assert from_env["gcs_token_uri"] == "https://oauth2.example.eu/token"
    assert _settings("--gcs-endpoint", "https://other.example")["gcs_endpoint"] == "https://other.example"


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--gcs-endpoint", "storage.googleapis.com"),
        ("--gcs-endpoint", "ftp://storage.example"),
        ("--gcs-endpoint", "https://user:pw@storage.example"),
        ("--gcs-token-uri", "https://oauth2.example/token?x=1"),
    ],
)
def test_an_address_that_is_not_a_plain_http_url_is_refused(option: str, value: str) -> None:
    with pytest.raises(UsageError, match=f"{option} .*expected http\\(s\\)://HOST") as refused:
        _settings(option, value)
    assert "pw" not in str(refused.value)
