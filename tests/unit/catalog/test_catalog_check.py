"""check_task: every catalog rule, with its exact id, severity and the words a user reads."""

from __future__ import annotations

from typing import Any

import pytest

from mcv_pipelines.catalog.check import RULES, check_task, check_task_inputs
from mcv_pipelines.catalog.formats import format_from_name
from mcv_pipelines.catalog.index import Catalog
from mcv_pipelines.catalog.keys import STRUCTURAL_KEYS, TASK_KEYS
from mcv_pipelines.diagnostics import Diagnostic, Location, Severity
from mcv_pipelines.redact import register_secret

TASK_AT = Location("p.yaml", 3, 3)


def run(catalog: Catalog, task: dict[str, Any], input_format: str | None = "jpg") -> list[Diagnostic]:
    """Check ``task`` as the graph wiring will: each key is located on its own line."""
    lines = {key: i for i, key in enumerate(task, start=4)}

    def locate(path: tuple[str | int, ...]) -> Location:
        return Location("p.yaml", lines[str(path[0])], 5)

    return check_task(
        catalog,
        operation=task["operation"],
        input_format=task.get("input_format", input_format),
        output_format=task.get("output_format"),
        engine=task.get("engine"),
        engine_version=task.get("engine_version"),
        options=task,
        locate=locate,
        task_location=TASK_AT,
        task_name="web",
    )


def only(diags: list[Diagnostic]) -> Diagnostic:
    assert len(diags) == 1, diags
    return diags[0]


def test_a_supported_task_with_good_options_is_clean(catalog: Catalog) -> None:
    task = {
        "operation": "convert",
        "input": "original",
        "output_format": "webp",
        "quality": 80,
        "width": None,
        "filename": "x.webp",
        "timeout": 60,
        "upload_from": "a.jpg",
    }
    assert run(catalog, task) == []


def test_unsupported_output_names_the_formats_and_nearest_outputs(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "input": "a", "output_format": "wepb"}))
    assert (d.rule, d.severity) == ("op-format-unsupported", Severity.ERROR)
    assert d.message == "task 'web': convert cannot turn jpg into wepb"
    assert d.hint == "supported outputs from jpg: webp, pdf, png"
    assert d.location == Location("p.yaml", 6, 5)  # the output_format key


def test_unsupported_input_format_suggests_a_close_one(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "pdf"}, input_format="docs"))
    assert d.rule == "op-format-unsupported"
    assert d.message == "task 'web': convert does not accept docs input"
    assert d.hint == "did you mean docx?"


def test_an_operation_missing_from_the_catalog_is_an_error(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convertt", "output_format": "png"}))
    assert d.rule == "op-format-unsupported"
    assert "has no conversion types for convertt" in d.message
    assert d.hint == "did you mean 'convert'?"


def test_unknown_input_format_is_a_warning_not_a_guess(catalog: Catalog) -> None:
    fmt = format_from_name("https://example.com/download?id=4")
    assert fmt is None
    d = only(
        run(
            catalog,
            {"operation": "convert", "input": "fetch", "output_format": "png", "no_such_option": 1},
            input_format=fmt,
        )
    )
    assert (d.rule, d.severity) == ("op-format-unknown", Severity.WARNING)
    assert "the input format is unknown, so convert -> png and its options are not checked" in d.message
    assert d.hint is not None
    assert "input_format" in d.hint
    assert d.location == TASK_AT


def test_unknown_input_format_with_an_output_nobody_makes_is_still_an_error(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "mp3"}, input_format=None))
    assert (d.rule, d.severity) == ("op-format-unsupported", Severity.ERROR)
    assert d.message == "task 'web': convert cannot produce mp3 from any format"


def test_unknown_option_is_an_error_with_did_you_mean(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "webp", "qualty": 70}))
    assert (d.rule, d.severity) == ("op-unknown-option", Severity.ERROR)
    assert d.message == "task 'web': unknown option 'qualty' for convert jpg -> webp (imagemagick)"
    assert d.hint == "did you mean 'quality'?"
    assert d.location == Location("p.yaml", 6, 5)


def test_unknown_option_without_a_close_name_lists_the_options(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "webp", "zzz": 1}))
    assert d.hint == "options: height, lossless, quality, width"


def test_unknown_option_is_only_a_warning_where_the_listing_gives_no_options(catalog: Catalog) -> None:
    d = only(
        run(
            catalog,
            {"operation": "merge", "input": ["a", "b"], "output_format": "pdf", "fast": True},
            input_format="pdf",
        )
    )
    assert (d.rule, d.severity) == ("op-unknown-option", Severity.WARNING)
    assert (
        "the catalog lists no options for merge pdf -> pdf (pypdf), so option 'fast' is not checked"
        in d.message
    )


