from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcv_pipelines.diagnostics import Location
from mcv_pipelines.pipeline import Document, Params, RenderedPipeline, render_pipeline
from mcv_pipelines.redact import redact

Doc = Callable[[str], Document]


def _render(document: Document, values: dict[str, Any], **kw: Any) -> RenderedPipeline:
    pipeline, problems = render_pipeline(document, Params(values), **kw)
    assert [p for p in problems if p.is_error] == []
    assert pipeline is not None
    return pipeline


def test_a_lone_expression_keeps_its_type_and_007_stays_a_string(doc: Doc) -> None:
    document = doc("""\
        version: 1
        params: {code: {type: string}, n: {type: integer}, sizes: {type: array}, on: {type: boolean}}
        tasks:
          t:
            operation: convert
            code: "{{ params.code }}"
            n: "{{ params.n }}"
            sizes: "{{ params.sizes }}"
            flag: "{{ params.on }}"
            sum: "{{ params.n + 1 }}"
            text: "n={{ params.n }}"
            spaced: " {{ params.n }}"
        """)
    body = _render(document, {"code": "007", "n": 5, "sizes": [1, 2], "on": False}).tasks["t"].body
    assert body == {
        "operation": "convert",
        "code": "007",
        "n": 5,
        "sizes": [1, 2],
        "flag": False,
        "sum": 6,
        "text": "n=5",
        "spaced": " 5",
    }


def test_a_param_value_is_never_rendered_again_nor_changes_structure(doc: Doc) -> None:
    document = doc("""\
        version: 1
        params: {title: {type: string}}
        tasks:
          t: {operation: convert, filename: "{{ params.title }}", other: "x-{{ params.title }}"}
        """)
    evil = "{{ ''.__class__.__mro__ }}\ninput: [a, b]\n"
    body = _render(document, {"title": evil}).tasks["t"].body
    assert body["filename"] == evil
    assert body["other"] == "x-" + evil
    assert set(body) == {"operation", "filename", "other"}


def test_filters_env_and_secret(doc: Doc) -> None:
    document = doc("""\
        version: 1
        params: {photo: {type: string}}
        tasks:
          t:
            operation: import/s3
            parts: "{{ params.photo | basename }} {{ params.photo | stem }} {{ params.photo | suffix }}"
            dir: "{{ params.photo | dirname }}"
            slug: "{{ 'Hello, World!' | slug }}"
            region: "{{ env('MCV_TEST_REGION', 'eu-central') }}"
            secret_access_key: "{{ secret('MCV_TEST_SECRET') }}"
        """)
    environ = {"MCV_TEST_SECRET": "s3cr3t-value-42"}
    pipeline = _render(document, {"photo": "in/cat.photo.JPG"}, environ=environ)
    body = pipeline.tasks["t"].body
    assert body["parts"] == "cat.photo.JPG cat.photo JPG"
    assert body["dir"] == "in"
    assert body["slug"] == "hello-world"
    assert body["region"] == "eu-central"
    assert body["secret_access_key"] == "s3cr3t-value-42"  # sent to the service as is
    assert redact(str(pipeline.job_body())) == redact(str(pipeline.job_body())).replace("s3cr3t-value-42", "")
    assert "***" in redact(str(pipeline.job_body()))


