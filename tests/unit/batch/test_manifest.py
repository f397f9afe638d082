"""Reading manifests: formats, quoting, BOM, line endings, unicode, laziness and clear errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcv_pipelines.batch import readers
from mcv_pipelines.batch.errors import ManifestError
from mcv_pipelines.batch.manifest import ManifestRow, glob_manifest, open_manifest, read_rows
from mcv_pipelines.errors import InvalidInput, UsageError


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def rows_of(path: Path, params: set[str] | None = None) -> list[ManifestRow]:
    return list(open_manifest(path, params=params))


def error_of(path: Path) -> ManifestError:
    with pytest.raises(ManifestError) as caught:
        rows_of(path)
    return caught.value


# -- CSV ---------------------------------------------------------------------------------------------


def test_csv_columns_split_into_params_and_extra(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "photo,width,note\na.jpg,320,first\nb.jpg,640,second\n")
    rows = rows_of(path, params={"photo", "width"})
    assert [r.params for r in rows] == [
        {"photo": "a.jpg", "width": "320"},
        {"photo": "b.jpg", "width": "640"},
    ]
    assert [r.extra for r in rows] == [{"note": "first"}, {"note": "second"}]
    assert [(r.index, r.line) for r in rows] == [(1, 2), (2, 3)]
    assert rows[1].where == f"{path}:3: row 2"
    assert str(rows[1].cell("width")) == f"{path}: row 2, column 'width'"


def test_csv_without_declared_params_treats_every_column_as_a_param(tmp_path: Path) -> None:
    rows = rows_of(write(tmp_path, "m.csv", "a,b\n1,2\n"))
    assert rows[0].params == {"a": "1", "b": "2"}
    assert rows[0].extra == {}


def test_csv_cells_stay_strings_and_keep_leading_zeros(tmp_path: Path) -> None:
    rows = rows_of(write(tmp_path, "m.csv", "code,flag\n007,true\n"))
    assert rows[0].values == {"code": "007", "flag": "true"}


def test_csv_quoting_bom_crlf_unicode_and_physical_lines(tmp_path: Path) -> None:
    data = (
        "\ufeffphoto,caption\r\n"
        '"a, b.jpg","He said ""hi""\r\nacross lines"\r\n'
        "\r\n"
        "Ünïcødé 写真.jpg,naïve ☃\r\n"
    )
    rows = rows_of(write(tmp_path, "m.csv", data))
    assert rows[0].values == {"photo": "a, b.jpg", "caption": 'He said "hi"\r\nacross lines'}
    assert rows[1].values == {"photo": "Ünïcødé 写真.jpg", "caption": "naïve ☃"}
    # The second row starts on physical line 5: the quoted cell spans two lines, then a blank line.
    assert [(r.index, r.line) for r in rows] == [(1, 2), (2, 5)]


def test_csv_header_names_are_stripped(tmp_path: Path) -> None:
    rows = rows_of(write(tmp_path, "m.csv", "photo, width\na.jpg,1\n"))
    assert rows[0].values == {"photo": "a.jpg", "width": "1"}


def test_tsv_by_extension(tmp_path: Path) -> None:
    rows = rows_of(write(tmp_path, "m.tsv", "photo\tnote\na,b.jpg\tx\n"))
    assert rows[0].values == {"photo": "a,b.jpg", "note": "x"}


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        ("photo,width\na.jpg,1,2\n", 2, "3 cells in this row but the header has 2 columns"),
        ("photo,width\na.jpg\n", 2, "1 cells in this row"),
        ("photo,photo\na,b\n", 1, "column 'photo' twice (columns 1 and 2)"),
        ("photo,,width\na,b,c\n", 1, "header column 2 has no name"),
        ('photo,width\n"a.jpg,1\nb.jpg,2\n', 2, "never closed"),
        ("photo,width\ra.jpg,1\r", 1, "bare carriage return (CR)"),
        ('photo,width\na.jpg,"' + "x" * 200_000 + '"\n', 2, "check the quoting"),
    ],
)
def test_csv_errors_name_the_line(tmp_path: Path, data: str, line: int, words: str) -> None:
    error = error_of(write(tmp_path, "m.csv", data))
    assert error.line == line
    assert str(error).startswith(f"{tmp_path / 'm.csv'}:{line}")
    assert words in str(error)
    assert error.diagnostics[0].location is not None
    assert error.diagnostics[0].location.line == line


def test_a_later_ragged_row_fails_after_earlier_rows_were_yielded(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "a,b\n1,2\n3,4\n5\n")
    seen = []

    def read_all() -> None:
        for row in open_manifest(path):
            seen.append(row.index)

    with pytest.raises(ManifestError, match=r"m\.csv:4: "):
        read_all()
    assert seen == [1, 2]


def test_not_utf8_names_line_and_byte(tmp_path: Path) -> None:
    error = error_of(write(tmp_path, "m.csv", b"photo\nok.jpg\ncaf\xe9.jpg\n"))
    assert error.line == 3
    assert "not UTF-8" in str(error)
    assert "0xe9" in str(error)
    assert "save the manifest as UTF-8" in str(error)


def test_utf16_file_is_named_as_such(tmp_path: Path) -> None:
    error = error_of(write(tmp_path, "m.csv", "photo\na.jpg\n".encode("utf-16")))
    assert "UTF-16" in str(error)


@pytest.mark.parametrize("data", ["", "\n\n", "photo,width\n", "photo,width\n\n"])
def test_empty_csv_is_an_error(tmp_path: Path, data: str) -> None:
    error = error_of(write(tmp_path, "m.csv", data))
    assert error.diagnostics[0].rule == "manifest-empty"
    assert isinstance(error, InvalidInput)
    assert error.exit_code == 2


# -- JSONL -------------------------------------------------------------------------------------------


def test_jsonl_keeps_json_types_and_skips_blank_lines(tmp_path: Path) -> None:
    data = '{"photo": "a.jpg", "widths": [320, 640], "sheet": false}\r\n\n{"photo": "é.jpg", "q": 1.5}\n'
    rows = rows_of(write(tmp_path, "m.jsonl", data), params={"photo", "widths"})
    assert rows[0].params == {"photo": "a.jpg", "widths": [320, 640]}
    assert rows[0].extra == {"sheet": False}
    assert (rows[1].index, rows[1].line, rows[1].values) == (2, 3, {"photo": "é.jpg", "q": 1.5})


@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        ('{"a": 1}\n[1, 2]\n', 2, "JSON array on this line; every line must be an object"),
        ('{"a": 1}\n"text"\n', 2, "JSON string"),
        ('{"a": 1}\n{"a": \n', 2, "not valid JSON"),
        ('{"a": 1, "a": 2}\n', 1, "field 'a' twice"),
        ('{"a": NaN}\n', 1, "NaN"),
    ],
)
def test_jsonl_errors_name_the_line(tmp_path: Path, data: str, line: int, words: str) -> None:
    error = error_of(write(tmp_path, "m.jsonl", data))
    assert error.line == line
    assert words in str(error)


def test_empty_jsonl_is_an_error(tmp_path: Path) -> None:
    assert error_of(write(tmp_path, "m.ndjson", "\n  \n")).diagnostics[0].rule == "manifest-empty"


# -- YAML --------------------------------------------------------------------------------------------


@pytest.fixture(params=readers._LOADERS, ids=lambda cls: cls.__name__)
def yaml_loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run a test with each YAML loader this PyYAML has: libyaml's when built with it, and pure Python."""
    monkeypatch.setattr(readers, "_LOADERS", [request.param])


