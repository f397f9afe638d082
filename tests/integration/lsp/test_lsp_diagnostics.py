"""Diagnostics over the protocol: on open, on change (debounced), for pipelines only, never a crash,
and exactly what `mcv validate --format json` reports."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsp_client import LspClient, mcv_command

Start = Callable[..., LspClient]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
NEGATIVE = EXAMPLES / "negative"
UNKNOWN_OPTION = NEGATIVE / "catalog-unknown-option" / "pipeline.yaml"
SEVERITY = {1: "error", 2: "warning", 3: "info"}


def _plain(d: dict[str, Any]) -> dict[str, Any]:
    """An LSP diagnostic in `mcv validate --format json`'s terms."""
    hint = d["data"]["hint"]
    message = d["message"]
    if hint:
        assert message.endswith("\n" + hint)
        message = message[: -len(hint) - 1]
    return {
        "rule": d["code"],
        "severity": SEVERITY[d["severity"]],
        "message": message,
        "line": d["range"]["start"]["line"] + 1,
        "column": d["range"]["start"]["character"] + 1,
        "hint": hint,
    }


def test_open_reports_the_problem_under_the_word_with_its_hint(shared: LspClient, tmp_path: Path) -> None:
    client = shared
    uri = client.open(tmp_path / "open.yaml", UNKNOWN_OPTION.read_text())
    [found] = client.diagnostics(uri, version=1)
    assert found["range"] == {"start": {"line": 11, "character": 4}, "end": {"line": 11, "character": 10}}
    assert found["code"] == "op-unknown-option"
    assert found["source"] == "mcv"
    assert found["severity"] == 1
    assert found["message"] == (
        "task 'web': unknown option 'qualty' for convert jpg -> webp (pillow)\ndid you mean 'quality'?"
    )


def test_a_change_is_checked_again(shared: LspClient, tmp_path: Path) -> None:
    client = shared
    uri = client.open(tmp_path / "change.yaml", UNKNOWN_OPTION.read_text())
    assert len(client.diagnostics(uri, version=1)) == 1
    client.edit(uri, 2, 11, 4, 10, "quality")
    assert client.diagnostics(uri, version=2) == []
    client.edit(uri, 3, 10, 11, 14, "wide")  # width: 640 -> width: wide
    [found] = client.diagnostics(uri, version=3)
    assert found["code"] == "op-option-type"
    assert found["range"]["start"] == {"line": 10, "character": 11}


def test_a_burst_of_changes_is_checked_once_with_the_last_text(start: Start) -> None:
    # The three changes leave within a millisecond or so; a 4 s quiet spell (1000x that, and 10x the
    # 400 ms an editor would use) keeps a loaded machine from splitting the burst. The one check then
    # comes 4 s after the burst: waited for up to 60 s.
    client = start(args=("--debounce-ms", "4000"))
    uri = client.open(UNKNOWN_OPTION, UNKNOWN_OPTION.read_text())
    client.diagnostics(uri, version=1)
    text = UNKNOWN_OPTION.read_text()
    for version, word in ((2, "qualit"), (3, "quali"), (4, "quality")):
        client.change(uri, text.replace("qualty", word), version)
    assert client.diagnostics(uri, version=4, timeout=60) == []
    published = [n["params"]["version"] for n in client.notifications if "diagnostics" in n.get("params", {})]
    assert 2 not in published
    assert 3 not in published


def test_yaml_that_is_not_a_pipeline_is_left_alone(shared: LspClient, tmp_path: Path) -> None:
    client = shared
    uri = client.open(tmp_path / "ci.yaml", "name: build\non: [push]\njobs: {}\n")
    assert client.diagnostics(uri) == []
    client.change(uri, "version: 1\ntasks:\n  web:\n    operation: convrt\n", 2)
    found = {d["code"]: d for d in client.diagnostics(uri, version=2)}
    assert found["op-unknown"]["range"] == {
        "start": {"line": 3, "character": 15},
        "end": {"line": 3, "character": 21},
    }


def test_broken_documents_get_a_diagnostic_and_the_server_keeps_serving(
    shared: LspClient, tmp_path: Path
) -> None:
    client = shared
    broken = {
        "bad.yaml": ("version: 1\ntasks: [web\n", "yaml-syntax"),
        "half.yaml": ("version: 1\ntasks:\n  web:\n    operation: conv\n    input: \n", "op-unknown"),
        "junk.yaml": ("version: 1\ntasks:\n\x00\x01\udcff\ud800\x7f{{{[[\n", None),
        "tab.yaml": ("version: 1\ntasks:\n\tweb: {}\n", "yaml-syntax"),
    }
    for name, (text, rule) in broken.items():
        uri = client.open(tmp_path / name, text)
        found = client.diagnostics(uri)
        assert found, name
        assert any(d["severity"] == 1 for d in found), name
        if rule:
            assert rule in [d["code"] for d in found], name
        # Still answering requests on the same document.
        assert client.at("textDocument/completion", uri, 2, 0) is not None
        assert client.at("textDocument/hover", uri, 1, 1) is None


def test_diagnostics_equal_mcv_validate_for_every_negative_example(start: Start) -> None:
    # empty-file is left out: an empty buffer has no `version:`/`tasks:`, and the server leaves YAML
    # that is not a pipeline alone (a new, empty YAML file in an editor must not turn red).
    cases = sorted(p for p in NEGATIVE.iterdir() if (p / "pipeline.yaml").exists() and p.name != "empty-file")
    by_catalog: dict[str, list[Path]] = {}
    for case in cases:
        catalog = json.loads((case / "expected.json").read_text()).get("catalog", "default")
        by_catalog.setdefault(catalog, []).append(case / "pipeline.yaml")
    client = start()
    compared = 0
    for catalog, files in by_catalog.items():
        flags = [] if catalog == "default" else ["--catalog", str(EXAMPLES / catalog)]
        done = subprocess.run(
            [*mcv_command(), "validate", "--format", "json", *flags, *map(str, files)],
            capture_output=True,
            check=False,
        )
        expected: dict[str, list[dict[str, Any]]] = {str(f): [] for f in files}
        for d in json.loads(done.stdout)["diagnostics"]:
            expected[d.pop("file")].append(d)
        settings = {"mcv": {"catalog": None if catalog == "default" else str(EXAMPLES / catalog)}}
        client.notify("workspace/didChangeConfiguration", {"settings": settings})
        for file in files:
            text = file.read_bytes().decode("utf-8", "surrogateescape")
            uri = client.open(file, text)
            got = [_plain(d) for d in client.diagnostics(uri)]
            assert got == expected[str(file)], file.parent.name
            assert got, file.parent.name
            compared += 1
    assert compared == len(cases) >= 20


def test_typing_a_pipeline_from_nothing_never_breaks_the_server(shared: LspClient, tmp_path: Path) -> None:
    target = UNKNOWN_OPTION.read_text().replace("qualty", "quality")
    client = shared
    uri = client.open(tmp_path / "new.yaml", "")
    assert client.diagnostics(uri, version=1) == []
    version = 1
    typed = ""
    for chunk in [target[i : i + 7] for i in range(0, len(target), 7)]:
        version += 1
        line = typed.count("\n")
        column = len(typed) - (typed.rfind("\n") + 1)
        client.edit(uri, version, line, column, column, chunk)
        typed += chunk
        line, column = typed.count("\n"), len(typed) - (typed.rfind("\n") + 1)
        assert "items" in client.at("textDocument/completion", uri, line, column)
        client.at("textDocument/hover", uri, line, max(column - 1, 0))
    assert typed == target
    assert client.diagnostics(uri, version=version) == []
