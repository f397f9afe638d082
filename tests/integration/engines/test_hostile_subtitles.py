"""Hostile subtitles read nothing outside their task (issue 47), under bubblewrap and under Landlock.

Each names the secrets planted outside the task (planted_secrets.py) the ways its format names another
file: ASS [Fonts]/[Graphics] and font names, WebVTT style sheets and pictures, TTML (and iTT) external
entities and pictures, SAMI style sheet links, USF pictures and entities, JACOsub's #INCLUDE, and
playlists or concat lists (ffconcat, HLS) passed off as subtitles or videos. Each converts without
them or fails, and says none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the fixtures and helpers of the hostile suite
    Outcome,
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]
__all__ = ["sealing", "secrets"]  # fixtures this module uses, imported from the hostile suite

_CUE = "00:00:01.000 --> 00:00:02.000\nQuokka\n"


def _texts(secrets: Planted) -> list[str]:
    return [str(path) for path in secrets.text.values()] + ["/etc/passwd"]


def _text_sources(secrets: Planted) -> dict[str, str]:
    paths = _texts(secrets)
    fonts = "".join(f"fontname: {Path(p).name}\n{p}\n" for p in paths)
    graphics = "".join(f"filename: {p}\n" for p in paths)
    style = "20,&H00FFFFFF,&H000000FF,&H0,&H0,0,0,0,0,100,100,0,0,1,2,2,2,10,10,10,1"
    styles = "".join(f"Style: S{i},{p},{style}\n" for i, p in enumerate(paths))
    ass = (
        "[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, "
        "SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, "
        "Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding\n"
        f"{styles}\n[Fonts]\n{fonts}\n[Graphics]\n{graphics}\n"
        "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
        + "".join(
            f"Dialogue: 0,0:00:01.00,0:00:02.00,S0,,0,0,0,,{{\\fn{p}}}Quokka {{\\img({p})}}\n" for p in paths
        )
    )
    vtt = (
        "WEBVTT\n\nSTYLE\n"
        + "".join(f"@import url(file://{p});\n::cue {{ background-image: url({p}) }}\n" for p in paths)
        + "\n"
        + "".join(f'{_CUE}<img src="file://{p}"><c.{Path(p).name}>seen</c>\n\n' for p in paths)
    )
    ttml_pictures = "".join(f'<image src="file://{p}"/><p begin="1s" end="2s" '
                            f'smpte:backgroundImage="{p}">Quokka</p>' for p in paths)  # fmt: skip
    ttml = (
        '<?xml version="1.0"?><tt xmlns="http://www.w3.org/ns/ttml" '
        'xmlns:smpte="http://www.smpte-ra.org/schemas/2052-1/2010/smpte-tt"><body><div>'
        f"{ttml_pictures}</div></body></tt>"
    )
    entities = "".join(f'<!ENTITY e{i} SYSTEM "file://{p}">' for i, p in enumerate(paths))
    refs = "".join(f"&e{i};" for i in range(len(paths)))
    ttml_entities = (
        f'<?xml version="1.0"?><!DOCTYPE tt [{entities}]><tt xmlns="http://www.w3.org/ns/ttml"><body><div>'
        f'<p begin="1s" end="2s">Quokka {refs}</p></div></body></tt>'
    )
    usf_cue = '<subtitle start="1.0" stop="2.0"><text>Quokka {}</text></subtitle>'
    usf = (
        '<?xml version="1.0"?><USFSubtitles version="1.0"><subtitles>'
        + "".join(usf_cue.format(f'<image src="{p}"/><font face="{p}">seen</font>') for p in paths)
        + "</subtitles></USFSubtitles>"
    )
    usf_entities = (
        f'<?xml version="1.0"?><!DOCTYPE USFSubtitles [{entities}]><USFSubtitles><subtitles>'
        + usf_cue.format(refs) + "</subtitles></USFSubtitles>"
    )  # fmt: skip
    sami = (
        "<SAMI><HEAD>" + "".join(f'<LINK rel="stylesheet" href="{p}">' for p in paths)
        + "</HEAD><BODY><SYNC Start=1000><P>Quokka " + "".join(f'<img src="{p}">' for p in paths)
        + "<SYNC Start=2000><P>&nbsp;</BODY></SAMI>"
    )  # fmt: skip
    return {"fonts.ass": ass, "styles.vtt": vtt, "pictures.ttml": ttml, "entities.ttml": ttml_entities,
            "links.smi": sami, "entities.itt": ttml_entities, "pictures.itt": ttml,
            "entities.usf": usf_entities, "pictures.usf": usf}  # fmt: skip


def test_text_subtitles_read_no_font_picture_or_entity_from_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pysubs2", "convert", "ass", "srt")
    outcomes: dict[str, Outcome] = {}
    for name, source in _text_sources(secrets).items():
        for target in ("srt", "ssa"):
            task = {"operation": "convert", "output_format": target}
            outcomes[f"{name}->{target}"] = convert(
                client, tmp_path / name / target, name, source.encode(), task
            )
    assert_nothing_out(outcomes, secrets)
    failed = {case: o.message for case, o in outcomes.items() if o.status != "finished"}
    assert set(failed) == {
        f"entities.{ext}->{target}" for ext in ("ttml", "itt", "usf") for target in ("srt", "ssa")
    }, failed
    assert all("INVALID_INPUT_FILE" in message and "entities" in message for message in failed.values())


def _ffmpeg_sources(secrets: Planted) -> dict[str, str]:
    paths = _texts(secrets)
    concat = "ffconcat version 1.0\n" + "".join(f"file '{p}'\n" for p in paths)
    playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:10\n" + "".join(
        f"#EXTINF:1,\nfile://{p}\n{p}\n" for p in paths
    )
    include = (
        "#TIMERES 100\n" + "".join(f"#INCLUDE {p}\n" for p in paths) + "0:00:01.00 0:00:02.00 D Quokka\n"
    )
    return {
        "include.jss": include, "concat.jss": concat, "concat.rt": concat, "playlist.aqt": playlist,
        "concat.mkv": concat, "playlist.mp4": playlist, "playlist.webm": playlist, "concat.mov": concat,
    }  # fmt: skip


def test_ffmpeg_reads_no_include_playlist_or_concat_list_from_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ffmpeg-subtitles", "convert", "jss", "srt")
    outcomes = {
        name: convert(client, tmp_path / name, name, source.encode(),
                      {"operation": "convert", "output_format": "srt"})
        for name, source in _ffmpeg_sources(secrets).items()
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert outcomes["include.jss"].status == "finished", outcomes["include.jss"].message
    assert b"Quokka" in outcomes["include.jss"].output
    for name in ("concat.mkv", "playlist.mp4", "playlist.webm", "concat.mov"):
        assert outcomes[name].status == "error", name  # read as the video it claims to be: it is none
