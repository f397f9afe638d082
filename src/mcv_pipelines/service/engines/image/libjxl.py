"""JPEG XL in and out with libjxl's djxl and cjxl."""

from __future__ import annotations

from pathlib import Path

from mcv_pipelines.service.engines.image.codec_engine import CodecEngine

__all__ = ["LibjxlEngine"]


class LibjxlEngine(CodecEngine):
    name = "libjxl"
    programs = ("cjxl",)
    version_pattern = r"cjxl v(\d[\w.]*)"
    decodes = ("jxl",)
    encodes = ("jxl",)
    decoder_program = "djxl"
    info_program = "jxlinfo"

    def decode_argv(self, source: Path, png: Path) -> list[str]:
        assert self.decoder is not None
        return [self.decoder, str(source), str(png)]

    def encode_argv(self, png: Path, target: Path, quality: int | None) -> list[str]:
        assert self.program is not None
        return [self.program, "--quality", str(quality or 90), str(png), str(target)]