@pytest.mark.usefixtures("yaml_loader")
def test_yaml_list_of_mappings_with_lines_types_and_anchors(tmp_path: Path) -> None:
    data = (
        "# rows\n"
        "- &base {photo: a.jpg, widths: [320], when: 2024-01-01}\n"
        "- <<: *base\n"
        "  photo: 'b.jpg'\n"
        "  note: no\n"
    )
    rows = rows_of(write(tmp_path, "m.yaml", data), params={"photo", "widths"})
    assert rows[0].params == {"photo": "a.jpg", "widths": [320]}
    assert rows[0].extra == {"when": "2024-01-01"}  # dates stay text: cells are JSON values
    assert rows[1].params == {"photo": "b.jpg", "widths": [320]}
    assert rows[1].extra == {"when": "2024-01-01", "note": False}
    assert [(r.index, r.line) for r in rows] == [(1, 2), (2, 3)]


@pytest.mark.usefixtures("yaml_loader")
@pytest.mark.parametrize(
    ("data", "line", "words"),
    [
        ("photo: a.jpg\n", 1, "must be a YAML list of mappings"),
        ("just text\n", 1, "not a single value"),
        ("- {a: 1}\n- 2\n", 2, "list item that is not a mapping"),
        ("- {a: 1}\n- {1: x}\n", 2, "column name that is not a string"),
        ("- {a: 1, a: 2}\n", 1, "column 'a' twice"),
        ("- {a: 1}\n---\n- {a: 2}\n", 2, "more than one YAML document"),
        ("- {a: 1}\n- {a: [1\n", 3, "not valid YAML"),
        ("- {a: !!binary aGVsbG8=}\n", 1, "YAML type bytes"),
    ],
)
def test_yaml_errors_name_the_line(tmp_path: Path, data: str, line: int, words: str) -> None:
    error = error_of(write(tmp_path, "m.yml", data))
    assert error.line == line
    assert words in str(error)


