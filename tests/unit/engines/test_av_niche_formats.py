"""The formats issue 47 added to the ffmpeg engine: the table's own rules, the arguments DSD needs,
the listing built from them, and the hand-written samples' layouts."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from av_samples import dff, dsf, it_module, mod_module, s3m_module, xm_module
from mcv_pipelines.service.engines.av.ffmpeg import FfmpegEngine
from mcv_pipelines.service.engines.av.formats import FORMATS, INPUT_FORMATS, SILENT_INPUTS
from mcv_pipelines.service.engines.av.media import AUDIO_CODECS, VIDEO_CODECS, MediaFormat
from mcv_pipelines.service.engines.av.niche_formats import NICHE_FORMATS, NICHE_INPUTS, source_arguments
from mcv_pipelines.service.engines.base import Engine


@pytest.mark.parametrize("media", NICHE_FORMATS.values(), ids=list(NICHE_FORMATS))
def test_each_added_format_names_known_codecs_and_its_defaults(media: MediaFormat) -> None:
    fmt = FORMATS[media.extension]
    assert fmt is media
    assert all(name in AUDIO_CODECS for name in fmt.audio_codecs)
    assert all(name in VIDEO_CODECS for name in fmt.video_codecs)
    if fmt.audio_encoder is not None:
        assert fmt.audio_encoder in {AUDIO_CODECS[name] for name in fmt.audio_codecs}
    assert (fmt.video_encoder is not None) == fmt.video
    if fmt.video_encoder is not None:
        assert fmt.video_encoder in {VIDEO_CODECS[name] for name in fmt.video_codecs}


def test_added_inputs_are_read_and_the_silent_ones_are_video() -> None:
    assert set(NICHE_INPUTS) <= set(INPUT_FORMATS)
    assert {"mod", "xm", "s3m", "it", "stm", "mtm", "669", "dsf", "dff", "mpc", "amr", "aifc"} <= set(
        NICHE_INPUTS
    )
    assert all(INPUT_FORMATS[fmt][1] for fmt in SILENT_INPUTS)
    # an output written here is read back with the demuxer of the same family
    assert {ext for ext in NICHE_FORMATS if ext not in INPUT_FORMATS} == set()


@pytest.mark.parametrize(
    ("source", "target", "arguments"),
    [
        ("dsf", "flac", ("-ar", "88200")),
        ("dff", "wav", ("-ar", "88200")),
        ("dsf", "wma", ("-ar", "44100")),  # WMA goes no higher than 48 kHz
        ("dff", "mp3", ()),  # LAME picks a rate of its own
        ("dsf", "ogg", ("-ar", "88200")),
        ("mod", "flac", ()),
        ("mp4", "mp3", ()),
    ],
)
def test_dsd_is_brought_down_to_a_rate_encoders_take(
    source: str, target: str, arguments: tuple[str, ...]
) -> None:
    assert source_arguments(source, target) == arguments


def test_listing_keeps_sound_and_pictures_apart(require_engine: Callable[..., Engine]) -> None:
    require_engine("ffmpeg")
    pairs = {
        (c.input_format, c.output_format)
        for c in FfmpegEngine().conversion_types()
        if c.operation == "convert"
    }
    for module in ("mod", "xm", "s3m", "it", "dsf", "dff"):
        if any(source == module for source, _ in pairs):
            assert {(module, "flac"), (module, "mp3"), (module, "aifc")} <= pairs
            assert (module, "mp4") not in pairs  # sound alone makes no video
    if ("mp4", "m4v") in pairs:
        assert {("mp4", "mts"), ("mp4", "mk3d"), ("mkv", "ogx"), ("mp4", "aifc")} <= pairs
        assert ("h263", "mp3") not in pairs  # a raw video stream holds no sound
        assert ("h263", "amv") not in pairs  # nor can AMV do without it
        assert ("wav", "mk3d") not in pairs


def test_hand_written_samples_follow_their_layouts() -> None:
    mod = mod_module()
    assert mod[1080:1084] == b"M.K."
    assert len(mod) == 1084 + 1024 + 256
    assert xm_module().startswith(b"Extended Module: ")
    assert xm_module()[37] == 0x1A
    assert s3m_module()[44:48] == b"SCRM"
    assert it_module().startswith(b"IMPM")
    one = dsf(0.01)
    assert one.startswith(b"DSD ")
    assert struct.unpack_from("<Q", one, 12)[0] == len(one)
    two = dff(0.01)
    assert two.startswith(b"FRM8")
    assert struct.unpack_from(">Q", two, 4)[0] == len(two) - 12
    # the hostile variants claim more than they hold
    assert len(mod_module(huge=True)) < len(mod)
    assert struct.unpack_from("<I", it_module(huge=True), 0xC0 + 2 + 8 + 48)[0] > 1 << 30
