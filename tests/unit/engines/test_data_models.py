"""The data engine's models: where documents, tables, XML and card files meet, and the limits kept."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.cards import contacts, flat_table
from mcv_pipelines.service.engines.data.content_lines import content_lines, split_value
from mcv_pipelines.service.engines.data.documents import dump_document, load_document
from mcv_pipelines.service.engines.data.engine import DataEngine
from mcv_pipelines.service.engines.data.limits import check_size, read_bounded
from mcv_pipelines.service.engines.data.records import table_from_records, table_from_rows
from mcv_pipelines.service.engines.data.tables import delimiter_of, write_markdown
from mcv_pipelines.service.engines.data.xml_tree import read_xml, write_xml
from mcv_pipelines.service.engines.lookup import normalize_listing_format


@contextmanager
def _fails(code: str, text: str) -> Iterator[None]:
    with pytest.raises(EngineError) as caught:
        yield
    assert caught.value.code == code
    assert text in caught.value.message


def test_a_document_is_a_table_where_it_holds_one_list_of_flat_objects() -> None:
    nested = {"zoo": {"animal": [{"name": "Quokka", "n": 1}, {"name": "Wombat", "legs": 4}]}}
    table = table_from_records(nested)
    assert table.columns == ["name", "n", "legs"]
    assert table.rows == [["Quokka", 1, None], ["Wombat", None, 4]]
    assert table_from_records({"name": "Quokka", "n": 1}).rows == [["Quokka", 1]]  # one object: one row
    with _fails("CONVERSION_FAILED", "$.zoo.animal[1].legs is a list"):
        table_from_records({"zoo": {"animal": [{"name": "a"}, {"legs": [1, 2]}]}})
    with _fails("CONVERSION_FAILED", "$.a is a list; a table's cell"):
        table_from_records({"a": [1], "b": 2})


def test_rows_as_read_become_a_table_with_named_columns() -> None:
    table = table_from_rows([["name", "", None], ["Quokka", 3], ["", "", ""]], header=True)
    assert table.columns == ["name", "column2"]  # a nameless last column with no value is dropped
    assert table.records() == [{"name": "Quokka", "column2": 3}]
    assert table_from_rows([["a", "b"]], header=False).columns == ["column1", "column2"]
    with _fails("INVALID_INPUT_FILE", "the column name 'a' appears twice"):
        table_from_rows([["a", "a"], [1, 2]], header=True)
    with _fails("INVALID_INPUT_FILE", "the table is empty"):
        table_from_rows([[""], []], header=True)


def test_xml_reads_and_writes_the_common_convention() -> None:
    text = b'<a xmlns:p="urn:p" p:k="1"><b>x</b><c/><b>y</b>tail<d><e>1</e></d></a>'
    document = read_xml(text)
    assert document == {"a": {"@xmlns:p": "urn:p", "@p:k": "1", "b": ["x", "y"], "c": None,
                              "d": {"e": "1"}, "#text": "tail"}}  # fmt: skip
    assert read_xml(write_xml(document)) == document
    assert write_xml([1, 2]).count(b"<row>") == 2
    assert b"<root>" in write_xml({"x": 1, "y": True})
    with _fails("CONVERSION_FAILED", "$.x['first name']: 'first name' is not an XML element name"):
        write_xml({"x": {"first name": 1}})


def test_targets_that_cannot_hold_a_value_name_its_path() -> None:
    with _fails("CONVERSION_FAILED", "$.items[2].note is null, which TOML cannot hold"):
        dump_document("toml", {"items": [{}, {}, {"note": None}]})
    with _fails("CONVERSION_FAILED", "$.n is 18446744073709551616, an integer beyond 64 bits"):
        dump_document("plist", {"n": 2**64})
    with _fails("CONVERSION_FAILED", "$.x is nan, which JSON cannot hold"):
        dump_document("json", {"x": float("nan")})
    when = dt.datetime(2024, 5, 1, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert load_document("toml", dump_document("toml", {"when": when, "big": 2**62}))["when"] == when
    assert load_document("yaml", dump_document("yaml", {"d": dt.date(2024, 5, 1)}))["d"] == dt.date(
        2024, 5, 1
    )
    assert load_document("yaml", b"1: one\n") == {1: "one"}
    assert dump_document("json", {1: "one"}) == b'{\n  "1": "one"\n}\n'


def test_shared_and_nested_parts_are_measured_once() -> None:
    leaf = ["x"] * 10
    shared: list[object] = [leaf]
    for _ in range(30):
        shared = [shared, shared]
    with _fails("INVALID_INPUT_FILE", "more than 2,000,000 values"):
        check_size(shared)
    check_size([leaf] * 1000)  # 11,001 values: fine
    deep: list[object] = []
    for _ in range(101):
        deep = [deep]
    with _fails("INVALID_INPUT_FILE", "nests deeper than 100 levels"):
        check_size(deep)
    loop: list[object] = []
    loop.append(loop)
    with _fails("INVALID_INPUT_FILE", "holds itself at $[0]"):
        check_size(loop)


def test_input_over_its_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"[]" * 600)
    with _fails("INVALID_INPUT_FILE", "big.json is 1,200 bytes; data conversions take files up to 1,000"):
        read_bounded(big, limit=1000)


def test_content_lines_unfold_decode_and_unescape() -> None:
    text = (
        "BEGIN:VCARD\r\nVERSION:2.1\r\nitem1.TEL;HOME;VOICE:555\r\n"
        "NOTE;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:caf=C3=A9 =\r\nau lait\r\n"
        "ADR:;;1 Main St\\, Unit 2;Perth;;;AU\r\nTITLE:long\r\n  title\r\nEND:VCARD\r\n"
    )
    lines = {line.name: line for line in content_lines(text)}
    assert lines["TEL"].params == {"TYPE": ["HOME", "VOICE"]}
    assert lines["NOTE"].value == "café au lait"
    assert lines["TITLE"].value == "long title"
    assert split_value(lines["ADR"].value, ";")[2] == "1 Main St, Unit 2"
    [contact] = contacts(text)
    assert contact["addresses"] == ["1 Main St, Unit 2, Perth, AU"]
    columns = flat_table([contact, {**contact, "phones": ["1", "2"]}]).columns
    assert columns[columns.index("phone") + 1] == "phone 2"
    assert "email" not in columns  # no contact has one


def test_table_text_outputs_escape_what_they_must() -> None:
    assert delimiter_of("tab", ",") == "\t"
    with _fails("INVALID_OPTION", "option 'delimiter' must be one character"):
        delimiter_of(";;", ",")
    table = table_from_rows([["a|b", "c"], ["x\ny", None]], header=True)
    assert write_markdown(table).decode().splitlines() == ["| a\\|b | c |", "|---|---|", "| x<br>y |   |"]


def test_the_listing_leaves_other_engines_pairs_and_knows_the_aliases() -> None:
    pairs = {(c.input_format, c.output_format) for c in DataEngine().conversion_types()}
    assert ("csv", "xlsx") not in pairs
    assert ("csv", "md") not in pairs
    assert {("yaml", "toml"), ("xlsx", "json"), ("vcf", "csv"), ("ics", "json"), ("tsv", "md")} <= pairs
    assert ("json", "json") not in pairs
    assert normalize_listing_format("YML") == "yaml"
    assert normalize_listing_format("ndjson") == "jsonl"


def test_reading_a_table_leaves_the_process_csv_limit_alone() -> None:
    """The csv module's cell limit is the whole process's: the data engine in an embedded service must
    not raise it under `mcv batch`'s manifest, whose runaway-quote check leans on it."""
    import csv

    from mcv_pipelines.service.engines.data.tables import read_delimited

    before = csv.field_size_limit()
    assert read_delimited(b"animal,count\nQuokka,3\n", ",", True)
    with pytest.raises(EngineError, match="longer than 128 KiB"):
        read_delimited(b'animal\n"' + b"x" * 200_000 + b'"\n', ",", True)
    assert csv.field_size_limit() == before
