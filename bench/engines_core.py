"""Time the core engines (pillow, pypdf, archive) on typical inputs and print a table.

Run: .venv/bin/python bench/engines_core.py  (under a minute; inputs are generated in a temp dir).
Each case runs in a fresh process, so "peak RSS" is that process's high-water mark (imports included)
and covers what Pillow, zlib and liblzma allocate outside Python's heap.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from PIL import Image

REPEAT = 3


def _photo(path: Path, size: tuple[int, int]) -> Path:
    image = Image.effect_mandelbrot(size, (-2.0, -1.5, 1.0, 1.5), 60).convert("RGB")
    image.save(path, quality=90)
    return path


def _pdf(path: Path, pages: int) -> Path:
    page = Image.effect_mandelbrot((595, 842), (-2.0, -1.5, 1.0, 1.5), 40).convert("RGB")
    page.save(path, "PDF", save_all=True, append_images=[page] * (pages - 1))
    return path


def _run_case(
    engine_name: str, task: tuple[str, str, str], files: list[Path], options: dict[str, Any]
) -> tuple[float, float]:
    from mcv_pipelines.service.engines import available_engines
    from mcv_pipelines.service.engines.base import EngineRequest, InputFile

    engine = next(e for e in available_engines() if e.name == engine_name)
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(REPEAT):
            out = Path(tmp) / str(run)
            out.mkdir()
            inputs = [InputFile("in", path) for path in files]
            request = EngineRequest(*task, options, inputs, out, out)
            started = time.perf_counter()
            engine.run(request)
            times.append(time.perf_counter() - started)
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return statistics.median(times), peak_kib / 1024


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        photo = [_photo(root / "photo.jpg", (4000, 3000))]
        pdf = [_pdf(root / "doc.pdf", 50)]
        small = [_photo(root / f"small-{n}.jpg", (640, 480)) for n in range(100)]
        cases: list[tuple[str, str, tuple[str, str, str], list[Path], dict[str, Any]]] = [
            ("12 MP jpg -> webp 1600w", "pillow", ("convert", "jpg", "webp"), photo, {"width": 1600}),
            ("12 MP jpg -> png (full size)", "pillow", ("convert", "jpg", "png"), photo, {}),
            ("12 MP jpg thumbnail 256", "pillow", ("thumbnail", "jpg", "jpg"), photo, {}),
            ("12 MP jpg text watermark", "pillow", ("watermark", "jpg", "jpg"), photo, {"text": "(c)"}),
            ("100 x 0.3 MP jpg -> pdf merge", "pypdf", ("merge", "jpg", "pdf"), small, {}),
            ("50-page pdf text watermark", "pypdf", ("watermark", "pdf", "pdf"), pdf, {"text": "DRAFT"}),
            ("50-page pdf optimize web", "pypdf", ("optimize", "pdf", "pdf"), pdf, {}),
            ("100 jpg -> zip", "archive", ("archive", "any", "zip"), small, {}),
            ("100 jpg -> 7z", "archive", ("archive", "any", "7z"), small, {}),
        ]
        print(f"{'case':32} {'median s':>9} {'peak RSS MiB':>13}")
        for name, engine, task, files, options in cases:
            with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
                seconds, peak = pool.submit(_run_case, engine, task, files, options).result()
            print(f"{name:32} {seconds:9.3f} {peak:13.1f}")


if __name__ == "__main__":
    main()
