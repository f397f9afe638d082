"""A recipe's `tests:` list in the editor, over the protocol: its checks as you type, completion, hover."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_client import LspClient

from mcv_pipelines.pipeline.case_outline import EXPECTATION_KEYS

PIPELINE = """\
version: 1
params:
  photo: {type: string, example: photo.jpg}
  widths: {type: array, default: [320, 640]}
tasks:
  original:
    operation: import/upload
    upload_from: "{{ params.photo }}"
  web:
    for_each: "{{ params.widths }}"
    operation: convert
    input: original
    output_format: webp
    width: "{{ item }}"
  publish:
    operation: export/url
    input: [web]
tests:
  - name: two renditions
    params:
      photo: photo.jpg
    expect:
      web:
        files: 2
        format: webp
"""
LINES = PIPELINE.splitlines()
WEB_LINE = LINES.index("      web:")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder holding the case's fixture, so the file's only problems are the ones a test makes."""
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    return tmp_path


def test_a_misspelt_task_in_expect_is_flagged_as_you_type_and_fixed(shared: LspClient, folder: Path) -> None:
    client = shared
    uri = client.open(folder / "cases.yaml", PIPELINE)
    assert client.diagnostics(uri, version=1) == []
    client.edit(uri, 2, WEB_LINE, 6, 9, "wbe")
    [found] = client.diagnostics(uri, version=2)
    assert found["code"] == "test-unknown-task"
    assert found["message"] == (
        "case 'two renditions': no task or for_each group named 'wbe'\ndid you mean 'web'?"
    )
    assert found["range"] == {
        "start": {"line": WEB_LINE, "character": 6},
        "end": {"line": WEB_LINE, "character": 9},
    }
    params = {"textDocument": {"uri": uri}, "range": found["range"], "context": {"diagnostics": [found]}}
    [action] = client.request("textDocument/codeAction", params)
    assert action["title"] == "Replace with 'web'"


def test_completion_in_expect_names_the_tasks_the_check_rendered(shared: LspClient, folder: Path) -> None:
    client = shared
    uri = client.open(folder / "complete.yaml", PIPELINE + "        \n")
    assert client.diagnostics(uri, version=1) == []
    # the indent says which mapping: at 6 a key of expect:, at 8 a key of web's expectation
    result = client.at("textDocument/completion", uri, len(LINES), 6)
    assert [item["label"] for item in result["items"]] == ["original", "web-320", "web-640", "publish"]
    result = client.at("textDocument/completion", uri, len(LINES), 8)
    assert [item["label"] for item in result["items"]] == [
        k for k in EXPECTATION_KEYS if k not in ("files", "format")
    ]


def test_hover_on_an_expectation_key_says_what_it_checks(shared: LspClient, folder: Path) -> None:
    client = shared
    uri = client.open(folder / "hover.yaml", PIPELINE)
    found = client.at("textDocument/hover", uri, WEB_LINE + 2, 9)
    assert found["contents"]["value"] == f"**format**\n\n{EXPECTATION_KEYS['format'][1]}"
    assert found["range"] == {
        "start": {"line": WEB_LINE + 2, "character": 8},
        "end": {"line": WEB_LINE + 2, "character": 14},
    }
