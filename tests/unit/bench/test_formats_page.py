"""docs/formats.md as bench/formats.py writes it: families, anchors, counts, and the proof read back."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import markdown

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from formats_support.page import render_page
from formats_support.proof import Listed, Outcome, counts, read_proof

PILLOW = ({"name": "width", "type": "integer", "default": None, "description": "Output width in pixels."},)
VIDEO = ({"name": "video_codec", "type": "enum", "default": None, "possible_values": ["x264", "vp9"]},)
AUDIO = ({"name": "audio_codec", "type": "enum", "default": None, "possible_values": ["aac"]},)
QUALITY = ({"name": "quality", "type": "integer", "default": None, "description": "1-100"},)
LISTING = {
    ("jpg", "png"): Listed("pillow", PILLOW),
    ("jpg", "webp"): Listed("pillow", PILLOW + QUALITY),
    ("jpeg", "png"): Listed("pillow", PILLOW),  # an alias: one format with jpg
    ("png", "jpeg"): Listed("pillow", PILLOW + QUALITY),
    ("png", "jpg"): Listed("pillow", PILLOW + QUALITY),
    ("gif", "png"): Listed("pillow", PILLOW),  # an image first, and a video to ffmpeg
    ("gif", "mp4"): Listed("ffmpeg", VIDEO),
    ("gif", "webm"): Listed("ffmpeg", VIDEO),
    ("mp4", "webm"): Listed("ffmpeg", VIDEO + AUDIO),
    ("mp4", "wav"): Listed("ffmpeg", AUDIO),
    ("wav", "mp4"): Listed("ffmpeg", AUDIO),
    ("ods", "xlsx"): Listed("libreoffice"),
    ("ods", "csv"): Listed("libreoffice"),
    ("docx", "odt"): Listed("libreoffice"),
    ("tar.gz", "zip"): Listed("archive"),
    ("pdf", "png"): Listed("poppler"),
    ("qqq", "png"): Listed("qqqengine"),  # no family knows it: Other
    ("options", "png"): Listed("pillow"),  # a format named like a heading of the page
}
FAILED = ("mp4", "wav")


def outcomes() -> list[Outcome]:
    rows = []
    for number, ((source, target), entry) in enumerate(sorted(LISTING.items())):
        error = "CONVERSION_FAILED: the muxer | said <no>" if (source, target) == FAILED else None
        rows.append(Outcome(source, target, entry.engine, 0.25 + number / 100, error))
    return rows


def page() -> str:
    return render_page(outcomes(), LISTING, "x86_64")


def section(text: str, heading: str) -> str:
    """The lines under ``heading`` up to the next heading of its level or above."""
    level = len(heading.split(" ")[0])
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    end = re.search(rf"^#{{1,{level}}} ", text[start:], re.MULTILINE)
    return "\n" + text[start : start + end.start() if end else len(text)]


def test_aliases_are_counted_once() -> None:
    c = counts(outcomes())
    # read: jpg=jpeg, png, gif, mp4, wav, ods, docx, tar.gz, pdf, qqq, options (mp4 -> wav failed: still read)
    assert (c.inputs, c.input_names) == (11, 12)
    # written (proven): png, webp, jpg=jpeg, mp4, webm, xlsx, csv, odt, zip
    assert (c.outputs, c.output_names) == (9, 10)
    assert (c.pairs, c.proven, c.failed) == (len(LISTING), len(LISTING) - 1, 1)
    text = page()
    assert "| read | 11 | 12 |" in text
    assert "jpeg = jpg" in text


def test_each_input_has_one_section_in_its_family() -> None:
    text = page()
    assert re.findall(r"^### (\S+)$", text, re.MULTILINE).count("gif") == 1
    images = section(text, "## Images")
    assert "\n### gif\n" in images
    assert "\n### jpg\n" in images
    video = section(text, "## Video")
    assert "\n### mp4\n" in video
    assert "Also converted by this family's engines: [gif](#gif)." in video  # its second family, linked
    assert "\n### wav\n" in section(text, "## Audio")  # ffmpeg offers no video codec for it
    assert "\n### ods\n" in section(text, "## Spreadsheets")  # LibreOffice's, and it writes xlsx
    assert "\n### docx\n" in section(text, "## Documents")
    assert "\n### qqq\n" in section(text, "## Other")
    assert "**pillow** [png](#png)" in section(text, "### gif")
    assert "**ffmpeg** [mp4](#mp4), webm" in section(text, "### gif")  # webm is no input: no link


def test_options_caveats_and_failures_of_an_input() -> None:
    text = page()
    jpg = section(text, "### jpg")
    assert "**pillow** `width`; `quality` (to webp)" in jpg
    assert "all 2 pairs, the slowest to webp" in jpg
    assert "one file per page" in section(text, "### pdf")
    mp4 = section(text, "### mp4")
    assert "1 of 2 pairs; FAILED to wav (ffmpeg): CONVERSION_FAILED: the muxer | said &lt;no&gt;" in mp4
    assert "| `video_codec` | enum | ffmpeg | one of: vp9, x264 |" in section(text, "## Options")


def test_anchors_are_the_ones_the_site_makes() -> None:
    text = page()
    html = markdown.markdown(text, extensions=["toc", "tables"])
    ids = set(re.findall(r'<h\d id="([^"]+)"', html))
    links = set(re.findall(r"\]\(#([^)]+)\)", text))
    assert links <= ids, links - ids
    assert {"targz", "jpg", "gif", "options", "options_1"} <= ids
    assert "[tar.gz](#targz)" in text
    assert "[options](#options)" in text  # the format came first; the Options section is options_1
    assert "[Options](#options_1)" in text


def test_update_reads_back_what_the_writer_wrote() -> None:
    rows = outcomes()
    back = read_proof(page())
    proven = {(o.source, o.target): o for o in rows if o.error is None}
    assert back.keys() == proven.keys()
    for pair, o in proven.items():
        assert (back[pair].engine, back[pair].seconds) == (o.engine, round(o.seconds, 2))
    # and the one table of the page before this layout
    old = "| input | output | engine | seconds | result |\n|---|---|---|---:|---|\n"
    old += "| 3ds | glb | assimp | 0.64 | ok |\n| 3ds | x | assimp | 0.10 | FAILED: no |\n"
    assert read_proof(old) == {("3ds", "glb"): Outcome("3ds", "glb", "assimp", 0.64, None)}


def test_the_committed_page_is_in_this_layout_and_short() -> None:
    text = (Path(__file__).resolve().parents[3] / "docs" / "formats.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 2500
    assert len(read_proof(text)) > 1000
    assert "\n| input | output | engine | seconds | result |\n" not in text
