"""The containers and codecs the ffmpeg engine offers, and what the installed ffmpeg can write.

A format is listed only when the installed ffmpeg has its muxer and its default encoders; codec
choices (``video_codec``, ``audio_codec``) are offered only for encoders that are present, so the
listing says what this machine's ffmpeg can do.
"""

from __future__ import annotations

from mcv_pipelines.service.engines.av.capabilities import FfmpegCapabilities, probe_capabilities
from mcv_pipelines.service.engines.av.media import AUDIO_CODECS, VIDEO_CODECS, MediaFormat
from mcv_pipelines.service.engines.av.niche_formats import (
    NICHE_FORMATS,
    NICHE_INPUTS,
    NICHE_SILENT_INPUTS,
)

__all__ = [
    "AUDIO_CODECS",
    "FORMATS",
    "INPUT_FORMATS",
    "NO_AAC_INPUTS",
    "SILENT_INPUTS",
    "THUMBNAIL_FORMATS",
    "UNPROVEN",
    "VIDEO_CODECS",
    "FfmpegCapabilities",
    "MediaFormat",
    "probe_capabilities",
]


_MP4_AUDIO = ("aac", "mp3", "opus", "flac")
FORMATS: dict[str, MediaFormat] = {
    f.extension: f
    for f in (
        MediaFormat("mp4", "mp4", True, "aac", _MP4_AUDIO, "libx264", ("x264", "x265", "av1")),
        MediaFormat("webm", "webm", True, "libopus", ("opus", "vorbis"), "libvpx-vp9", ("vp9", "vp8", "av1")),
        MediaFormat(
            "mkv",
            "matroska",
            True,
            "aac",
            ("aac", "mp3", "opus", "vorbis", "flac", "pcm"),
            "libx264",
            ("x264", "x265", "vp8", "vp9", "av1"),
        ),
        MediaFormat("mov", "mov", True, "aac", ("aac", "mp3", "pcm"), "libx264", ("x264", "x265")),
        MediaFormat("mp3", "mp3", False, "libmp3lame", ("mp3",)),
        MediaFormat("aac", "adts", False, "aac", ("aac",)),
        MediaFormat("m4a", "ipod", False, "aac", ("aac",)),
        MediaFormat("ogg", "ogg", False, "libvorbis", ("vorbis", "opus", "flac")),
        MediaFormat("opus", "opus", False, "libopus", ("opus",)),
        MediaFormat("flac", "flac", False, "flac", ("flac",)),
        MediaFormat("wav", "wav", False, "pcm_s16le", ("pcm",)),
        # issue 23: the containers people still exchange, each with encoders Debian's ffmpeg has
        MediaFormat("avi", "avi", True, "libmp3lame", ("mp3", "pcm"), "mpeg4", ("mpeg4", "x264")),
        MediaFormat("wmv", "asf", True, "wmav2", ("wma",), "wmv2", ("wmv2",)),
        MediaFormat("flv", "flv", True, "aac", ("aac", "mp3"), "libx264", ("x264", "flv1")),
        MediaFormat("3gp", "3gp", True, "aac", ("aac",), "libx264", ("x264",)),
        MediaFormat("mpeg", "mpeg", True, "mp2", ("mp2", "mp3"), "mpeg1video", ("mpeg1", "mpeg2")),
        MediaFormat("ts", "mpegts", True, "aac", ("aac", "mp3", "mp2"), "libx264", ("x264", "x265", "mpeg2")),
        MediaFormat("ogv", "ogg", True, "libvorbis", ("vorbis", "opus"), "libtheora", ("theora",)),
        MediaFormat("m4b", "ipod", False, "aac", ("aac",)),
        MediaFormat("aiff", "aiff", False, "pcm_s16be", ("pcm_be",)),
        MediaFormat("wma", "asf", False, "wmav2", ("wma",)),
        MediaFormat("3g2", "3g2", True, "aac", ("aac",), "libx264", ("x264",)),
        MediaFormat("f4v", "f4v", True, "aac", ("aac",), "libx264", ("x264",)),
        MediaFormat("asf", "asf", True, "wmav2", ("wma",), "wmv2", ("wmv2",)),
        MediaFormat("nut", "nut", True, "libmp3lame", ("mp3", "pcm"), "mpeg4", ("mpeg4", "x264")),
        MediaFormat("vob", "vob", True, "mp2", ("mp2", "ac3"), "mpeg2video", ("mpeg2",)),
        MediaFormat("m2ts", "mpegts", True, "aac", ("aac", "ac3"), "libx264", ("x264",)),
        MediaFormat("mka", "matroska", False, "libvorbis", ("vorbis", "opus", "flac", "aac")),
        MediaFormat("oga", "oga", False, "libvorbis", ("vorbis", "flac")),
        MediaFormat("spx", "ogg", False, "libspeex", ("speex",)),
        MediaFormat("ac3", "ac3", False, "ac3", ("ac3",)),
        MediaFormat("au", "au", False, "pcm_s16be", ("pcm_be",)),
        MediaFormat("caf", "caf", False, "alac", ("alac", "pcm")),
        MediaFormat("w64", "w64", False, "pcm_s16le", ("pcm",)),
        MediaFormat("mp2", "mp2", False, "mp2", ("mp2",)),
        MediaFormat("wv", "wv", False, "wavpack", ("wavpack",)),
        MediaFormat("tta", "tta", False, "tta", ("tta",)),
        # issue 23, breadth: broadcast and legacy containers, raw elementary streams and the audio
        # formats of telephony, Bluetooth, games and old workstations, as this ffmpeg writes them.
        # Not raw A-law/mu-law (.al, .ul): without a header ffmpeg reads them back at 44.1 kHz, so an
        # 8 kHz telephone recording would play five times too fast.
        MediaFormat("mpg", "mpeg", True, "mp2", ("mp2", "mp3"), "mpeg1video", ("mpeg1", "mpeg2")),
        MediaFormat("qt", "mov", True, "aac", ("aac", "mp3", "pcm"), "libx264", ("x264", "x265")),
        MediaFormat("ismv", "ismv", True, "aac", ("aac",), "libx264", ("x264",)),
        MediaFormat("mxf", "mxf", True, "pcm_s16le", ("pcm",), "mpeg2video", ("mpeg2",), ("-ar", "48000")),
        MediaFormat(
            "dv",
            "dv",
            True,
            "pcm_s16le",
            ("pcm",),
            "dvvideo",
            ("dv",),
            # DV holds PAL frames with their sound interleaved: sound that starts late (WMA's priming) is
            # padded with silence, else the muxer stops at the first frame
            ("-s", "720x576", "-r", "25", "-ar", "48000", "-ac", "2", "-af", "aresample=async=1:first_pts=0"),
        ),
        MediaFormat(
            "gxf",
            "gxf",
            True,
            "pcm_s16le",
            ("pcm",),
            "mpeg2video",
            ("mpeg2",),
            ("-s", "720x576", "-ar", "48000", "-ac", "1"),
        ),
        MediaFormat("wtv", "wtv", True, "mp2", ("mp2",), "mpeg2video", ("mpeg2",)),
        MediaFormat("rm", "rm", True, "real_144", ("ra144",), "rv20", ("rv20",), ("-ar", "8000", "-ac", "1")),
        MediaFormat("swf", "swf", True, "libmp3lame", ("mp3",), "flv", ("flv1",), ("-ar", "44100")),
        MediaFormat("smjpeg", "smjpeg", True, "pcm_s16le", ("pcm",), "mjpeg", ("mjpeg",)),
        MediaFormat("mjpeg", "mjpeg", True, None, (), "mjpeg", ("mjpeg",)),
        MediaFormat("y4m", "yuv4mpegpipe", True, None, (), "wrapped_avframe", ("raw",)),
        MediaFormat("ivf", "ivf", True, None, (), "libvpx-vp9", ("vp9", "vp8", "av1")),
        MediaFormat("m1v", "mpeg1video", True, None, (), "mpeg1video", ("mpeg1",)),
        MediaFormat("m2v", "mpeg2video", True, None, (), "mpeg2video", ("mpeg2",)),
        MediaFormat("h264", "h264", True, None, (), "libx264", ("x264",)),
        MediaFormat("hevc", "hevc", True, None, (), "libx265", ("x265",)),
        MediaFormat("m4r", "ipod", False, "aac", ("aac",)),
        MediaFormat("weba", "webm", False, "libopus", ("opus", "vorbis")),
        MediaFormat("aif", "aiff", False, "pcm_s16be", ("pcm_be",)),
        MediaFormat("eac3", "eac3", False, "eac3", ("eac3",)),
        MediaFormat("dts", "dts", False, "dca", ("dts",), arguments=("-strict", "-2", "-ar", "48000")),
        MediaFormat(
            "thd", "truehd", False, "truehd", ("truehd",), arguments=("-strict", "-2", "-ar", "48000")
        ),
        MediaFormat("mlp", "mlp", False, "mlp", ("mlp",), arguments=("-strict", "-2", "-ar", "48000")),
        MediaFormat("ra", "rm", False, "real_144", ("ra144",), arguments=("-ar", "8000", "-ac", "1")),
        MediaFormat("voc", "voc", False, "pcm_u8", ("pcm_u8",)),
        MediaFormat("ircam", "ircam", False, "pcm_s16le", ("pcm",)),
        MediaFormat("sox", "sox", False, "pcm_s32le", ("pcm_s32",)),
        MediaFormat("rso", "rso", False, "pcm_u8", ("pcm_u8",), arguments=("-ac", "1")),
        MediaFormat("ast", "ast", False, "pcm_s16be_planar", ("pcm_be_planar",)),
        # SMAF in stereo is experimental in ffmpeg: mono
        MediaFormat("mmf", "mmf", False, "adpcm_yamaha", ("yamaha",), arguments=("-ar", "44100", "-ac", "1")),
        MediaFormat("adx", "adx", False, "adpcm_adx", ("adx",)),
        MediaFormat("aud", "wsaud", False, "adpcm_ima_ws", ("ima_ws",)),
        MediaFormat("aptx", "aptx", False, "aptx", ("aptx",), arguments=("-ar", "48000", "-ac", "2")),
        MediaFormat("sbc", "sbc", False, "sbc", ("sbc",), arguments=("-ar", "48000")),
        MediaFormat("g722", "g722", False, "g722", ("g722",), arguments=("-ar", "16000", "-ac", "1")),
        MediaFormat("gsm", "gsm", False, "libgsm", ("gsm",), arguments=("-ar", "8000", "-ac", "1")),
        MediaFormat(
            "c2",
            "codec2",
            False,
            "libcodec2",
            ("codec2",),
            arguments=("-ar", "8000", "-ac", "1", "-mode", "3200"),
        ),
        # animations: video without sound
        MediaFormat("gif", "gif", True, None, (), "gif", ("gif",)),
        MediaFormat("apng", "apng", True, None, (), "apng", ("apng",)),
        MediaFormat("webp", "webp", True, None, (), "libwebp_anim", ("webp",)),
    )
} | NICHE_FORMATS

