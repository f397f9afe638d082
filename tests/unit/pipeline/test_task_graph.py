from __future__ import annotations

from collections.abc import Callable

from mcv_pipelines.diagnostics import Location, Severity
from mcv_pipelines.pipeline import Document, Params, check_graph, render_pipeline

Doc = Callable[[str], Document]


def _graph_problems(doc: Doc, tasks: str) -> list[tuple[str, int]]:
    pipeline, problems = render_pipeline(doc("version: 1\ntasks:\n" + tasks), Params({}))
    assert problems == []
    assert pipeline is not None
    return [(p.rule, p.location.line if p.location else 0) for p in check_graph(pipeline)]


def test_a_cycle_names_its_path_and_every_edge(doc: Doc) -> None:
    document = doc("""\
        version: 1
        tasks:
          in: {operation: import/upload}
          a: {operation: convert, input: [in, c]}
          b: {operation: convert, input: a}
          c: {operation: convert, input: b}
          out: {operation: export/url, input: c}
        """)
    pipeline, _ = render_pipeline(document, Params({}))
    assert pipeline is not None
    [cycle] = check_graph(pipeline)
    assert cycle.rule == "graph-cycle"
    assert cycle.message.startswith("cycle: a -> b -> c -> a")
    assert cycle.related == (Location("p.yaml", 5, 34), Location("p.yaml", 6, 34), Location("p.yaml", 4, 39))


def test_input_problems(doc: Doc) -> None:
    problems = _graph_problems(
        doc,
        """\
  in: {operation: import/upload}
  self: {operation: convert, input: [in, self]}
  lost: {operation: convert, input: inn}
  bare: {operation: convert}
  site: {operation: capture-website, url: "https://example.org"}
  book: {operation: merge, input: in}
  bad.name: {operation: convert, input: in}
  out: {operation: export/url, input: [self, lost, bare, site, book, bad.name]}
""",
    )
    assert problems == [
        ("graph-self-input", 4),
        ("graph-dangling-input", 5),
        ("graph-missing-input", 6),
        ("graph-merge-inputs", 8),
        ("task-name", 9),
    ]


def test_exports_unused_outputs_and_no_export_are_warnings(doc: Doc) -> None:
    pipeline, _ = render_pipeline(
        doc("""\
        version: 1
        tasks:
          in: {operation: import/upload}
          used: {operation: convert, input: in}
          unused: {operation: thumbnail, input: in}
          out: {operation: export/url, input: used}
        """),
        Params({}),
    )
    assert pipeline is not None
    [unused] = check_graph(pipeline)
    assert (unused.rule, unused.severity, unused.location) == (
        "graph-unused-output",
        Severity.WARNING,
        Location("p.yaml", 5, 3),
    )
    assert _graph_problems(doc, "  in: {operation: import/upload}\n") == [("graph-no-export", 3)]


def test_results_are_cached_per_parse_so_an_edited_file_gets_fresh_locations(doc: Doc) -> None:
    first_text = (
        "version: 1\ntasks:\n  in: {operation: import/upload}\n  x: {operation: convert, input: nope}\n"
    )
    edited = (
        "version: 1\n\n\ntasks:\n  in: {operation: import/upload}\n  x: {operation: convert, input: nope}\n"
    )
    lines = []
    for text in (first_text, first_text, edited):
        pipeline, _ = render_pipeline(doc(text), Params({}))
        assert pipeline is not None
        lines.append([p.location.line for p in check_graph(pipeline) if p.location])
    assert lines[0] == lines[1] != lines[2]
    assert lines[2][0] == lines[0][0] + 2