@pytest.mark.parametrize(
    ("task", "message"),
    [
        ({"output_format": "webp", "quality": "high"}, "option 'quality' must be an integer, got \"high\""),
        ({"output_format": "webp", "quality": True}, "option 'quality' must be an integer, got true"),
        (
            {"output_format": "webp", "lossless": "yes"},
            "option 'lossless' must be true or false, got \"yes\"",
        ),
        ({"output_format": "webp", "width": "320"}, "option 'width' must be an integer or null, got \"320\""),
        (
            {"output_format": "png", "fit": "fill"},
            'option \'fit\' must be one of "max", "crop", "scale", got "fill"',
        ),
        (
            {"output_format": "png", "fit": None},
            'option \'fit\' must be one of "max", "crop", "scale", got null',
        ),
        (
            {"output_format": "pdf", "page_size": "a3"},
            'option \'page_size\' must be one of "a4", "letter" or null, got "a3"',
        ),
    ],
)
def test_option_type_errors_say_what_was_expected(
    catalog: Catalog, task: dict[str, Any], message: str
) -> None:
    d = only(run(catalog, {"operation": "convert", **task}))
    assert (d.rule, d.severity) == ("op-option-type", Severity.ERROR)
    assert d.message == f"task 'web': {message}"


def test_option_types_float_dictionary_string_and_nullable(catalog: Catalog) -> None:
    good = {
        "operation": "convert",
        "output_format": "pdf",
        "dpi": 300,
        "custom_properties": {"a": 1},
        "page_range": None,
        "password": "x",
        "pdf_a": True,
    }
    assert run(catalog, good, input_format="docx") == []
    bad = {
        "operation": "convert",
        "output_format": "pdf",
        "dpi": "300",
        "custom_properties": [1],
        "optimize_print": None,
    }
    messages = sorted(d.message for d in run(catalog, bad, input_format="docx"))
    assert messages == [
        "task 'web': option 'custom_properties' must be a mapping or null, got [1]",
        "task 'web': option 'dpi' must be a number, got \"300\"",
        "task 'web': option 'optimize_print' must be true or false, got null",
    ]


def test_unknown_engine_is_an_error_listing_the_engines(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "png", "engine": "imagemagik"}))
    assert (d.rule, d.severity) == ("op-unknown-engine", Severity.ERROR)
    assert d.message == "task 'web': engine 'imagemagik' cannot run convert jpg -> png"
    assert d.hint == "did you mean 'imagemagick'? engines: imagemagick, vips"
    assert d.location == Location("p.yaml", 6, 5)


def test_options_are_checked_against_the_chosen_engine(catalog: Catalog) -> None:
    task = {"operation": "convert", "output_format": "png", "engine": "vips", "compression_level": 9}
    assert run(catalog, task) == []
    d = only(run(catalog, {**task, "engine": "imagemagick"}))
    assert d.rule == "op-unknown-option"
    assert "'compression_level' for convert jpg -> png (imagemagick)" in d.message


def test_unknown_engine_version(catalog: Catalog) -> None:
    d = only(
        run(
            catalog,
            {
                "operation": "convert",
                "output_format": "png",
                "engine": "imagemagick",
                "engine_version": "8.0",
            },
        )
    )
    assert (d.rule, d.severity) == ("op-unknown-engine-version", Severity.ERROR)
    assert d.message == (
        "task 'web': engine_version '8.0' of imagemagick is not listed for "
        "convert jpg -> png with imagemagick"
    )
    assert d.hint == "versions: 7.1.1, 6.9, 7.2-beta"


def test_deprecated_and_experimental_engine_versions_are_warnings(catalog: Catalog) -> None:
    d = only(run(catalog, {"operation": "convert", "output_format": "png", "engine_version": "6.9"}))
    assert (d.rule, d.severity) == ("op-deprecated", Severity.WARNING)
    assert d.message == "task 'web': engine_version 6.9 of imagemagick is deprecated in the catalog"
    d = only(run(catalog, {"operation": "convert", "output_format": "png", "engine_version": "7.2-beta"}))
    assert (d.rule, d.severity) == ("op-experimental", Severity.WARNING)


def test_deprecated_and_experimental_conversion_types_are_warnings(catalog: Catalog) -> None:
    d = only(
        run(
            catalog, {"operation": "convert", "output_format": "webp", "engine": "oldgif"}, input_format="gif"
        )
    )
    assert (d.rule, d.severity) == ("op-deprecated", Severity.WARNING)
    assert d.message == "task 'web': convert gif -> webp with oldgif is deprecated in the catalog"
    d = only(run(catalog, {"operation": "convert", "output_format": "jpg"}, input_format="heic"))
    assert (d.rule, d.severity) == ("op-experimental", Severity.WARNING)
    # The default engine for gif -> webp is not the deprecated one: no warning without engine.
    assert run(catalog, {"operation": "convert", "output_format": "webp"}, input_format="gif") == []