@pytest.mark.usefixtures("yaml_loader")
@pytest.mark.parametrize("data", ["", "# nothing\n", "[]\n", "---\n"])
def test_empty_yaml_is_an_error(tmp_path: Path, data: str) -> None:
    assert error_of(write(tmp_path, "m.yaml", data)).diagnostics[0].rule == "manifest-empty"


# -- laziness ----------------------------------------------------------------------------------------


class SourceExhausted(Exception):
    """Raised by a test source when a reader asks for more than the test allowed."""


def limited(head: list[bytes], row: bytes, allowed: int) -> Iterator[bytes]:
    """``head`` then ``allowed`` copies of ``row``, then an exception: a reader that is not lazy fails."""
    yield from head
    for _ in range(allowed):
        yield row
    raise SourceExhausted


@pytest.mark.parametrize(
    ("format", "head", "row"),
    [
        ("csv", [b"photo,width\n"], b"a.jpg,320\n"),
        ("jsonl", [], b'{"photo": "a.jpg"}\n'),
        ("yaml", [], b"- {photo: a.jpg, width: 320}\n"),
    ],
)
def test_readers_yield_rows_before_the_source_is_read_to_its_end(
    format: str, head: list[bytes], row: bytes
) -> None:
    # YAML reads ahead a few kilobytes; 2,000 rows are far more than any reader's lookahead.
    rows = read_rows(limited(head, row, 2000), format, f"m.{format}")
    first = next(rows)
    assert first.index == 1
    assert first.values["photo"] == "a.jpg"
    with pytest.raises(SourceExhausted):
        for _ in rows:
            pass


def test_a_manifest_can_be_read_twice(tmp_path: Path) -> None:
    manifest = open_manifest(write(tmp_path, "m.csv", "a\n1\n2\n"))
    assert [r.values for r in manifest] == [r.values for r in manifest] == [{"a": "1"}, {"a": "2"}]


def test_digest_changes_with_the_content(tmp_path: Path) -> None:
    path = write(tmp_path, "m.csv", "a\n1\n")
    before = open_manifest(path).digest()
    assert open_manifest(path).digest() == before
    path.write_text("a\n2\n")
    assert open_manifest(path).digest() != before


# -- opening -----------------------------------------------------------------------------------------


def test_unknown_extension_and_missing_file_are_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"cannot tell the manifest format.*\.csv"):
        open_manifest(write(tmp_path, "m.txt", "a\n1\n"))
    with pytest.raises(UsageError, match="manifest not found"):
        open_manifest(tmp_path / "missing.csv")
    rows = list(open_manifest(write(tmp_path, "m.txt", '{"a": 1}\n'), format="jsonl"))
    assert rows[0].values == {"a": 1}


# -- glob --------------------------------------------------------------------------------------------


def test_glob_rows_are_sorted_files_with_the_path_as_param(tmp_path: Path) -> None:
    for name in ["b.jpg", "a.jpg", "sub/c.jpg", "notes.txt"]:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / "dir.jpg").mkdir()
    manifest = glob_manifest(f"{tmp_path}/**/*.jpg", "photo", params={"photo", "width"})
    rows = list(manifest)
    assert [r.params["photo"] for r in rows] == [f"{tmp_path}/{n}" for n in ["a.jpg", "b.jpg", "sub/c.jpg"]]
    assert [r.index for r in rows] == [1, 2, 3]
    assert rows[0].line is None
    digest = manifest.digest()
    (tmp_path / "d.jpg").write_bytes(b"x")
    assert manifest.digest() != digest
    assert json.dumps(manifest.label).count("as photo") == 1


def test_glob_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no files match"):
        list(glob_manifest(f"{tmp_path}/*.png", "photo"))
    with pytest.raises(UsageError, match=r"--as image: the pipeline has no param 'image' \(its params: ph"):
        glob_manifest(f"{tmp_path}/*.png", "image", params={"photo"})