def test_a_missing_secret_is_an_error_unless_placeholders_are_asked_for(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          t: {operation: import/s3, key: "{{ secret('MCV_TEST_NOPE') }}"}
        """)
    pipeline, problems = render_pipeline(document, Params({}), environ={})
    assert pipeline is None
    assert [(p.rule, p.location) for p in problems] == [("secret-missing", Location("p.yaml", 3, 34))]
    assert _render(document, {}, environ={}, placeholders=True).tasks["t"].body["key"] == "***"


def test_for_each_when_and_runner_keys(doc: Doc) -> None:
    document = doc("""\
        version: 1
        params: {widths: {type: array}, sheet: {type: boolean}}
        job: {tag: "t-{{ params.widths | length }}", ignore_error: "{{ params.sheet }}"}
        tasks:
          original: {operation: import/upload, upload_from: "a/{{ 'p' }}.jpg"}
          web:
            for_each: "{{ params.widths }}"
            when: "{{ item > 100 }}"
            operation: convert
            input: original
            width: "{{ item }}"
            n: "{{ index }}"
          sizes:
            for_each: [{w: 1}, {w: 2}]
            operation: convert
            input: original
            w: "{{ item.w }}"
          sheet: {when: "{{ params.sheet }}", operation: convert, input: original}
          publish: {operation: export/url, input: [web, sheet, sizes], download_to: out/}
        """)
    pipeline = _render(document, {"widths": [50, 320, 640], "sheet": False})
    assert list(pipeline.tasks) == ["original", "web-320", "web-640", "sizes-0", "sizes-1", "publish"]
    assert pipeline.tasks["web-640"].body == {
        "operation": "convert",
        "input": "original",
        "width": 640,
        "n": 2,
    }
    assert pipeline.tasks["web-640"].group == "web"
    assert pipeline.tasks["original"].upload_from == "a/p.jpg"
    assert pipeline.tasks["publish"].download_to == "out/"
    assert pipeline.job_body() == {
        "tasks": {name: dict(task.body) for name, task in pipeline.tasks.items()},
        "tag": "t-3",
        "ignore_error": False,
    }
    publish = pipeline.tasks["publish"]
    assert publish.body == {"operation": "export/url", "input": ["web-320", "web-640", "sizes-0", "sizes-1"]}
    # errors about an expanded input still point at the entry in the file
    assert publish.locate(("input", 3)) == Location("p.yaml", 19, 56)
    assert "upload_from" not in pipeline.tasks["original"].body


def test_input_naming_only_removed_tasks_is_an_error(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          a: {when: false, operation: import/upload}
          b: {operation: export/url, input: a}
        """)
    pipeline, problems = render_pipeline(document, Params({}))
    assert pipeline is None
    assert [(p.rule, p.location) for p in problems] == [("graph-removed-input", Location("p.yaml", 4, 37))]


def test_template_problems_point_at_the_scalar(doc: Doc) -> None:
    document = doc("""\
        version: 1
        params: {n: {type: integer}}
        tasks:
          t:
            operation: convert
            a: "{{ item }}"
            b: "{{ 1 / 0 }}"
            c: "{{ params.n.x }}"
            d: "{% if %}"
            e: "{{ ''.__class__.__mro__ }}"
          u:
            for_each: "{{ params.n }}"
            operation: convert
        """)
    pipeline, problems = render_pipeline(document, Params({"n": 3}))
    assert pipeline is None
    got = [(p.rule, p.location.line if p.location else 0) for p in problems]
    assert got == [("template-undefined", 6), ("template-syntax", 9), ("template-unsafe", 10)]
    # static problems first; once fixed, the runtime ones show
    fixed = doc("""\
        version: 1
        params: {n: {type: integer}}
        tasks:
          t:
            operation: convert
            b: "{{ 1 / 0 }}"
            c: "{{ params.n.x }}"
          u:
            for_each: "{{ params.n }}"
            operation: convert
        """)
    pipeline, problems = render_pipeline(fixed, Params({"n": 3}))
    got = [(p.rule, p.location.line if p.location else 0) for p in problems]
    assert got == [("template-type", 9), ("template-error", 6), ("template-undefined", 7)]


def test_templates_cannot_exhaust_memory(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          t: {operation: convert, a: "{{ 'x' * 10**9 }}", b: "{{ range(10**8) | list }}", ok: "{{ 'a' * 2 }}"}
        """)
    pipeline, problems = render_pipeline(document, Params({}))
    assert pipeline is None
    assert [p.rule for p in problems] == ["template-unsafe", "template-error"]


def test_unknown_filters_and_tests_are_named_with_a_suggestion(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          t: {operation: convert, a: "{{ 'x' | uper }}", b: "{{ 3 is od }}", c: "{{ 'x' | upper }}"}
        """)
    pipeline, problems = render_pipeline(document, Params({}))
    assert pipeline is None
    assert [(p.rule, p.message, p.hint) for p in problems] == [
        ("template-undefined", "unknown filter 'uper'", "did you mean 'upper'?"),
        ("template-undefined", "unknown test 'od'", "did you mean 'odd'?"),
    ]
