"""librsvg, Ghostscript (PostScript), Potrace and pdftocairo through the service; hostile vectors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from hostile_origin import listening_origin
from PIL import Image
from pypdf import PdfReader

from mcv_pipelines.service.engines.base import Engine

RequireEngine = Callable[..., Engine]

BLUE = (0x1D, 0x4E, 0xD8)
RED = (255, 0, 0)


def _svg(extra: str = "") -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="120" height="80"><rect width="120" height="80" fill="#1d4ed8"/>'
        f'<circle cx="60" cy="40" r="20" fill="#fff"/>{extra}</svg>'
    )


EPS = """%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 100 50
0 0 1 setrgbcolor 0 0 100 50 rectfill
1 1 1 setrgbcolor /Helvetica findfont 20 scalefont setfont 10 18 moveto (Vector) show
showpage
"""


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def test_svg_to_png_and_pdf(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("librsvg", "convert", "svg", "png")
    (tmp_path / "badge.svg").write_text(_svg())
    job = run_job(
        client,
        {
            "svg": b64_import(tmp_path / "badge.svg"),
            "png": _convert("svg", "png", width=240),
            "pdf": _convert("svg", "pdf"),
            "export": {"operation": "export/url", "input": ["png", "pdf"]},
        },
    )
    assert task_named(job, "png")["engine"] == "librsvg"
    files = download_all(job, tmp_path / "out")
    with Image.open(files["badge.png"]) as png:
        assert png.size == (240, 160)
        rgb = png.convert("RGB")
        assert rgb.getpixel((5, 5)) == BLUE
        assert rgb.getpixel((120, 80)) == (255, 255, 255)
    assert len(PdfReader(files["badge.pdf"]).pages) == 1


def test_hostile_svg_loads_no_file_and_no_url(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("librsvg", "convert", "svg", "png")
    secret = tmp_path / "secret.png"
    Image.new("RGB", (120, 80), RED).save(secret)
    with listening_origin() as origin:
        hostile = _svg(
            f'<image href="file://{secret}" width="120" height="80"/>'
            f'<image xlink:href="{secret}" width="120" height="80"/>'
            f'<image href="{origin.url}/pixel.png" width="120" height="80"/>'
        )
        (tmp_path / "hostile.svg").write_text(hostile)
        job = run_job(
            client,
            {
                "svg": b64_import(tmp_path / "hostile.svg"),
                "png": _convert("svg", "png"),
                "export": {"operation": "export/url", "input": ["png"]},
            },
        )
        files = download_all(job, tmp_path / "out")
        assert origin.paths == []
    with Image.open(files["hostile.png"]) as png:
        colors = {color for _, color in png.convert("RGB").getcolors(1 << 16) or []}
    assert RED not in colors
    assert BLUE in colors


def test_eps_to_pdf_and_png(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("ghostscript-ps", "convert", "eps", "pdf")
    (tmp_path / "mark.eps").write_text(EPS)
    job = run_job(
        client,
        {
            "eps": b64_import(tmp_path / "mark.eps"),
            "pdf": _convert("eps", "pdf"),
            "png": _convert("eps", "png", pixel_density=144),
            "export": {"operation": "export/url", "input": ["pdf", "png"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert "Vector" in PdfReader(files["mark.pdf"]).pages[0].extract_text()
    with Image.open(files["mark.png"]) as png:
        assert png.size == (200, 100)  # the bounding box (100 x 50 pt) at 144 dpi
        assert png.convert("RGB").getpixel((2, 2)) == (0, 0, 255)


def test_postscript_cannot_read_files(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ghostscript-ps", "convert", "ps", "pdf")
    (tmp_path / "peek.ps").write_text(
        "%!PS\n/Helvetica findfont 12 scalefont setfont 20 700 moveto\n"
        "(/etc/hostname) (r) file 100 string readstring pop show showpage\n"
    )
    job = run_job(
        client,
        {
            "ps": b64_import(tmp_path / "peek.ps"),
            "pdf": _convert("ps", "pdf"),
            "export": {"operation": "export/url", "input": ["pdf"]},
        },
    )
    task = task_named(job, "pdf")
    assert task["status"] == "error"
    assert task["code"] == "CONVERSION_FAILED"
    assert "Permission denied" in task["message"]


def test_png_traced_to_svg(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("potrace", "convert", "png", "svg")
    shape = Image.new("RGB", (64, 64), "white")
    shape.paste((0, 0, 0), (16, 16, 48, 48))
    shape.save(tmp_path / "square.png")
    job = run_job(
        client,
        {
            "png": b64_import(tmp_path / "square.png"),
            "svg": _convert("png", "svg"),
            "export": {"operation": "export/url", "input": ["svg"]},
        },
    )
    assert task_named(job, "svg")["engine"] == "potrace"
    svg = download_all(job, tmp_path / "out")["square.svg"].read_text()
    assert "<svg" in svg
    assert "<path" in svg
    assert "<image" not in svg  # traced outlines, not a bitmap wrapped in SVG


def test_pdf_page_to_svg(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("pdftocairo", "convert", "pdf", "svg")
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "svg": _convert("pdf", "svg", page=2),
            "export": {"operation": "export/url", "input": ["svg"]},
        },
    )
    svg = download_all(job, tmp_path)["pages.svg"].read_text()
    assert svg.lstrip().startswith("<?xml")
    assert "<svg" in svg
