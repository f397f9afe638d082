"""The committed default catalog (schemas/catalog/local.json): loadable, normalised, and advertising
at least what the always-present engines (Pillow, pypdf, archive) can do on any machine."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mcv_pipelines.catalog.model import ConversionKey
from mcv_pipelines.catalog.snapshot import default_catalog_path, dumps_catalog, load_catalog
from mcv_pipelines.service.engines import available_engines
from mcv_pipelines.service.engines.archive.archive import ArchiveEngine
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.pdf.pypdf_engine import PypdfEngine


def test_the_committed_snapshot_loads_and_is_normalised() -> None:
    path = default_catalog_path()
    text = path.read_text(encoding="utf-8")
    assert dumps_catalog(load_catalog(path)) == text  # byte for byte: a pull rewrites nothing


@pytest.mark.parametrize("engine", [PillowEngine(), PypdfEngine(), ArchiveEngine()], ids=lambda e: e.name)
def test_every_conversion_type_of_the_core_engines_is_in_the_snapshot(engine: Engine) -> None:
    catalog = load_catalog(default_catalog_path())
    for kind in engine.conversion_types():
        key = ConversionKey(kind.operation, kind.input_format, kind.output_format, kind.engine)
        desc = catalog.get(key)
        assert desc is not None, f"{key} is missing from the committed catalog; run mcv catalog pull --local"
        assert [o.name for o in desc.options or ()] == sorted(o.name for o in kind.options)


def test_the_snapshot_matches_what_every_engine_advertises(require_engine: Callable[..., object]) -> None:
    """Where every engine's program is installed (always in CI), the committed catalog must list exactly
    the conversion types and options the engines advertise, or validation drifts from what runs.
    Program versions are left out of the comparison: they differ from machine to machine."""
    for engine in ("ffmpeg", "imagemagick", "graphicsmagick", "ghostscript", "qpdf", "poppler", "chromium"):
        require_engine(engine)
    # issue 23's engines: their programs are installed by scripts/install-engines.sh as well
    for engine in ("pandoc", "librsvg", "ghostscript-ps", "potrace", "pdftocairo", "poppler-text", "libheif",
                   "libjxl", "calibre", "fonttools", "assimp"):  # fmt: skip
        require_engine(engine)
    for office in ("docx", "xlsx", "pptx"):  # LibreOffice with Writer, Calc and Impress
        require_engine("libreoffice", "convert", office, "pdf")
    committed = load_catalog(default_catalog_path())
    advertised = {
        ConversionKey(k.operation, k.input_format, k.output_format, k.engine): sorted(
            o.name for o in k.options
        )
        for engine in available_engines()
        for k in engine.conversion_types()
    }
    listed = {d.key: sorted(o.name for o in d.options or ()) for d in committed}
    missing = sorted(str(k) for k in advertised.keys() - listed.keys())
    stale = sorted(str(k) for k in listed.keys() - advertised.keys())
    assert not missing, f"run `mcv catalog pull --local`: missing {missing[:5]}"
    assert not stale, f"run `mcv catalog pull --local`: no longer advertised {stale[:5]}"
    changed = [str(k) for k, names in advertised.items() if listed[k] != names]
    assert not changed, f"options differ for {changed[:5]}; run `mcv catalog pull --local`"
