"""The subtitle family's pure parts: decoding what subtitles come in, ASS markup to and from SubRip
and WebVTT tags, the line-based readers, and which of a video's streams can become text."""

from __future__ import annotations

import json

import pytest

from mcv_pipelines.service.engines.base import EngineError
from mcv_pipelines.service.engines.subtitle.cues import read_lrc, read_srt, read_vtt, write_lrc, write_vtt
from mcv_pipelines.service.engines.subtitle.decode import decode_subtitle, refuse_xml_declarations
from mcv_pipelines.service.engines.subtitle.sami import read_sami
from mcv_pipelines.service.engines.subtitle.streams import chosen_streams, subtitle_streams
from mcv_pipelines.service.engines.subtitle.styled import Look, html_to_ass, to_srt_text, to_vtt_text
from mcv_pipelines.service.engines.subtitle.ttml import read_ttml, write_ttml


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ("Café\r\n".encode(), "Café\n"),
        ("\ufeffCafé".encode(), "Café"),
        ("Café".encode("cp1252"), "Café"),
        ("Œuvre – ½".encode("cp1252"), "Œuvre – ½"),
        ("Café".encode("utf-16"), "Café"),
        ("Café".encode("utf-16-le"), "Café"),
        (b"caf\x81", "caf\x81"),  # not Windows-1252: Latin-1 reads every byte
    ],
)
def test_decoding_what_subtitles_come_in(data: bytes, text: str) -> None:
    assert decode_subtitle(data, "x.srt", "srt") == text


def test_decoding_refuses_bitmaps_binaries_and_wrong_encodings() -> None:
    with pytest.raises(EngineError, match="VobSub") as vobsub:
        decode_subtitle(b"\x00\x00\x01\xba\x44" + bytes(100), "dvd.sub", "sub")
    assert vobsub.value.code == "INVALID_INPUT_FILE"
    with pytest.raises(EngineError, match="binary"):
        decode_subtitle(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "x.srt", "srt")
    with pytest.raises(EngineError, match="not valid utf-8"):
        decode_subtitle(b"caf\xe9", "x.srt", "srt", "utf-8")
    with pytest.raises(EngineError, match="no known encoding") as unknown:
        decode_subtitle(b"x", "x.srt", "srt", "klingon-8")
    assert unknown.value.code == "INVALID_OPTION"
    with pytest.raises(EngineError, match="document type"):
        refuse_xml_declarations('<!DOCTYPE tt [<!ENTITY x SYSTEM "file:///etc/passwd">]><tt/>', "x.ttml")


def test_subrip_tags_become_ass_markup_and_come_back() -> None:
    ass = html_to_ass('<b>bold</b> <i>it</i> <font color="#FF8000">orange</font> {brace}\nnext', False)
    assert ass == "{\\b1}bold{\\b0} {\\i1}it{\\i0} {\\c&H0080FF&}orange{\\c} (brace)\\Nnext"
    assert (
        to_srt_text(ass, Look()) == '<b>bold</b> <i>it</i> <font color="#ff8000">orange</font> (brace)\nnext'
    )
    assert to_vtt_text(ass + " & <x>", Look()) == "<b>bold</b> <i>it</i> orange (brace)\nnext &amp; &lt;x&gt;"


def test_a_bold_coloured_style_marks_the_whole_cue() -> None:
    assert (
        to_srt_text("LOUD{\\r}", Look(bold=True, color="#ffff00"))
        == '<font color="#ffff00"><b>LOUD</b></font>'
    )
    assert to_srt_text("a\\N\\Nb", Look()) == "a\nb"  # no blank line inside a cue


def test_webvtt_identifiers_notes_and_styles_stay_out_of_the_text() -> None:
    subs = read_vtt(
        "WEBVTT\n\nSTYLE\n::cue { color: red }\n\nNOTE a note\n\nintro\n00:01.500 --> 00:02.000 line:0\n"
        "<v Ann>Hi &amp; bye</v>\n\nNOTE between\n\n01:00:00.001 --> 01:00:01.000\n<c.big>Two</c>\n"
    )
    assert [(e.start, e.end, e.text) for e in subs] == [(1500, 2000, "Hi & bye"), (3600001, 3601000, "Two")]
    assert write_vtt(subs).startswith("WEBVTT\n\n00:00:01.500 --> 00:00:02.000\nHi &amp; bye\n")


