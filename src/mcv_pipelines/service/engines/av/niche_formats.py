"""The formats issue 47 added to the ffmpeg engine: tracker music (through libopenmpt), DSD, Musepack,
AMR and the old workstation and speech formats sox writes, and the containers and raw streams this
ffmpeg writes that a player reads back.

Each is listed only with a sample made on this machine by another program (sox, mpcenc, a module or
DSD file written by hand: tests/av_samples.py) or, for a format only ffmpeg writes, read back by a
second reader in bench/formats_support/check_av.py. Left out, with the reason:
- ape and tak: no encoder in Debian, and no sample in an installed package;
- AMR-WB (.awb) in: sox here writes AMR-NB only; amr, oma (ATRAC3) out: this ffmpeg has neither encoder;
- vag (kvag's extension, also Sony's unrelated PS-ADPCM), roq (power-of-two sizes only), dnxhd (fixed
  broadcast sizes and rates), h261 and aptx HD (ffmpeg reads its own output back with errors), vc2/dirac
  (over 2 MB for a second of a thumbnail-sized clip), raw PCM (.sw, .ub, ...: no header keeps the rate),
  a64 and vidc (no demuxer reads them back), the aliases m2t, m2a, mpa and psp;
- subtitle muxers (srt, ass, webvtt, ...): the subtitles family.
"""

from __future__ import annotations

from mcv_pipelines.service.engines.av.media import MediaFormat

__all__ = ["NEEDS_SOUND", "NICHE_FORMATS", "NICHE_INPUTS", "NICHE_SILENT_INPUTS", "source_arguments"]

NICHE_FORMATS: dict[str, MediaFormat] = {
    f.extension: f
    for f in (
        # the everyday names of containers already written under another extension
        MediaFormat("m4v", "ipod", True, "aac", ("aac",), "libx264", ("x264",)),
        MediaFormat("mts", "mpegts", True, "aac", ("aac", "ac3"), "libx264", ("x264",)),
        MediaFormat(
            "mk3d", "matroska", True, "aac", ("aac", "opus", "vorbis", "flac"), "libx264", ("x264", "x265")
        ),
        MediaFormat("ogx", "ogg", True, "libvorbis", ("vorbis", "opus"), "libtheora", ("theora",)),
        MediaFormat("isma", "ismv", False, "aac", ("aac",)),
        # AIFF-C: ffmpeg writes the compressed form for any codec but big-endian PCM ('sowt' by default)
        MediaFormat("aifc", "aiff", False, "pcm_s16le", ("pcm", "alaw", "ulaw", "pcm_f32be", "ima_qt")),
        # raw streams and the formats of old players, games, phones and ComputerCraft
        MediaFormat("h263", "h263", True, None, (), "h263", ("h263",), ("-s", "352x288")),
        MediaFormat("obu", "obu", True, None, (), "libaom-av1", ("av1",)),
        MediaFormat(
            "amv",
            "amv",
            True,
            "adpcm_ima_amv",
            ("ima_amv",),
            "amv",
            ("amv",),
            # the muxer takes a frame of sound per picture: 22.05 kHz at 25 frames is 882 samples
            (
                "-s",
                "128x96",
                "-r",
                "25",
                "-pix_fmt",
                "yuvj420p",
                "-ar",
                "22050",
                "-ac",
                "1",
                "-block_size",
                "882",
            ),
        ),
        # Cinepak at the Saturn's 320x240: its encoder took 35 s for a second of PAL-sized DV
        MediaFormat(
            "cpk",
            "film_cpk",
            True,
            "pcm_s16be_planar",
            ("pcm_be_planar",),
            "cinepak",
            ("cinepak",),
            ("-s", "320x240"),
        ),
        MediaFormat("dfpwm", "dfpwm", False, "dfpwm", ("dfpwm",), arguments=("-ar", "48000", "-ac", "1")),
        MediaFormat("apm", "apm", False, "adpcm_ima_apm", ("ima_apm",)),
        MediaFormat("tco", "g723_1", False, "g723_1", ("g723",), arguments=("-ar", "8000", "-ac", "1")),
        MediaFormat("latm", "latm", False, "aac", ("aac",)),
        MediaFormat(
            "msbc", "sbc", False, "sbc", ("sbc",), arguments=("-ar", "16000", "-ac", "1", "-msbc", "1")
        ),
    )
}

# Input format -> (demuxer, has video).
NICHE_INPUTS: dict[str, tuple[str, bool]] = {
    # tracker music, played by libopenmpt
    "mod": ("libopenmpt", False),
    "xm": ("libopenmpt", False),
    "s3m": ("libopenmpt", False),
    "it": ("libopenmpt", False),
    "stm": ("libopenmpt", False),
    "mtm": ("libopenmpt", False),
    "669": ("libopenmpt", False),
    # DSD: Sony's DSF and Philips' DSDIFF (ffmpeg's IFF demuxer)
    "dsf": ("dsf", False),
    "dff": ("iff", False),
    "mpc": ("mpc8", False),
    "amr": ("amr", False),
    "aifc": ("aiff", False),
    "8svx": ("iff", False),
    "avr": ("avr", False),
    "hcom": ("hcom", False),
    "sph": ("nistsphere", False),
    "pvf": ("pvf", False),
    "wve": ("wve", False),
    # what NICHE_FORMATS writes, read back
    "mk3d": ("matroska", True),
    "ogx": ("ogg", True),
    "isma": ("mov", False),
    "h263": ("h263", True),
    "obu": ("obu", True),
    "amv": ("avi", True),  # the avi demuxer reads AMV
    "cpk": ("film_cpk", True),
    "dfpwm": ("dfpwm", False),
    "apm": ("apm", False),
    "tco": ("g723_1", False),
    "latm": ("loas", False),
    "msbc": ("sbc", False),
    # Autodesk Animator's FLI and FLC animations (issue 47): as a gif is, into the video formats
    "fli": ("flic", True),
    "flc": ("flic", True),
}

NICHE_SILENT_INPUTS = frozenset({"h263", "obu", "fli", "flc"})

# DSD decodes to PCM at an eighth of its bit rate (352.8 kHz for DSD64), which most encoders and
# containers refuse. It becomes 88.2 kHz PCM, twice the audible band as hi-res players expect; CD's
# 44.1 kHz where the target goes no higher (WMA, RSO); and targets whose encoder lists the rates it takes
# (MP3, MP2, AC-3, E-AC-3, Opus, Speex) pick their own. A sample_rate option or a rate the target insists
# on comes later on the command line and wins.
_DSD = frozenset({"dsf", "dff"})
_CD_RATE = frozenset({"wma", "rso"})
_OWN_RATE = frozenset({"mp3", "mp2", "ac3", "eac3", "opus", "spx", "weba"})
# Containers that must hold sound beside the pictures: a silent input is not converted to them.
NEEDS_SOUND = frozenset({"amv"})


def source_arguments(source: str, target: str) -> tuple[str, ...]:
    """Output arguments an input format needs before the target's own (none for most)."""
    if source not in _DSD or target in _OWN_RATE:
        return ()
    return ("-ar", "44100" if target in _CD_RATE else "88200")
