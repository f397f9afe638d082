"""HEIC/HEIF images (iPhone photos) in and out with libheif's heif-convert and heif-enc (x265)."""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.engines.image.codec_engine import CodecEngine

__all__ = ["LibheifEngine"]


class LibheifEngine(CodecEngine):
    name = "libheif"
    programs = ("heif-enc",)
    version_args = ("--help",)
    version_pattern = r"libheif version: (\d[\w.]*)"
    decodes = ("heic", "heif")
    encodes = ("heic", "heif")
    decoder_program = "heif-convert"
    info_program = "heif-info"

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.decoder is not None
        return [self.decoder, str(source), str(png)]

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        assert self.program is not None
        # heif-enc picks HEIC or AVIF by the output's suffix: name the file it writes .heic
        return [self.program, "--quality", str(quality or 75), "--output", str(target), str(png)]
