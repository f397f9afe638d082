"""Seeds of the audio formats issue 47 added, each made by a program other than ffmpeg: sox (AMR-NB,
AIFF-C, 8SVX, AVR, HCOM, NIST SPHERE, PVF, Psion WVE), mpcenc (Musepack), and written by hand
(tests/av_samples.py: tracker modules, DSF and DSDIFF)."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from av_samples import (
    composer_669_module,
    dff,
    dsf,
    it_module,
    mod_module,
    mtm_module,
    s3m_module,
    stm_module,
    xm_module,
)

__all__ = ["av_seeds"]

# format -> (sox file type, sample rate, channels)
_SOX = {
    "amr": ("amr-nb", 8000, 1),
    "aifc": ("aifc", 44100, 2),
    "8svx": ("8svx", 44100, 2),
    "avr": ("avr", 44100, 2),
    "hcom": ("hcom", 22050, 1),
    "sph": ("sph", 16000, 1),
    "pvf": ("pvf", 22050, 1),
    "wve": ("wve", 8000, 1),
}
_HAND: dict[str, Callable[[], bytes]] = {
    "mod": mod_module, "xm": xm_module, "s3m": s3m_module, "it": it_module, "stm": stm_module,
    "mtm": mtm_module, "669": composer_669_module, "dsf": dsf, "dff": dff,
}  # fmt: skip


def _sox(path: Path, kind: str, rate: int, channels: int) -> None:
    """A second of two tones (440 and 660 Hz) in ``kind``, written by sox."""
    tones = ["sine", "440"] if channels == 1 else ["sine", "440", "sine", "660"]
    argv = ["sox", "-n", "-r", str(rate), "-c", str(channels), "-b", "16", "-t", kind, str(path)]
    subprocess.run([*argv, "synth", "1", *tones], check=True, capture_output=True)


def _mpc(path: Path) -> None:
    pcm = path.with_suffix(".pcm.wav")
    _sox(pcm, "wavpcm", 44100, 2)
    subprocess.run(
        ["mpcenc", "--silent", "--overwrite", str(pcm), str(path)], check=True, capture_output=True
    )


def av_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """Write the seed of every format in ``wanted`` this module makes; format -> path."""
    made: dict[str, Path] = {}
    for fmt in sorted(wanted & {*_SOX, *_HAND, "mpc"}):
        path = directory / f"sample.{fmt}"
        if fmt in _HAND:
            path.write_bytes(_HAND[fmt]())
        elif fmt == "mpc":
            _mpc(path)
        else:
            _sox(path, *_SOX[fmt])
        made[fmt] = path
    return made