# Input format -> (demuxer, has video). Read-only formats are listed as sources only.
INPUT_FORMATS: dict[str, tuple[str, bool]] = {
    "mp4": ("mov", True),
    "m4v": ("mov", True),
    "mov": ("mov", True),
    "3gp": ("mov", True),
    "webm": ("matroska", True),
    "mkv": ("matroska", True),
    "avi": ("avi", True),
    "flv": ("flv", True),
    "mpeg": ("mpeg", True),
    "ts": ("mpegts", True),
    "wmv": ("asf", True),
    "mp3": ("mp3", False),
    "aac": ("aac", False),
    "m4a": ("mov", False),
    "ogg": ("ogg", False),
    "opus": ("ogg", False),
    "flac": ("flac", False),
    "wav": ("wav", False),
    "wma": ("asf", False),
    "aiff": ("aiff", False),
    "ogv": ("ogg", True),
    "m4b": ("mov", False),
    "gif": ("gif", True),
    "apng": ("apng", True),
    "3g2": ("mov", True),
    "f4v": ("mov", True),
    "asf": ("asf", True),
    "nut": ("nut", True),
    "vob": ("mpeg", True),
    "m2ts": ("mpegts", True),
    "mts": ("mpegts", True),
    "mka": ("matroska", False),
    "oga": ("ogg", False),
    "spx": ("ogg", False),
    "ac3": ("ac3", False),
    "au": ("au", False),
    "caf": ("caf", False),
    "w64": ("w64", False),
    "mp2": ("mp3", False),
    "wv": ("wv", False),
    "tta": ("tta", False),
    "mpg": ("mpeg", True),
    "qt": ("mov", True),
    "ismv": ("mov", True),
    "mxf": ("mxf", True),
    "dv": ("dv", True),
    "gxf": ("gxf", True),
    "wtv": ("wtv", True),
    "rm": ("rm", True),
    "swf": ("swf", True),
    "smjpeg": ("smjpeg", True),
    "mjpeg": ("mjpeg", True),
    "y4m": ("yuv4mpegpipe", True),
    "ivf": ("ivf", True),
    "m1v": ("mpegvideo", True),
    "m2v": ("mpegvideo", True),
    "h264": ("h264", True),
    "hevc": ("hevc", True),
    "m4r": ("mov", False),
    "weba": ("matroska", False),
    "aif": ("aiff", False),
    "eac3": ("eac3", False),
    "dts": ("dts", False),
    "thd": ("truehd", False),
    "mlp": ("mlp", False),
    "ra": ("rm", False),
    "voc": ("voc", False),
    "ircam": ("ircam", False),
    "sox": ("sox", False),
    "rso": ("rso", False),
    "ast": ("ast", False),
    "mmf": ("mmf", False),
    "adx": ("adx", False),
    "aud": ("wsaud", False),
    "aptx": ("aptx", False),
    "sbc": ("sbc", False),
    "g722": ("g722", False),
    "gsm": ("gsm", False),
    "c2": ("codec2", False),
} | NICHE_INPUTS

