"""Hostile files through routes, under bubblewrap and Landlock (the planted secrets of the hostile
suite): no hop of a route reads outside its task. A web page, a Markdown file and an XPS that show the
planted pictures by path and ``file:`` URI become TIFF pictures (lossless, so a secret's colour would
show exactly) through each route shape that makes pictures; a flat ODF presentation whose slide shows the
secret pictures, links the secret files and declares them external entities becomes text through its
pages (txt by Poppler's reader, md by the Markdown engine); an HLS or concat playlist naming media
outside, uploaded under a sound format's name, goes through the sound shape. Each converts without
the outside content or fails clearly, and neither its output nor its error holds a secret."""

from __future__ import annotations

import base64
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
from engine_job_helpers import run_job, task_named
from PIL import Image
from planted_secrets import Planted
from test_hostile_av import _playlists, outside_media
from test_hostile_files_see_only_their_task import (  # the planted secrets under both seals
    _entity_xml,
    _pandoc_sources,
    sealing,
    secrets,
)
from test_hostile_pages import _xps_reaching_out

from engine_needs import engine_program
from mcv_pipelines.service.engines.base import Engine

__all__ = ["outside_media", "sealing", "secrets"]  # fixtures of the hostile suites, used here by name

RequireEngine = Callable[..., Engine]


def _routed(client: httpx.Client, tmp_path: Path, name: str, data: bytes, target: str) -> dict[str, object]:
    """``data`` through a routed convert task; the task and the bytes of each file it made."""
    job = run_job(client, {
        "in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name},
        "out": {"operation": "convert", "input": "in", "output_format": target},
        "export": {"operation": "export/url", "input": "out"},
    })  # fmt: skip
    task = task_named(job, "out")
    files = []
    if task["status"] == "finished":
        for item in task_named(job, "export")["result"]["files"]:
            files.append(httpx.get(item["url"], timeout=60).content)
    return {"task": task, "files": files}


def _secret_colours(path: Path) -> set[tuple[int, int, int]]:
    """The planted pictures' colours a picture shows (they are (200, 0..20, 190) and (12, 200, 34))."""
    with Image.open(path) as image:
        colours = {colour for _, colour in image.convert("RGB").getcolors(1 << 22) or []}
    return {c for c in colours if (c[0] == 200 and c[2] == 190) or c == (12, 200, 34)}


def test_pages_and_drawings_show_no_outside_picture_at_any_hop(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    sources = _pandoc_sources(secrets)
    cases = {
        "pictures.html": (sources["pictures.html"].encode(), "chromium+pillow"),
        "pictures.md": (sources["pictures.md"].encode(), "pandoc+poppler+pillow"),
        **{name: (data, "mupdf+pillow") for name, data in _xps_reaching_out(secrets).items()
           if name.startswith("picture-")},
    }  # fmt: skip
    for name, (_, engine) in cases.items():
        require_engine("route", "convert", name.rsplit(".", 1)[1], "tiff")
        for hop in engine.split("+"):
            require_engine(hop)
    for name, (data, engine) in cases.items():
        done = _routed(client, tmp_path, name, data, "tiff")
        task = done["task"]
        assert isinstance(task, dict)
        assert task["status"] == "finished", (name, task.get("message"))  # the page renders without them
        assert task["engine"] == engine, name
        outputs = done["files"]
        assert isinstance(outputs, list)
        assert outputs, name
        for number, data_out in enumerate(outputs):
            assert secrets.found_in(data_out) == [], name
            path = tmp_path / f"{name}-{number}.tiff"
            path.write_bytes(data_out)
            assert _secret_colours(path) == set(), name


def _hostile_presentation(secrets: Planted, entities: bool) -> bytes:
    """A flat ODF presentation (fodp): one slide whose text links the secrets (and, with ``entities``,
    uses them as external entities), and whose frames show the secret pictures by ``file:`` URI, path
    and ``../``."""
    doctype, used = _entity_xml(secrets) if entities else ("", "")
    climb = "../" * 12
    pictures = "".join(
        f'<draw:frame svg:x="{2 + 5 * n}cm" svg:y="8cm" svg:width="4cm" svg:height="4cm">'
        f'<draw:image xlink:href="{href}" xlink:type="simple" xlink:show="embed"/></draw:frame>'
        for n, href in enumerate(
            target for path in secrets.pictures.values()
            for target in (path.as_uri(), str(path), climb + str(path).lstrip("/"))
        )
    )  # fmt: skip
    links = "".join(f'<text:a xlink:href="{path.as_uri()}">next</text:a> ' for path in secrets.text.values())
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n{doctype.replace("doc", "office:document", 1)}\n'
        '<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" '
        'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2" '
        'office:mimetype="application/vnd.oasis.opendocument.presentation">'
        '<office:body><office:presentation><draw:page draw:name="Facts">'
        '<draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="4cm"><draw:text-box>'
        f"<text:p>Quokka facts {used}</text:p><text:p>{links}</text:p></draw:text-box></draw:frame>"
        f"{pictures}</draw:page></office:presentation></office:body></office:document>\n"
    ).encode()


def test_a_presentation_as_text_takes_nothing_from_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("route", "convert", "fodp", "txt")
    require_engine("route", "convert", "fodp", "md")
    for target, engine in (("txt", "libreoffice+poppler-text"), ("md", "libreoffice+markdown")):
        linked = _routed(client, tmp_path, "linked.fodp", _hostile_presentation(secrets, False), target)
        task = linked["task"]
        assert isinstance(task, dict)
        assert task["status"] == "finished", task.get("message")  # converts, without what it links
        assert task["engine"] == engine
        text = b"".join(linked["files"])  # type: ignore[arg-type]  # a list of bytes, built above
        assert b"Quokka facts" in text, target
        assert secrets.found_in(text) == [], target
        # LibreOffice opens no ODF file that declares external entities: a clear error, no secret
        refused = _routed(client, tmp_path, "entities.fodp", _hostile_presentation(secrets, True), target)
        task = refused["task"]
        assert isinstance(task, dict)
        assert task["status"] == "error", target
        assert task["message"].startswith("hop 1 of 2 (libreoffice fodp -> pdf): "), task["message"]
        assert secrets.found_in(task["message"].encode()) == [], target


def _duration(path: Path) -> float:
    probe = [engine_program("ffmpeg", "ffprobe"), "-v", "error", "-show_entries", "format=duration",
             "-of", "json", str(path)]  # fmt: skip
    found = json.loads(subprocess.run(probe, capture_output=True, text=True, check=True).stdout)
    return float(found.get("format", {}).get("duration") or 0)


def test_a_playlist_under_a_sound_name_reads_no_media_outside_through_a_route(
    outside_media: list[Path], secrets: Planted, require_engine: RequireEngine, client: httpx.Client,
    tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("route", "convert", "sbc", "aac")  # sbc -> wav -> aac: ffmpeg twice; a raw SBC has
    # no signature to check, so the playlist reaches ffmpeg, which reads it by its content
    for kind, data in _playlists(outside_media).items():
        done = _routed(client, tmp_path, f"talk-{kind}.sbc", data, "aac")
        task = done["task"]
        assert isinstance(task, dict)
        assert task["engine"] == "ffmpeg+ffmpeg" or task["status"] == "error", kind
        assert secrets.found_in(str(task.get("message")).encode()) == [], kind
        for number, data_out in enumerate(done["files"]):  # type: ignore[arg-type]  # bytes, built above
            path = tmp_path / f"{kind}-{number}.aac"
            path.write_bytes(data_out)
            assert _duration(path) < 0.5, kind  # nothing of the outside segments (3 s each) came through
