"""Seeds of issue 47's second image wave (fli, flc, spi, rle, wpg): written by hand in
tests/imgx_samples.py (bench/formats.py puts tests/ on the path), shared with the tests."""

from __future__ import annotations

from imgx_samples import imgx_seeds

__all__ = ["imgx_seeds"]
