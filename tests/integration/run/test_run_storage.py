"""`mcv run` and `mcv batch` on the embedded service with a pipeline that reads from and writes to a
real S3 server (SeaweedFS on loopback): they say where the export stored its files, and the
credentials, given through secret(), show up in none of what they print or write."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from run_helpers import asset, pipeline

from mcv_pipelines.cli.main import main
from seaweed import SeaweedS3


@pytest.fixture
def bucket(seaweed: SeaweedS3, monkeypatch: pytest.MonkeyPatch) -> tuple[SeaweedS3, str]:
    """Two images under a fresh prefix; the keys in the variables secret() reads."""
    prefix = f"run-{secrets.token_hex(4)}/"
    client = seaweed.client()
    try:
        for name in ("photo.jpg", "logo.png"):
            client.put_object(
                Bucket=seaweed.bucket, Key=f"{prefix}in/{name}", Body=Path(asset(name)).read_bytes()
            )
    finally:
        client.close()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", seaweed.access_key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", seaweed.secret_key)
    return seaweed, prefix


def params(seaweed: SeaweedS3, prefix: str | None) -> list[str]:
    """-p arguments; the prefixes too unless ``prefix`` is None (a manifest gives them)."""
    values = {"bucket": seaweed.bucket, "endpoint": seaweed.endpoint, "region": "us-east-1", "width": "48"}
    if prefix is not None:
        values.update(source_prefix=f"{prefix}in/", target_prefix=f"{prefix}web/")
    return [arg for name, value in values.items() for arg in ("-p", f"{name}={value}")]


def test_run_lists_the_keys_it_stored(
    isolated: Path, bucket: tuple[SeaweedS3, str], capsys: pytest.CaptureFixture[str]
) -> None:
    seaweed, prefix = bucket
    code = main(["run", pipeline("s3-roundtrip"), *params(seaweed, prefix), "--progress", "plain"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 file(s) stored:" in out
    for name in ("logo.webp", "photo.webp"):
        assert f"s3://{seaweed.bucket}/{prefix}web/{name}" in out
    assert "no files to download" not in out
    for secret in (seaweed.secret_key, seaweed.access_key):
        assert secret not in out + err


def test_batch_reports_the_stored_keys_of_each_row(
    isolated: Path, bucket: tuple[SeaweedS3, str], capsys: pytest.CaptureFixture[str]
) -> None:
    seaweed, prefix = bucket
    manifest = isolated / "rows.csv"
    manifest.write_text(f"source_prefix,target_prefix\n{prefix}in/,{prefix}web/\n")
    report = isolated / "report.jsonl"
    code = main(
        [
            "batch",
            pipeline("s3-roundtrip"),
            "--manifest",
            str(manifest),
            *params(seaweed, None),
            "--report",
            str(report),
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    [row] = [json.loads(line) for line in report.read_text().splitlines()]
    assert sorted(row["outputs"]) == [
        f"s3://{seaweed.bucket}/{prefix}web/{n}" for n in ("logo.webp", "photo.webp")
    ]
    for secret in (seaweed.secret_key, seaweed.access_key):
        assert secret not in out + err + report.read_text()