def test_subrip_with_a_blank_line_inside_a_cue_and_loose_times() -> None:
    subs = read_srt(
        "1\n0:00:01,5 --> 0:00:02,250\nfirst\n\nstill first\n\n2\n00:00:03.000 --> 00:00:04.000\nsecond\n"
    )
    assert [(e.start, e.end, e.text) for e in subs] == [
        (1500, 2250, "first\\N\\Nstill first"),
        (3000, 4000, "second"),
    ]


def test_lrc_repeated_stamps_offsets_and_ends() -> None:
    subs = read_lrc(
        "[ar:Someone]\n[offset:+500]\n[00:10.00][00:30.00]Chorus\n[00:12.50]\n[00:20.00]Verse <00:21.00>two\n"
    )
    assert [(e.start, e.end, e.text) for e in subs] == [
        (9500, 12000, "Chorus"), (19500, 29500, "Verse two"), (29500, 34500, "Chorus"),
    ]  # fmt: skip
    assert (
        write_lrc(subs) == "[00:09.50]Chorus\n[00:12.00]\n[00:19.50]Verse two\n[00:29.50]Chorus\n[00:34.50]\n"
    )


def test_webvtt_colour_classes_are_read_and_written() -> None:
    subs = read_vtt("WEBVTT\n\n00:01.000 --> 00:02.000\n<c.yellow.loud>Hey</c> <c.big>you</c>\n")
    assert subs[0].text == "{\\c&H00FFFF&}Hey{\\c} you"
    assert write_vtt(subs).endswith("<c.yellow>Hey</c> you\n")


def test_ttml_times_in_frames_ticks_and_offsets_and_its_styles() -> None:
    subs = read_ttml(
        '<tt xmlns="http://www.w3.org/ns/ttml" xmlns:tts="http://www.w3.org/ns/ttml#styling" '
        'xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:frameRate="25" ttp:tickRate="10000000">'
        '<head><styling><style xml:id="s1" tts:color="yellow" tts:fontStyle="italic"/></styling></head>'
        '<body begin="1s"><div begin="500ms"><p begin="00:00:01:05" dur="20f" style="s1">Hi '
        '<span tts:fontWeight="bold">you</span><br/>  there </p>'
        '<p begin="40000000t" end="50000000t">Ticks</p></div></body></tt>'
    )
    assert [(e.start, e.end, e.text) for e in subs] == [
        (2700, 3500, "{\\i1\\c&H00FFFF&}Hi {\\b1}you{\\b0}\\Nthere"), (5500, 6500, "Ticks"),
    ]  # fmt: skip
    assert (
        '<p begin="00:00:02.700" end="00:00:03.500"><span tts:fontStyle="italic" tts:color="#ffff00">Hi '
        in (write_ttml(subs))
    )


def test_sami_cues_last_until_the_next_sync_in_the_first_language() -> None:
    subs = read_sami(
        "<SAMI><HEAD><STYLE><!-- .ENCC {lang: en} --></STYLE></HEAD><BODY>\n<SYNC Start=100><P Class=ENCC>Hi "
        "<b>there</b><br>you<P Class=FRCC>Salut\n<SYNC Start=900><P Class=ENCC>&nbsp;<P Class=FRCC>&nbsp;\n"
        "<SYNC Start=1500><P Class=ENCC>Caf&eacute;\n</BODY></SAMI>"
    )
    assert [(e.start, e.end, e.text) for e in subs] == [
        (100, 900, "Hi {\\b1}there{\\b0}\\Nyou"),
        (1500, 6500, "Café"),
    ]


def _probe(*codecs: tuple[str, str | None]) -> str:
    streams = [{"codec_name": codec, "tags": {"language": lang} if lang else {}} for codec, lang in codecs]
    return json.dumps({"streams": streams})


def test_which_streams_become_text() -> None:
    streams = subtitle_streams(
        _probe(("hdmv_pgs_subtitle", "eng"), ("subrip", "fra"), ("ass", None)), "f.mkv"
    )
    assert [(s.position, s.language) for s in chosen_streams(streams, None, "f.mkv")] == [
        (1, "fra"),
        (2, None),
    ]
    assert [s.codec for s in chosen_streams(streams, 2, "f.mkv")] == ["ass"]
    with pytest.raises(EngineError, match="pictures") as bitmap:
        chosen_streams(streams, 0, "f.mkv")
    assert bitmap.value.code == "BITMAP_SUBTITLE"
    with pytest.raises(EngineError, match="has 3 subtitle streams"):
        chosen_streams(streams, 3, "f.mkv")
    with pytest.raises(EngineError, match="has no subtitle stream") as none:
        chosen_streams(subtitle_streams(_probe(), "g.mp4"), None, "g.mp4")
    assert none.value.code == "NO_SUBTITLE_STREAM"