def test_structural_keys_are_not_options(catalog: Catalog) -> None:
    assert (
        run(
            catalog,
            {
                "operation": "capture-website",
                "url": "https://example.com",
                "output_format": "pdf",
                "page_format": "letter",
            },
            input_format=None,
        )
        == []
    )
    assert (
        run(
            catalog,
            {
                "operation": "command",
                "input": "a",
                "engine": "ffmpeg",
                "command": "ffmpeg",
                "arguments": "-i x y",
                "capture_output": True,
            },
            input_format=None,
        )
        == []
    )
    assert (
        run(
            catalog,
            {"operation": "watermark", "input": "a", "text": "DRAFT", "opacity": 20.5},
            input_format="pdf",
        )
        == []
    )
    assert run(catalog, {"operation": "metadata/write", "input": "a", "metadata": {"Title": "x"}}) == []
    assert "url" in STRUCTURAL_KEYS["capture-website"]
    assert {"operation", "input", "engine_version", "filename", "timeout"} <= TASK_KEYS


def test_operations_that_keep_or_fix_their_output_format(catalog: Catalog) -> None:
    assert run(catalog, {"operation": "optimize", "input": "a", "profile": "print"}, input_format="pdf") == []
    d = only(run(catalog, {"operation": "optimize", "input": "a", "profile": "smallest"}, input_format="pdf"))
    assert d.rule == "op-option-type"
    d = only(run(catalog, {"operation": "optimize", "input": "a"}, input_format="png"))
    assert d.message == "task 'web': optimize does not accept png input"
    assert run(catalog, {"operation": "merge", "input": ["a", "b"], "output_format": "pdf"}) == []
    assert (
        run(catalog, {"operation": "archive", "input": ["a"], "output_format": "TAR.GZ"}, input_format=None)
        == []
    )
    d = only(
        run(catalog, {"operation": "archive", "input": ["a"], "output_format": "rar"}, input_format=None)
    )
    assert d.message == "task 'web': archive cannot turn any into rar"
    assert d.hint == "supported outputs from any: tar.gz, zip"
    assert run(catalog, {"operation": "metadata", "input": "a"}) == []


def test_imports_and_exports_are_not_checked(catalog: Catalog) -> None:
    assert run(catalog, {"operation": "import/url", "url": "https://x/y"}) == []
    assert run(catalog, {"operation": "export/url", "input": "a", "whatever": 1}) == []


def test_every_problem_is_reported_not_only_the_first(catalog: Catalog) -> None:
    diags = run(
        catalog,
        {"operation": "convert", "output_format": "png", "engine_version": "6.9", "fit": "fill", "widht": 5},
    )
    assert sorted(d.rule for d in diags) == ["op-deprecated", "op-option-type", "op-unknown-option"]
    assert set(d.rule for d in diags) <= set(RULES)


def test_a_secret_value_in_a_bad_option_is_masked_even_when_long(catalog: Catalog) -> None:
    secret = "s3cr3t-" + "x" * 80  # longer than a message shows in full
    register_secret(secret)
    d = only(run(catalog, {"operation": "convert", "output_format": "webp", "quality": secret}))
    assert d.rule == "op-option-type"
    assert "s3cr3t" not in d.message
    assert 'got "***"' in d.message


def test_an_engine_that_never_runs_the_operation_is_an_error_even_without_formats(catalog: Catalog) -> None:
    diags = run(
        catalog, {"operation": "convert", "output_format": "png", "engine": "vipz"}, input_format=None
    )
    assert [(d.rule, d.severity) for d in diags] == [
        ("op-format-unknown", Severity.WARNING),
        ("op-unknown-engine", Severity.ERROR),
    ]
    assert diags[1].message == "task 'web': engine 'vipz' does not run convert"
    assert diags[1].hint is not None
    assert diags[1].hint.startswith("did you mean 'vips'? engines: imagemagick, libheif")


def test_a_task_with_inputs_of_several_formats_is_checked_per_format(catalog: Catalog) -> None:
    here = Location("p.yaml", 9, 3)

    def check(operation: str, formats: list[str | None], output: str | None) -> list[Diagnostic]:
        return check_task_inputs(
            catalog,
            operation=operation,
            input_formats=formats,
            output_format=output,
            engine=None,
            engine_version=None,
            options={"operation": operation, "input": ["a", "b"]},
            locate=lambda _p: here,
            task_location=here,
            task_name="sheet",
        )

    d = only(check("merge", ["jpg", "png", "pdf"], "pdf"))
    assert d.message == "task 'sheet': merge does not accept png input"
    assert check("archive", ["jpg", "png", None], "zip") == []
    assert [x.rule for x in check("archive", ["jpg", "png"], "rar")] == ["op-format-unsupported"]
    assert [x.rule for x in check("convert", [], "png")] == ["op-format-unknown"]
