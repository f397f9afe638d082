"""What an output container is (its muxer, default encoders and the codec names it accepts), and the
friendly codec names options take, each with the ffmpeg encoder it stands for."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["AUDIO_CODECS", "VIDEO_CODECS", "MediaFormat"]


@dataclass(frozen=True, slots=True)
class MediaFormat:
    """One output container: its muxer, default encoders and the codec names it accepts."""

    extension: str
    muxer: str
    video: bool
    audio_encoder: str | None  # None: the container holds no sound (gif, apng, webp)
    audio_codecs: tuple[str, ...]
    video_encoder: str | None = None
    video_codecs: tuple[str, ...] = ()
    # What the container or its codec insists on (a sample rate, DV's frame size and rate, an
    # encoder ffmpeg calls experimental); the options these fix are not offered (options.py).
    arguments: tuple[str, ...] = ()


# Friendly codec name (as options take it) -> ffmpeg encoder.
VIDEO_CODECS: dict[str, str] = {
    "x264": "libx264",
    "x265": "libx265",
    "vp8": "libvpx",
    "vp9": "libvpx-vp9",
    "av1": "libaom-av1",
    "mpeg4": "mpeg4",
    "wmv2": "wmv2",
    "flv1": "flv",
    "mpeg1": "mpeg1video",
    "mpeg2": "mpeg2video",
    "theora": "libtheora",
    "gif": "gif",
    "apng": "apng",
    "webp": "libwebp_anim",
    "dv": "dvvideo",
    "rv20": "rv20",
    "mjpeg": "mjpeg",
    "raw": "wrapped_avframe",
    # issue 47
    "h263": "h263",
    "amv": "amv",
    "cinepak": "cinepak",
}
AUDIO_CODECS: dict[str, str] = {
    "aac": "aac",
    "mp3": "libmp3lame",
    "opus": "libopus",
    "vorbis": "libvorbis",
    "flac": "flac",
    "pcm": "pcm_s16le",
    "pcm_be": "pcm_s16be",
    "mp2": "mp2",
    "wma": "wmav2",
    "ac3": "ac3",
    "alac": "alac",
    "wavpack": "wavpack",
    "tta": "tta",
    "speex": "libspeex",
    "eac3": "eac3",
    "dts": "dca",
    "truehd": "truehd",
    "mlp": "mlp",
    "pcm_u8": "pcm_u8",
    "pcm_s32": "pcm_s32le",
    "pcm_be_planar": "pcm_s16be_planar",
    "ra144": "real_144",
    "yamaha": "adpcm_yamaha",
    "adx": "adpcm_adx",
    "ima_ws": "adpcm_ima_ws",
    "aptx": "aptx",
    "sbc": "sbc",
    "g722": "g722",
    "gsm": "libgsm",
    "codec2": "libcodec2",
    # issue 47
    "alaw": "pcm_alaw",
    "ulaw": "pcm_mulaw",
    "pcm_f32be": "pcm_f32be",
    "ima_qt": "adpcm_ima_qt",
    "dfpwm": "dfpwm",
    "ima_apm": "adpcm_ima_apm",
    "ima_amv": "adpcm_ima_amv",
    "g723": "g723_1",
}
