"""The pairs the LibreOffice engine lists, converted for real and their outputs checked: every pair
among the core formats, and every format issue 23's breadth work added, read once and written once
(bench/formats.py proves the whole matrix by hand: run here, its ~1,300 pairs would double CI's time).
A pair that fails here or there must leave office/formats.py."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import Engine, EngineRequest, InputFile
from mcv_pipelines.service.engines.office.formats import MODULES
from mcv_pipelines.service.engines.office.libreoffice import LibreOfficeEngine
from office_samples import DERIVED, MACRO_VARIANTS, check_output, macro_variant, write_sample

RequireEngine = Callable[..., Engine]
PAIRS = sorted({
    (source, target) for module in MODULES for source in module.readers for target in module.targets(source)
})  # fmt: skip
CORE = {
    "doc", "docx", "odt", "fodt", "rtf", "txt", "html", "pdf", "epub", "xls", "xlsx", "ods", "fods", "csv",
    "tsv", "ppt", "pptx", "odp", "fodp", "png", "jpg", "odg", "fodg", "emf", "wmf", "svg",
}  # fmt: skip
# each module's own format: what every added output is written from, and every added input read into
_NATIVE = {"writer": "odt", "calc": "ods", "impress": "odp", "draw": "odg"}
RUN = sorted(
    {(s, t) for s, t in PAIRS if s in CORE and t in CORE}
    | {(s, _NATIVE[m.name]) for m in MODULES for s in m.readers if s not in CORE}
    | {(_NATIVE[m.name], t) for m in MODULES for t in m.targets(_NATIVE[m.name]) if t not in CORE}
)


@pytest.fixture(scope="module")
def engine() -> Iterator[LibreOfficeEngine]:
    office = LibreOfficeEngine()
    yield office
    office.close()


def convert(engine: LibreOfficeEngine, source: Path, target: str, out: Path) -> list[Path]:
    request = EngineRequest(
        operation="convert",
        input_format=source.suffix[1:],
        output_format=target,
        options={},
        inputs=[InputFile("upload", source)],
        output_dir=out,
        work_dir=out / "work",
        timeout=120,
    )
    return engine.run(request).files


@pytest.fixture(scope="module")
def samples(engine: LibreOfficeEngine, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One sample per input format: written by hand, or converted from the hand-written one."""
    made: dict[str, Path] = {}
    if engine.version() is None:
        return made  # each test skips (or fails in CI) through require_engine
    root = tmp_path_factory.mktemp("office-samples")
    formats = {source for source, _ in PAIRS}
    for fmt in sorted(formats - set(DERIVED) - set(MACRO_VARIANTS)):
        path = write_sample(root, fmt)
        assert path is not None, fmt
        made[fmt] = path
    for fmt in sorted(formats & set(DERIVED)):
        (made[fmt],) = convert(engine, made[DERIVED[fmt]], fmt, root / fmt)
    for fmt in sorted(formats & set(MACRO_VARIANTS)):
        made[fmt] = macro_variant(made[MACRO_VARIANTS[fmt][0]], fmt)
    return made


def test_the_listing_is_the_proven_matrix(require_engine: RequireEngine, engine: LibreOfficeEngine) -> None:
    require_engine("libreoffice", "convert", "odp", "png")  # Writer, Calc, Impress and Draw all here
    listed = {(t.input_format, t.output_format) for t in engine.conversion_types()}
    assert listed == set(PAIRS)
    for route in ("docx:html", "docx:txt", "docx:odt", "odt:docx", "pdf:docx", "xlsx:csv", "csv:xlsx",
                  "xlsx:ods", "pptx:png"):  # fmt: skip
        assert tuple(route.split(":")) in listed


@pytest.mark.parametrize(("source", "target"), RUN, ids=[f"{s}-{t}" for s, t in RUN])
def test_pair_converts(
    source: str,
    target: str,
    require_engine: RequireEngine,
    engine: LibreOfficeEngine,
    samples: dict[str, Path],
    tmp_path: Path,
) -> None:
    require_engine("libreoffice", "convert", source, target)
    files = convert(engine, samples[source], target, tmp_path / "out")
    assert files
    for path in files:
        assert path.suffix == f".{target}"
        assert check_output(path, target) is None, (path.name, check_output(path, target))
