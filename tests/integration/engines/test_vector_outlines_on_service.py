"""Issue 47's vector formats through the service: svgz beside every svg, Potrace's dxf, geojson and fig,
pstoedit's dxf, plt (HPGL), fig, emf and pic from PostScript and PDF, fig2dev reading XFig drawings and
hp2xx reading HPGL plots."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from xml.etree import ElementTree

import ezdxf
import httpx
from engine_job_helpers import ASSETS, b64_import, download_all, run_job, task_named
from PIL import Image, ImageDraw

from mcv_pipelines.service.engines.base import Engine
from xps_sample import xps_document

RequireEngine = Callable[..., Engine]

SVG = "{http://www.w3.org/2000/svg}"
EPS = """%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 200 100
0 0 1 setrgbcolor 4 setlinewidth newpath 10 10 moveto 190 90 lineto stroke
/Helvetica findfont 24 scalefont setfont 20 50 moveto (Wombat) show
showpage
"""
TWO_PAGES = """%!PS-Adobe-3.0
%%Pages: 2
%%Page: 1 1
newpath 100 100 moveto 200 100 lineto stroke showpage
%%Page: 2 2
newpath 100 100 moveto 300 400 lineto 500 100 lineto closepath fill showpage
"""
FIG = """#FIG 3.2
Landscape
Center
Inches
Letter
100.00
Single
-2
1200 2
2 2 0 1 0 1 50 -1 20 0.000 0 0 -1 0 0 5
\t 0 0 2400 0 2400 1200 0 1200 0 0
4 0 0 40 -1 16 18 0.0000 4 240 900 300 700 Numbat\\001
"""


def _convert(source: str, target: str, **options: object) -> dict[str, object]:
    return {"operation": "convert", "input": source, "output_format": target, **options}


def _shapes(tmp_path: Path) -> Path:
    """A black box and a black disc on white: two shapes to trace."""
    image = Image.new("L", (160, 80), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((10, 10, 60, 60), fill=0)
    draw.ellipse((90, 10, 150, 70), fill=0)
    path = tmp_path / "shapes.png"
    image.save(path)
    return path


def test_potrace_traces_to_svgz_dxf_geojson_and_fig(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("potrace", "convert", "png", "dxf")
    targets = ("svgz", "dxf", "geojson", "fig")
    job = run_job(
        client,
        {
            "png": b64_import(_shapes(tmp_path)),
            **{target: _convert("png", target) for target in targets},
            "export": {"operation": "export/url", "input": list(targets)},
        },
    )
    assert {task_named(job, target)["engine"] for target in targets} == {"potrace"}
    files = download_all(job, tmp_path / "out")
    packed = files["shapes.svgz"].read_bytes()
    assert packed[4:8] == b"\0\0\0\0"  # gzip's mtime 0: the same drawing, the same bytes
    root = ElementTree.fromstring(gzip.decompress(packed))  # noqa: S314 - potrace's own SVG
    assert root.tag == f"{SVG}svg"
    assert len(list(root.iter(f"{SVG}path"))) >= 1
    polygons = [f["geometry"] for f in json.loads(files["shapes.geojson"].read_text())["features"]]
    assert len(polygons) == 2
    assert {g["type"] for g in polygons} == {"Polygon"}
    modelspace = ezdxf.readfile(str(files["shapes.dxf"])).modelspace()
    assert len(modelspace) == 2  # one outline per shape
    assert files["shapes.fig"].read_text().startswith("#FIG 3.2")


def test_pstoedit_draws_postscript_for_cutters_plotters_and_xfig(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pstoedit", "convert", "eps", "dxf")
    (tmp_path / "sign.eps").write_text(EPS)
    targets = ("dxf", "plt", "fig", "emf", "pic")
    job = run_job(
        client,
        {
            "eps": b64_import(tmp_path / "sign.eps"),
            **{target: _convert("eps", target) for target in targets},
            "export": {"operation": "export/url", "input": list(targets)},
        },
    )
    files = download_all(job, tmp_path / "out")
    entities = list(ezdxf.readfile(str(files["sign.dxf"])).modelspace())
    assert len(entities) > 10  # the line and the word's letters as outlines (a cutter has no fonts)
    hpgl = files["sign.plt"].read_text()
    assert hpgl.startswith("IN;")
    assert hpgl.count("PD") > 10
    assert "Wombat" in files["sign.fig"].read_text()  # text stays text to edit in XFig
    emf = files["sign.emf"].read_bytes()
    assert emf[40:44] == b" EMF"
    pic = files["sign.pic"].read_text()
    assert ".PS" in pic
    assert "Wombat" in pic  # troff sets the text in its own fonts


def _filled_polylines(fig: str) -> int:
    """Polylines with a fill (area_fill, the 9th field, not -1) in a .fig drawing."""
    objects = [line.split() for line in fig.splitlines() if line.startswith("2 ")]
    return sum(1 for words in objects if len(words) > 8 and words[8] != "-1")


def test_pstoedit_takes_the_page_asked_of_a_pdf_or_postscript(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pstoedit", "convert", "pdf", "dxf")
    (tmp_path / "two.ps").write_text(TWO_PAGES)
    job = run_job(
        client,
        {
            "ps": b64_import(tmp_path / "two.ps"),
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "second": _convert("ps", "fig", page=2, filename="second.fig"),
            "first": _convert("ps", "fig", filename="first.fig"),
            "pdfdxf": _convert("pdf", "dxf", page=2),
            "export": {"operation": "export/url", "input": ["second", "first", "pdfdxf"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    # page 1 is a stroked line, page 2 a filled triangle
    assert _filled_polylines(files["first.fig"].read_text()) == 0
    assert _filled_polylines(files["second.fig"].read_text()) == 1
    assert len(ezdxf.readfile(str(files["pages.dxf"])).modelspace()) > 20  # page 2's text as outlines
    past = run_job(client, {"pdf": b64_import(ASSETS / "pages.pdf"), "past": _convert("pdf", "plt", page=9)})
    failed = task_named(past, "past")
    assert failed["status"] == "error", failed
    assert failed["code"] == "INVALID_OPTION", failed


def test_fig2dev_renders_an_xfig_drawing(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fig2dev", "convert", "fig", "png")
    (tmp_path / "plan.fig").write_text(FIG)
    (tmp_path / "notfig.fig").write_text("2 2 0 1 0 4 50\n")
    job = run_job(
        client,
        {
            "fig": b64_import(tmp_path / "plan.fig"),
            "png": _convert("fig", "png"),
            "svgz": _convert("fig", "svgz"),
            "pdf": _convert("fig", "pdf"),
            "export": {"operation": "export/url", "input": ["png", "svgz", "pdf"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    with Image.open(files["plan.png"]) as png:
        rgb = png.convert("RGB")
        middle = rgb.getpixel((png.width // 2, png.height // 4))
        assert middle[2] > 200
        assert middle[0] < 60
    svg = gzip.decompress(files["plan.svgz"].read_bytes()).decode()
    assert "Numbat" in svg
    assert files["plan.pdf"].read_bytes().startswith(b"%PDF")
    bad = run_job(client, {"bad": b64_import(tmp_path / "notfig.fig"), "svg": _convert("bad", "svg")})
    broken = task_named(bad, "svg")
    assert broken["code"] == "INVALID_INPUT_FILE", broken
    assert "XFig" in broken["message"]


def test_svgz_beside_svg_from_pdf_and_xps(
    require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pdftocairo", "convert", "pdf", "svgz")
    require_engine("mupdf", "convert", "xps", "svgz")
    (tmp_path / "book.xps").write_bytes(xps_document(["Bilby notes", "Second page"], "xps"))
    job = run_job(
        client,
        {
            "pdf": b64_import(ASSETS / "pages.pdf"),
            "xps": b64_import(tmp_path / "book.xps"),
            "page2": _convert("pdf", "svgz", page=2),
            "pages": _convert("xps", "svgz"),
            "export": {"operation": "export/url", "input": ["page2", "pages"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    assert sorted(files) == ["book-1.svgz", "book-2.svgz", "pages.svgz"]  # a file per XPS page, in order
    for path in files.values():
        root = ElementTree.fromstring(gzip.decompress(path.read_bytes()))  # noqa: S314 - the engines' SVG
        assert root.tag == f"{SVG}svg"
    first, second = (gzip.decompress(files[f"book-{n}.svgz"].read_bytes()) for n in (1, 2))
    assert first != second  # each page its own drawing


PLOT = "IN;SP1;PU400,400;PD2400,400,2400,2400,400,2400,400,400;PU;SP0;\n"


def test_hp2xx_draws_a_plot_file(require_engine: RequireEngine, client: httpx.Client, tmp_path: Path) -> None:
    require_engine("hp2xx", "convert", "plt", "png")
    (tmp_path / "square.plt").write_text(PLOT)
    (tmp_path / "notes.plt").write_text("just some words, no plotter in sight\n")
    job = run_job(
        client,
        {
            "plt": b64_import(tmp_path / "square.plt"),
            "png": _convert("plt", "png", pixel_density=100),
            "svgz": _convert("plt", "svgz"),
            "export": {"operation": "export/url", "input": ["png", "svgz"]},
        },
    )
    files = download_all(job, tmp_path / "out")
    with Image.open(files["square.png"]) as png:
        grey = png.convert("L")
        # the square's outline, drawn by pen 1, and nothing inside it
        assert grey.getpixel((grey.width // 2, grey.height // 2)) > 200
        assert min(grey.getpixel((x, grey.height // 2)) for x in range(grey.width // 4)) < 100
    root = ElementTree.fromstring(gzip.decompress(files["square.svgz"].read_bytes()))  # noqa: S314 - potrace's SVG
    assert root.tag == f"{SVG}svg"
    assert any(node.tag.removeprefix(SVG) in ("path", "polyline", "line") for node in root.iter())
    bad = run_job(client, {"txt": b64_import(tmp_path / "notes.plt"), "svg": _convert("txt", "svg")})
    failed = task_named(bad, "svg")
    assert failed["code"] == "INVALID_INPUT_FILE", failed
    assert "HPGL" in failed["message"]
