"""Completion, hover and go to definition inside a recipe's `tests:` list, on the text as typed."""

from __future__ import annotations

import pytest
from lsprotocol import types

from mcv_pipelines.lsp.checking import check_text
from mcv_pipelines.lsp.completion import complete
from mcv_pipelines.lsp.knowledge import Knowledge
from mcv_pipelines.lsp.navigation import definition, hover
from mcv_pipelines.lsp.outline import read_outline
from mcv_pipelines.lsp.settings import load_tools, parse_settings
from mcv_pipelines.pipeline.case_outline import CASE_KEYS, EXPECTATION_KEYS
from mcv_pipelines.pipeline.model import RenderedPipeline

PIPELINE = """\
version: 1
params:
  photo: {type: string, example: photo.jpg, description: the photo to publish}
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
      publish:
        files: 2
"""
LINES = PIPELINE.splitlines()
EXPECT_LINE = LINES.index("    expect:")
WEB_LINE = LINES.index("      web:")
PUBLISH_LINE = LINES.index("      publish:")


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> RenderedPipeline:
    """The pipeline as the server's last check left it (examples and defaults stand in for params)."""
    folder = tmp_path_factory.mktemp("cases")
    (folder / "photo.jpg").write_bytes(b"\xff\xd8\xff")
    checked = check_text(
        str(folder / "p.yaml"), PIPELINE, load_tools(parse_settings({"catalog": False}), None)
    )
    assert checked is not None
    assert [d.rule for d in checked.diagnostics] == []
    assert checked.pipeline is not None
    return checked.pipeline


def _typed(line: int, text: str) -> tuple[str, int, int]:
    """PIPELINE with ``text`` typed on a new line inserted before ``line``: (buffer, line, column)."""
    lines = [*LINES[:line], text, *LINES[line:]]
    return "\n".join(lines) + "\n", line, len(text)


def _offered(text: str, line: int, column: int, pipeline: RenderedPipeline | None = None) -> list[str]:
    items = complete(read_outline(text), Knowledge(None, None), pipeline, line, column)
    return [item.label for item in items]


def _item(text: str, line: int, column: int, label: str) -> types.CompletionItem:
    items = complete(read_outline(text), Knowledge(None, None), None, line, column)
    return next(item for item in items if item.label == label)


def test_a_new_case_is_offered_every_case_key() -> None:
    text, line, column = _typed(len(LINES), "  - ")
    assert _offered(text, line, column) == list(CASE_KEYS)
    assert _offered(*_typed(len(LINES), "  - na")) == list(CASE_KEYS)  # the client filters by "na"


def test_case_keys_already_written_are_left_out_and_carry_their_description() -> None:
    text, line, column = _typed(EXPECT_LINE, "    ")
    assert _offered(text, line, column) == ["description", "requires_env", "fails"]
    item = _item(text, line, column, "requires_env")
    assert isinstance(item.documentation, types.MarkupContent)
    assert CASE_KEYS["requires_env"][1] in item.documentation.value
    assert isinstance(item.text_edit, types.TextEdit)
    assert item.text_edit.new_text == "requires_env: "


def test_expect_offers_the_files_tasks_and_the_tasks_a_for_each_makes(rendered: RenderedPipeline) -> None:
    text, line, column = _typed(WEB_LINE, "      ")
    # web and publish are written already; web's instances come from the rendered pipeline
    assert _offered(text, line, column, rendered) == ["original", "web-320", "web-640"]
    # before any check has rendered the file: the names written under tasks:
    assert _offered(text, line, column) == ["original"]
    items = complete(read_outline(text), Knowledge(None, None), rendered, line, column)
    details = {item.label: item.detail for item in items}
    assert details == {"original": "task", "web-320": "task of web", "web-640": "task of web"}


def test_a_half_typed_task_name_in_expect_is_completed_over_what_was_typed(
    rendered: RenderedPipeline,
) -> None:
    text = PIPELINE + "  - name: one rendition\n    expect:\n      publish: {files: 1}\n      we"
    line, column = len(LINES) + 3, 8
    items = complete(read_outline(text), Knowledge(None, None), rendered, line, column)
    assert [item.label for item in items] == ["original", "web", "web-320", "web-640"]  # publish is written
    assert [item.detail for item in items][1] == "for_each group (2 tasks)"
    edit = items[1].text_edit
    assert isinstance(edit, types.TextEdit)
    assert edit.range == types.Range(types.Position(line, 6), types.Position(line, 8))
    assert edit.new_text == "web: "


def test_an_expectation_offers_the_keys_not_yet_written_with_their_meaning() -> None:
    text, line, column = _typed(WEB_LINE + 3, "        ")  # below `format: webp`
    offered = _offered(text, line, column)
    assert offered == [k for k in EXPECTATION_KEYS if k not in ("files", "format")]
    golden = _item(text, line, column, "golden")
    assert isinstance(golden.documentation, types.MarkupContent)
    assert "`mcv test --update-golden` writes them" in golden.documentation.value
    assert golden.detail == "boolean or string"


def test_a_cases_params_offer_the_recipes_params_not_yet_given() -> None:
    text, line, column = _typed(EXPECT_LINE, "      ")
    assert _offered(text, line, column) == ["widths"]


def test_keys_of_tasks_and_places_with_nothing_to_offer_stay_as_they_were() -> None:
    assert _offered(*_typed(len(LINES), "  ")) == []  # tests: is a list: a key would be wrong here
    assert _offered(*_typed(len(LINES), "other: ")) == []
    text, line, column = _typed(EXPECT_LINE - 2, "      photo: ph")  # a param's value
    assert _offered(text, line, column) == []
    assert "photo" not in _offered(*_typed(LINES.index("  web:"), "  "))  # a new task's name: free


def _hover_text(line: int, column: int, pipeline: RenderedPipeline | None = None) -> str:
    declared = {"photo": {"type": "string", "description": "the photo to publish"}}
    found = hover(read_outline(PIPELINE), Knowledge(None, None), pipeline, line, column, declared)
    assert found is not None
    assert isinstance(found.contents, types.MarkupContent)
    return found.contents.value


def test_hover_explains_case_and_expectation_keys_and_the_params_a_case_gives() -> None:
    assert _hover_text(WEB_LINE + 1, 9) == f"**files**\n\n{EXPECTATION_KEYS['files'][1]}"
    assert _hover_text(EXPECT_LINE, 5) == f"**expect** (type: object)\n\n{CASE_KEYS['expect'][1]}"
    assert _hover_text(EXPECT_LINE - 1, 7) == "**params.photo** (type: 'string')\n\nthe photo to publish"
    assert "`convert`" in _hover_text(WEB_LINE, 7)  # a task in expect: what the task is


def test_go_to_definition_from_expect_to_the_task_and_from_a_cases_param_to_its_declaration() -> None:
    outline = read_outline(PIPELINE)
    web = definition(outline, "file:///p.yaml", WEB_LINE, 7)
    assert web is not None
    assert web.range.start == types.Position(LINES.index("  web:"), 2)
    photo = definition(outline, "file:///p.yaml", EXPECT_LINE - 1, 8)
    assert photo is not None
    assert photo.range.start == types.Position(2, 2)
