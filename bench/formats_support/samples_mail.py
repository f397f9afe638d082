"""Seeds of the mail formats, written by the tests' own samples (tests/mail_samples.py, on the path
bench/formats.py sets): eml by Python's email package, mbox by its mailbox module, emlx around an eml,
and Outlook msg as a compound file written by hand (tests/ole_writer.py), since nothing here writes msg.
"""

from __future__ import annotations

from pathlib import Path

from mail_samples import mbox_sample, sample_eml, sample_emlx, sample_msg

__all__ = ["mail_seeds"]

_MAKERS = {"eml": sample_eml, "msg": sample_msg, "mbox": mbox_sample, "emlx": sample_emlx}


def mail_seeds(directory: Path, wanted: set[str]) -> dict[str, Path]:
    """The seed of every mail format in ``wanted``; format -> path."""
    seeds: dict[str, Path] = {}
    for fmt, make in _MAKERS.items():
        if fmt in wanted:
            seeds[fmt] = directory / f"sample.{fmt}"
            seeds[fmt].write_bytes(make())
    return seeds