# Inputs without sound: no audio-only output is made of them.
SILENT_INPUTS = (
    frozenset({"gif", "apng", "mjpeg", "y4m", "ivf", "m1v", "m2v", "h264", "hevc"}) | NICHE_SILENT_INPUTS
)
# Inputs whose decoder gives no channel layout, which this ffmpeg's aac encoder refuses ("Unsupported
# channel layout"): bench/formats.py found spx, tta, aptx, sbc and msbc -> aac, m4a, m4b (m4r, isma, latm)
# failing, so they are not listed.
NO_AAC_INPUTS = frozenset({"spx", "tta", "aptx", "sbc", "msbc"})
# Pairs bench/formats.py found failing otherwise: ffmpeg 5.1 never ends writing ALAC in CAF from an ADX
# made of an AAC track; its own decoders stumble at the end of what its encoders made of these inputs
# (MLP's FIR order out of a DFPWM, an aptX sync error out of a Musepack, "nothing consumed" in APM).
UNPROVEN = frozenset({("adx", "caf"), ("dfpwm", "mlp"), ("mpc", "aptx"), ("aptx", "apm"), ("thd", "apm")})

# Thumbnail output format -> image encoder.
THUMBNAIL_FORMATS: dict[str, str] = {"png": "png", "jpg": "mjpeg", "webp": "libwebp"}
