"""Pure logic of the data engine's wider formats: folding, escapes, dates kept, Java's syntax."""

from __future__ import annotations

import datetime as dt

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.data.cards_out import fold, write_ics, write_vcf
from mcv_pipelines.service.engines.data.config_files import dump_properties, load_ini, load_properties
from mcv_pipelines.service.engines.data.records import Table


def test_fold_never_splits_a_character_and_keeps_75_octets() -> None:
    folded = fold("NOTE:" + "ü" * 100).encode()
    lines = folded.split(b"\r\n")[:-1]
    assert all(len(line) <= 75 for line in lines)
    assert folded.decode().replace("\r\n ", "") == "NOTE:" + "ü" * 100 + "\r\n"


def test_a_contact_without_a_name_takes_given_and_family() -> None:
    out = write_vcf(Table(["given_name", "family_name", "FN"], [["Quinn", "Quokka", None]])).decode()
    assert "FN:Quinn Quokka\r\nN:Quokka;Quinn;;;\r\n" in out
    with pytest.raises(EngineError, match="row 1 has no name"):
        write_vcf(Table(["name", "email"], [[None, "a@b"]]))
    with pytest.raises(EngineError, match="no column 'name'"):
        write_vcf(Table(["email"], [["a@b"]]))


def test_events_keep_dates_and_refuse_a_mixed_pair() -> None:
    now = lambda: dt.datetime(2026, 1, 1, tzinfo=dt.UTC)  # noqa: E731 - a clock given as a value
    out = write_ics(Table(["SUMMARY", "DTSTART"], [["Day", dt.date(2024, 5, 3)]]), now).decode()
    assert "DTSTART;VALUE=DATE:20240503" in out
    assert "DTSTAMP:20260101T000000Z" in out
    with pytest.raises(EngineError, match="both be dates or date-times"):
        write_ics(Table(["summary", "start", "end"], [["x", "2024-05-03", "2024-05-03T10:00:00"]]), now)
    with pytest.raises(EngineError, match="not a date"):
        write_ics(Table(["summary", "start"], [["x", "soon"]]), now)


def test_properties_escapes_round_trip() -> None:
    document = {"a b": "x=y:z", "tab\tkey": "  lead", "emoji": "🦘", "multi": "one\ntwo"}
    assert load_properties(dump_properties(document)) == document
    assert load_properties(b"a=b=c\nd:\ne f\n") == {"a": "b=c", "d": "", "e": "f"}


def test_ini_refuses_keys_before_a_section_and_keeps_percent() -> None:
    with pytest.raises(EngineError, match="not a valid ini"):
        load_ini(b"key = value\n")
    assert load_ini(b"[s]\nk = 100%\n") == {"s": {"k": "100%"}}


def test_msgpack_claims_and_extensions_are_refused_at_once() -> None:
    from mcv_pipelines.service.engines.data.documents import dump_document, load_document

    started = dt.datetime.now(dt.UTC)
    for claim in (b"\xdd\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff", b"\x91" * 200_000 + b"\xc0"):
        with pytest.raises(EngineError):  # a huge claimed array or string, nesting without end
            load_document("msgpack", claim)
    assert (dt.datetime.now(dt.UTC) - started).total_seconds() < 5
    with pytest.raises(EngineError, match=r"\$\.a is a MessagePack extension of type 5"):
        load_document("msgpack", b"\x81\xa1a\xd4\x05\x00")
    moment = dt.datetime(2024, 5, 1, 9, tzinfo=dt.UTC)
    assert load_document("msgpack", dump_document("msgpack", {"at": moment, "b": b"\x00"})) == {
        "at": moment,
        "b": b"\x00",
    }
