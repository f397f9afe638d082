"""Subtitles through the service: text formats to each other with their timing, styling, lines and
accents, a video's subtitle streams out, and the errors a user meets (no subtitles, pictures, VobSub)."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from engine_job_helpers import b64_import, download_all, run_job, task_named
from subtitle_samples import ASS, SCC, SRT, pgs_video, subtitled_video

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]


def _convert(target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": "in", "output_format": target, **options}


def _run(client: httpx.Client, source: Path, tasks: dict[str, Any]) -> dict[str, Any]:
    return run_job(
        client,
        {"in": b64_import(source), **tasks, "export": {"operation": "export/url", "input": list(tasks)}},
    )


def _failure(job: dict[str, Any], name: str = "out") -> tuple[str, str]:
    task = task_named(job, name)
    assert task["status"] == "error", task
    return task["code"], task["message"]


def test_srt_to_every_format_keeps_times_styles_lines_and_accents(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "srt", "vtt")
    (tmp_path / "film.srt").write_text(SRT, encoding="utf-8")
    targets = ("vtt", "ass", "ttml", "sbv", "sub", "lrc", "smi")
    job = _run(client, tmp_path / "film.srt", {t: _convert(t, fps=25) for t in targets})
    assert task_named(job, "vtt")["engine"] == "pysubs2"
    out = {name.rsplit(".", 1)[1]: path.read_bytes().decode("utf-8") for name, path in
           download_all(job, tmp_path / "out").items()}  # fmt: skip
    assert "00:00:01.234 --> 00:00:03.456\nHello <b>Quokka</b>\nsecond line é ü\n" in out["vtt"]
    assert "01:02:03.004 --> 01:02:05.678\n<i>second</i> <c.red>red</c> cue" in out["vtt"]  # a default class
    assert "0:00:01.23,0:00:03.46,Default,,0,0,0,,Hello {\\b1}Quokka{\\b0}\\Nsecond line é ü" in out["ass"]
    assert "{\\c&H0000FF&}red{\\c}" in out["ass"]  # SubRip's <font color="#ff0000">, in ASS's BGR
    assert 'begin="01:02:03.004" end="01:02:05.678"' in out["ttml"]
    assert '<span tts:color="#ff0000">red</span> cue' in out["ttml"]
    assert 'tts:fontWeight="bold">Quokka</span>' in out["ttml"]
    assert "second line é ü" in out["ttml"]
    assert out["sbv"].startswith("0:00:01.234,0:00:03.456\nHello Quokka\nsecond line é ü\n")
    assert out["sub"].startswith("{1}{1}25\n{31}{86}Hello Quokka|second line é ü\n")  # 1.234 s = frame 31
    assert (
        "<SYNC Start=1234><P Class=SUBS>Hello <b>Quokka</b><br>second line é ü\n<SYNC Start=3456>"
        in out["smi"]
    )
    assert out["lrc"].startswith("[00:01.23]Hello Quokka / second line é ü\n[00:03.46]\n[62:03.00]")


def test_ass_styles_come_out_in_subrip_and_back(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "ass", "srt")
    (tmp_path / "styled.ass").write_text(ASS, encoding="utf-8")
    job = _run(client, tmp_path / "styled.ass", {"srt": _convert("srt"), "ssa": _convert("ssa")})
    files = download_all(job, tmp_path / "out")
    srt = files["styled.srt"].read_text(encoding="utf-8")
    assert (
        '00:00:01,230 --> 00:00:03,460\nPlain <i>Quokka</i>\nand <font color="#00ff00">green</font>\n' in srt
    )
    assert '<font color="#ffff00"><b>LOUD</b></font>' in srt  # the Shout style: bold and yellow
    ssa = files["styled.ssa"].read_text(encoding="utf-8")
    assert "Style: Shout,Arial,24," in ssa
    assert "Dialogue: Marked=0,0:00:01.23,0:00:03.46,Default" in ssa


def test_latin1_subrip_is_read_and_written_as_utf8(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "srt", "vtt")
    (tmp_path / "old.srt").write_bytes(
        "1\r\n00:00:01,000 --> 00:00:02,000\r\nCafé Quokka – ½\r\n".encode("cp1252")
    )
    (tmp_path / "bad.srt").write_bytes(b"1\n00:00:01,000 --> 00:00:02,000\n\xff\xfe broken\n")
    job = _run(client, tmp_path / "old.srt", {"vtt": _convert("vtt")})
    vtt = download_all(job, tmp_path / "out")["old.vtt"].read_text(encoding="utf-8")
    assert "Café Quokka – ½" in vtt
    bad = run_job(client, {"in": b64_import(tmp_path / "bad.srt"), "out": _convert("vtt", encoding="utf-8")})
    code, message = _failure(bad)
    assert code == "INVALID_INPUT_FILE"
    assert "not valid utf-8" in message


def test_microdvd_takes_its_frame_rate_from_the_option_or_the_file(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "sub", "srt")
    (tmp_path / "frames.sub").write_text("{25}{50}Quokka at frame 25\n", encoding="utf-8")
    (tmp_path / "declared.sub").write_text("{1}{1}50\n{25}{50}Quokka at frame 25\n", encoding="utf-8")
    job = _run(client, tmp_path / "frames.sub", {"default": _convert("srt"), "pal": _convert("srt", fps=25)})
    files = [path.read_text() for path in download_all(job, tmp_path / "out").values()]
    assert any("00:00:01,043 --> 00:00:02,085" in text for text in files)  # 23.976 fps
    assert any("00:00:01,000 --> 00:00:02,000" in text for text in files)  # 25 fps
    declared = _run(client, tmp_path / "declared.sub", {"srt": _convert("srt")})
    assert (
        "00:00:00,500 --> 00:00:01,000" in download_all(declared, tmp_path / "d")["declared.srt"].read_text()
    )


def test_vobsub_and_empty_inputs_fail_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "sub", "srt")
    (tmp_path / "dvd.sub").write_bytes(
        b"\x00\x00\x01\xba\x44\x00\x04\x00\x04\x01\x01\x89\xc3\xf8" + bytes(2034)
    )
    (tmp_path / "notes.srt").write_text("just some notes, no times\n")
    code, message = _failure(
        run_job(client, {"in": b64_import(tmp_path / "dvd.sub"), "out": _convert("srt")})
    )
    assert code == "INVALID_INPUT_FILE"
    assert "VobSub" in message
    assert "MicroDVD" in message
    code, message = _failure(
        run_job(client, {"in": b64_import(tmp_path / "notes.srt"), "out": _convert("vtt")})
    )
    assert code == "INVALID_INPUT_FILE"
    assert "no cue" in message


def _srt_cues(text: str) -> list[tuple[str, str]]:
    """(start, text) of each SubRip cue, read here (not by the engine)."""
    found = re.findall(r"(\d\d:\d\d:\d\d,\d{3}) --> [^\n]+\n((?:[^\n]+\n?)+)", text)
    return [(start, body.strip()) for start, body in found]


def test_video_subtitle_streams_come_out_one_or_all(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    engine = require_engine("ffmpeg-subtitles", "convert", "mkv", "srt")
    ffmpeg = str(getattr(engine, "program", "ffmpeg"))
    (tmp_path / "cues.srt").write_text(SRT, encoding="utf-8")
    video = subtitled_video(ffmpeg, tmp_path / "film.mkv", tmp_path / "cues.srt")
    tasks = {
        "all": _convert("srt"),
        "fra": _convert("vtt", subtitle_stream=1),
        "lrc": _convert("lrc", subtitle_stream=0),
    }
    job = _run(client, video, tasks)
    assert task_named(job, "all")["engine"] == "ffmpeg-subtitles"
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["film.0.eng.srt", "film.1.fra.srt", "film.lrc", "film.vtt"]
    assert (
        files["film.lrc"].read_text(encoding="utf-8").startswith("[00:01.23]Hello Quokka / second line é ü\n")
    )
    cues = _srt_cues(files["film.0.eng.srt"].read_text(encoding="utf-8"))
    assert cues == [("00:00:01,234", "Hello <b>Quokka</b>\nsecond line é ü"),
                    ("01:02:03,004", '<i>second</i> <font color="#ff0000">red</font> cue')]  # fmt: skip
    assert "00:01.234 --> 00:03.456\nHello <b>Quokka</b>" in files["film.vtt"].read_text(encoding="utf-8")
    beyond = run_job(client, {"in": b64_import(video), "out": _convert("srt", subtitle_stream=2)})
    code, message = _failure(beyond)
    assert code == "INVALID_OPTION"
    assert "2 subtitle streams" in message


def test_videos_without_text_subtitles_fail_clearly(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    engine = require_engine("ffmpeg-subtitles", "convert", "mkv", "srt")
    ffmpeg = str(getattr(engine, "program", "ffmpeg"))
    plain = tmp_path / "plain.mp4"
    subprocess.run([ffmpeg, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
                    "-i", "testsrc=size=64x48:rate=10:duration=1", "-c:v", "mpeg4", str(plain)],
                   check=True)  # fmt: skip
    code, message = _failure(run_job(client, {"in": b64_import(plain), "out": _convert("srt")}))
    assert (code, message) == ("NO_SUBTITLE_STREAM", "plain.mp4 has no subtitle stream")
    pictures = pgs_video(ffmpeg, tmp_path / "bluray.mkv")
    code, message = _failure(run_job(client, {"in": b64_import(pictures), "out": _convert("vtt")}))
    assert code == "BITMAP_SUBTITLE"
    assert "hdmv_pgs_subtitle" in message
    assert "pictures" in message


def test_a_format_only_ffmpeg_reads(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ffmpeg-subtitles", "convert", "jss", "srt")
    (tmp_path / "old.jss").write_text("#TIMERES 100\n\n0:00:01.23 0:00:03.45 D Quokka é\n", encoding="utf-8")
    (tmp_path / "captions.scc").write_text(SCC, encoding="ascii")
    captions = _run(client, tmp_path / "captions.scc", {"vtt": _convert("vtt")})
    vtt = download_all(captions, tmp_path / "cc")["captions.vtt"].read_text(encoding="utf-8")
    assert vtt == "WEBVTT\n\n00:00:02.000 --> 00:00:04.000\nHi Quokka\n"
    job = _run(client, tmp_path / "old.jss", {"srt": _convert("srt")})
    assert _srt_cues(download_all(job, tmp_path / "out")["old.srt"].read_text(encoding="utf-8")) == [
        ("00:00:01,230", "Quokka é")
    ]


def test_old_formats_and_broadcast_captions_are_written_and_read_back(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    """JACOsub, RealText, PJS, AQTitle and SCC come out of a SubRip file at their precision, and
    ffmpeg (another reader) reads the SCC back with its words and times."""
    require_engine("pysubs2", "convert", "srt", "scc")
    require_engine("ffmpeg-subtitles", "convert", "scc", "srt")
    (tmp_path / "film.srt").write_text(SRT, encoding="utf-8")
    targets = ("jss", "rt", "pjs", "aqt", "scc")
    job = _run(client, tmp_path / "film.srt", {t: _convert(t) for t in targets})
    files = download_all(job, tmp_path / "out")
    out = {name.rsplit(".", 1)[1]: path.read_text(encoding="utf-8") for name, path in files.items()}
    jss = "0:00:01.23 0:00:03.46 D Hello Quokka\\nsecond line é ü\n1:02:03.00 1:02:05.68 D second red cue"
    assert jss in out["jss"]
    assert (
        '<time begin="00:00:01.23" end="00:00:03.46"/><clear/>Hello Quokka<br/>second line é ü' in out["rt"]
    )
    assert out["pjs"] == '12,35,"Hello Quokka|second line é ü"\n37230,37257,"second red cue"\n'
    assert out["aqt"].startswith("-->> 31\nHello Quokka\nsecond line é ü\n-->> 86\n\n-->> 93075\n")
    lines = out["scc"].split("\n")
    assert lines[0] == "Scenarist_SCC V1.0"
    assert re.fullmatch(r"00:00:00;\d\d\t9420 9420 94ae 94ae .* 942f 942f", lines[2])  # loaded before 1.234 s
    assert lines[4].startswith("00:00:03;14\t942c 942c")  # erased at 3.456 s
    assert lines[6].startswith("01:02:0")  # drop-frame: the timecode keeps to the clock an hour on
    back = _run(client, files["film.scc"], {"srt": _convert("srt")})
    srt = download_all(back, tmp_path / "back")["film.srt"].read_text(encoding="utf-8")
    assert "Hello Quokka\nsecond line é" in srt  # ü is no 608 letter: u
    assert "second red cue" in srt


def test_itunes_timed_text_frames_are_read(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "itt", "srt")
    (tmp_path / "fcp.itt").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<tt xml:lang="en" xmlns="http://www.w3.org/ns/ttml" '
        'xmlns:ttp="http://www.w3.org/ns/ttml#parameter" ttp:timeBase="smpte" ttp:frameRate="25">'
        '<body><div><p begin="00:00:01:06" end="00:00:03:11">Hello Quokka<br/>ü</p></div></body></tt>\n',
        encoding="utf-8",
    )
    job = _run(client, tmp_path / "fcp.itt", {"srt": _convert("srt")})
    srt = download_all(job, tmp_path / "out")["fcp.srt"].read_text(encoding="utf-8")
    assert srt == "1\n00:00:01,240 --> 00:00:03,440\nHello Quokka\nü\n"


def test_universal_subtitle_format_words_and_times_are_read(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "usf", "vtt")
    (tmp_path / "old.usf").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<USFSubtitles version="1.0"><subtitles>'
        '<subtitle start="00:00:01.234" stop="00:00:03.456"><text>Hello <font italic="yes">Quokka</font>'
        '<br/>é</text></subtitle><subtitle start="62.5" duration="1.5"><text>two</text></subtitle>'
        "</subtitles></USFSubtitles>\n",
        encoding="utf-8",
    )
    job = _run(client, tmp_path / "old.usf", {"vtt": _convert("vtt")})
    vtt = download_all(job, tmp_path / "out")["old.vtt"].read_text(encoding="utf-8")
    assert vtt == (
        "WEBVTT\n\n00:00:01.234 --> 00:00:03.456\nHello Quokka\né\n\n00:01:02.500 --> 00:01:04.000\ntwo\n"
    )
