"""Hostile files of every engine family read nothing outside their task (issue 37).

Secrets are planted outside the task (planted_secrets.py: the host's /tmp, /var/tmp, the data
directory, another task's upload, a variable of the service, /etc/passwd); each file below names them
the ways its format names another file (includes, linked and embedded pictures, file: URLs, symlinks,
``../`` names, PostScript's file operators). Each case converts on the real service under bubblewrap and
under Landlock: it converts without them or fails, and neither its output nor its error says them.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import run_job, task_named
from planted_secrets import CANARY, Planted, all_bytes, planted
from pypdf import PdfReader

from engine_needs import unavailable
from markdown_samples import Slide, write_pptx
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.server import LocalService
from office_samples import linked_picture_docx

RequireEngine = Callable[..., Engine]


@pytest.fixture(params=["bwrap", "landlock"])
def sealing(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, require_program: Callable[..., str]
) -> str:
    name = str(request.param)
    if name == "landlock" and not landlock_rules.available():
        unavailable("Landlock or seccomp cannot be set on this machine")
    if name == "bwrap":
        require_program("bwrap")
    monkeypatch.setenv(seal.FORCE_VARIABLE, name)
    return name


@pytest.fixture
def secrets(
    sealing: str, service: LocalService, client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Planted]:
    with planted(service, client, monkeypatch) as found:
        yield found


@dataclass(frozen=True)
class Outcome:
    status: str
    message: str
    output: bytes  # every output file's bytes (zip members and PDF text too), empty on an error


def _readable(data: bytes) -> bytes:
    """PDF text and metadata as well as its bytes: a PostScript program shows what it read as text."""
    if not data.startswith(b"%PDF"):
        return data
    reader = PdfReader(io.BytesIO(data))
    text = "".join(page.extract_text() or "" for page in reader.pages)
    return data + text.replace("\n", "").encode() + str(reader.metadata or {}).encode()


def convert(client: httpx.Client, tmp_path: Path, name: str, data: bytes, task: dict[str, Any]) -> Outcome:
    """``data`` (file ``name``) through one task, then exported; the outcome however it ended."""
    job = run_job(
        client,
        {
            "in": {"operation": "import/base64", "file": base64.b64encode(data).decode(), "filename": name},
            "out": {"input": "in", **task},
            "export": {"operation": "export/url", "input": "out"},
        },
    )
    done = task_named(job, "out")
    if done["status"] != "finished":
        return Outcome(done["status"], f"{done.get('code')}: {done.get('message')}", b"")
    output = json.dumps(done.get("result")).encode()  # a command's captured console among it
    for item in task_named(job, "export")["result"]["files"]:
        path = tmp_path / "out" / item["filename"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(httpx.get(item["url"], timeout=60).content)
        output += _readable(all_bytes(path))
    return Outcome("finished", "", output)


def assert_nothing_out(outcomes: dict[str, Outcome], secrets: Planted) -> None:
    leaks = {
        case: found
        for case, outcome in outcomes.items()
        if (found := secrets.found_in(outcome.output + outcome.message.encode()))
    }
    assert leaks == {}, "secrets in outputs or errors: " + str(leaks)


# --- Pandoc: includes of text, pictures embedded into docx and epub -------------------------------


def _pandoc_sources(secrets: Planted) -> dict[str, str]:
    texts = [str(path) for path in secrets.text.values()]
    pictures = [str(path) for path in secrets.pictures.values()]
    return {
        "includes.rst": "Title\n=====\n\n"
        + "".join(f".. include:: {path}\n\n" for path in texts)
        + "".join(f".. image:: {path}\n\n" for path in pictures),
        "includes.tex": "\\documentclass{article}\\begin{document}\nHello.\n"
        + "".join(f"\\input{{{path}}}\n\\include{{{path}}}\n" for path in texts)
        + "".join(f"\\includegraphics{{{path}}}\n" for path in pictures)
        + "\\end{document}\n",
        "includes.org": "* Title\n" + "".join(f'#+INCLUDE: "{path}"\n' for path in texts),
        "pictures.md": "# Pictures\n\n"
        + "".join(f"![a]({path}) ![b](file://{path}) ![c](../../../..{path})\n\n" for path in pictures)
        + "".join(f'<img src="file://{path}">\n\n' for path in pictures),
        "pictures.html": "<html><body><p>Pictures</p>"
        + "".join(f'<img src="file://{path}"><img src="{path}">' for path in pictures)
        + "".join(f'<object data="{path}"></object>' for path in texts)
        + "</body></html>",
    }


@pytest.mark.parametrize("target", ["html", "docx", "epub"])
def test_pandoc_includes_and_embeds_nothing_from_outside(
    target: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("pandoc", "convert", "md", target)
    outcomes = {
        name: convert(client, tmp_path / name, name, source.encode(),
                      {"operation": "convert", "output_format": target, "engine": "pandoc"})
        for name, source in _pandoc_sources(secrets).items()
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert outcomes["pictures.md"].status == "finished", outcomes["pictures.md"].message


# --- Assimp: material libraries, buffers and textures named outside -------------------------------

CUBE = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"


def _gltf(uri: str) -> str:
    buffer = {"byteLength": 36, "uri": uri}
    views = [{"buffer": 0, "byteOffset": 0, "byteLength": 36}]
    accessor = {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                "min": [0, 0, 0], "max": [1, 1, 1]}  # fmt: skip
    mesh = {"primitives": [{"attributes": {"POSITION": 0}}]}
    return json.dumps({"asset": {"version": "2.0"}, "buffers": [buffer], "bufferViews": views,
                       "accessors": [accessor], "meshes": [mesh], "nodes": [{"mesh": 0}],
                       "scenes": [{"nodes": [0]}], "scene": 0})  # fmt: skip


def _scene_sources(secrets: Planted) -> dict[str, str]:
    libraries = []
    for place, text in secrets.text.items():
        library = text.with_name("leak.mtl")
        library.write_text(f"newmtl {CANARY}-{place}\nKd 1 0 0\nmap_Kd secret.png\n")
        libraries.append(str(library))
    climb = "../" * 16
    sources = {
        "mtllib.obj": "".join(f"mtllib {path}\nmtllib {climb}{path.lstrip('/')}\n" for path in libraries)
        + CUBE,
    }
    for place, path in {**secrets.text, **secrets.pictures}.items():
        sources[f"buffer-{place}.gltf"] = _gltf(f"{climb}{str(path).lstrip('/')}")
    return sources


@pytest.mark.parametrize("target", ["dae", "glb"])
def test_assimp_reads_no_material_or_buffer_from_outside(
    target: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("assimp", "convert", "obj", target)
    outcomes = {
        name: convert(client, tmp_path / name, name, source.encode(),
                      {"operation": "convert", "output_format": target, "engine": "assimp"})
        for name, source in _scene_sources(secrets).items()
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)
    assert outcomes["mtllib.obj"].status == "finished", outcomes["mtllib.obj"].message


# --- Archives: members that are links, or names that climb out ------------------------------------


def _zip_with_links(secrets: Planted) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for place, path in {**secrets.text, **secrets.pictures}.items():
            link = zipfile.ZipInfo(f"link-{place}")
            link.external_attr = (0o120777 << 16) | 0x20  # a symlink, as Info-ZIP stores one
            archive.writestr(link, str(path))
            archive.writestr(f"{'../' * 12}{str(path.parent).lstrip('/')}/escaped-zip.txt", "written outside")
            archive.writestr(f"{path.parent}/escaped-abs.txt", "written outside")
        archive.writestr("kept.txt", "an ordinary member")
    return out.getvalue()


def _tar_with_links(secrets: Planted) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        for place, path in {**secrets.text, **secrets.pictures}.items():
            for kind, name in ((tarfile.SYMTYPE, "symlink"), (tarfile.LNKTYPE, "hardlink")):
                link = tarfile.TarInfo(f"{name}-{place}")
                link.type, link.linkname = kind, str(path)
                archive.addfile(link)
            for name in (f"{'../' * 12}{str(path.parent).lstrip('/')}/escaped-tar.txt",
                         f"{path.parent}/escaped-abs.txt"):  # fmt: skip
                member = tarfile.TarInfo(name)
                member.size = 15
                archive.addfile(member, io.BytesIO(b"written outside"))
        kept = tarfile.TarInfo("kept.txt")
        kept.size = 18
        archive.addfile(kept, io.BytesIO(b"an ordinary member"))
    return out.getvalue()


def _7z_with_links(secrets: Planted, scratch: Path) -> bytes:
    import py7zr

    out = io.BytesIO()
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "kept.txt").write_text("an ordinary member")
    with py7zr.SevenZipFile(out, "w") as archive:
        for place, path in {**secrets.text, **secrets.pictures}.items():
            (scratch / f"link-{place}").symlink_to(path)
            archive.write(scratch / f"link-{place}", f"link-{place}")
        archive.write(scratch / "kept.txt", "kept.txt")
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "target"), [("links.zip", "tar"), ("links.tar", "zip"), ("links.7z", "zip")]
)
def test_an_archive_neither_reads_nor_writes_outside(
    name: str, target: str, secrets: Planted, require_engine: RequireEngine, client: httpx.Client,
    tmp_path: Path,
) -> None:  # fmt: skip
    require_engine("archive", "convert", name.rsplit(".", 1)[1], target)
    before = {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()}
    makers = {"zip": _zip_with_links, "tar": _tar_with_links,
              "7z": lambda planted: _7z_with_links(planted, tmp_path / "links")}  # fmt: skip
    data = makers[name.rsplit(".", 1)[1]](secrets)
    outcome = convert(client, tmp_path, name, data, {"operation": "convert", "output_format": target})
    assert_nothing_out({name: outcome}, secrets)
    assert outcome.status == "finished", outcome.message
    assert b"an ordinary member" in outcome.output
    assert {place: sorted(path.parent.iterdir()) for place, path in secrets.text.items()} == before


# --- Calibre: an html book whose pictures, styles and links name files outside ---------------------


def _book(secrets: Planted) -> str:
    parts = ["<html><head><title>Book</title>"]
    parts += [f'<link rel="stylesheet" href="file://{path}">' for path in secrets.text.values()]
    parts.append("</head><body><h1>Chapter</h1><p>Text of the chapter.</p>")
    for path in secrets.pictures.values():
        parts.append(f'<img src="file://{path}"><img src="{path}">')
        parts.append(f'<div style="background: url(file://{path})">x</div>')
    for path in secrets.text.values():
        parts.append(f'<p><a href="file://{path}">next</a> <a href="{path}">more</a></p>')
        parts.append(f'<iframe src="file://{path}"></iframe><object data="{path}"></object>')
    return "".join(parts) + "</body></html>"


def _htmlz(book: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("index.html", book)
    return out.getvalue()


def test_calibre_takes_nothing_a_book_links_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("calibre", "convert", "htmlz", "epub")
    require_engine("calibre", "convert", "docx", "epub")
    task = {"operation": "convert", "output_format": "epub", "engine": "calibre"}
    outcomes = {"book.htmlz": convert(client, tmp_path / "htmlz", "book.htmlz", _htmlz(_book(secrets)), task)}
    for place, path in secrets.pictures.items():
        (tmp_path / place).mkdir()
        docx = linked_picture_docx(tmp_path / place / "linked.docx", path.as_uri())
        outcomes[f"linked-{place}.docx"] = convert(
            client, tmp_path / place, docx.name, docx.read_bytes(), task
        )
    assert_nothing_out(outcomes, secrets)
    # a linked picture it may not read fails the docx under Landlock (a clear error), or is left out
    assert outcomes["book.htmlz"].status == "finished", outcomes["book.htmlz"].message
    assert b"Text of the chapter." in outcomes["book.htmlz"].output


# --- ImageMagick commands and Ghostscript: file names in arguments, drawings and PostScript ---------


def _magick_commands(secrets: Planted) -> dict[str, str]:
    commands = {}
    for place, path in secrets.pictures.items():
        commands[f"read-{place}"] = f"{path} /output/read-{place}.png"
        commands[f"draw-{place}"] = (
            f"/input/in/in.png -draw \"image over 0,0 0,0 '{path}'\" -set comment %c /output/draw-{place}.png"
        )
    for place, path in secrets.text.items():
        commands[f"text-{place}"] = f"-comment @{path} /input/in/in.png /output/text-{place}.png"
        commands[f"label-{place}"] = f"label:@{path} /output/label-{place}.miff"
    return commands


def test_imagemagick_commands_read_no_file_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("imagemagick")
    png = secrets.picture_bytes["upload"].replace(b"other-key-upload", b"the-task-own-image")
    outcomes = {
        name: convert(client, tmp_path / name, "in.png", png,
                      {"operation": "command", "engine": "imagemagick", "command": "convert",
                       "arguments": arguments, "capture_output": True})
        for name, arguments in _magick_commands(secrets).items()
    }  # fmt: skip
    assert_nothing_out(outcomes, secrets)


def _postscript(secrets: Planted) -> str:
    lines = ["%!PS", "/Courier findfont 10 scalefont setfont 40 700 moveto (Page) show"]
    for index, path in enumerate([*secrets.text.values(), Path("/etc/passwd")]):
        y = 680 - 20 * index
        lines.append(f"40 {y} moveto {{ ({path}) (r) file 200 string readstring pop show }} stopped pop")
        lines.append(f"{{ ({path}) run }} stopped pop")
    lines.append("40 560 moveto { (AWS_SECRET_ACCESS_KEY) getenv { show } if } stopped pop")
    lines.append("showpage")
    return "\n".join(lines) + "\n"


# Unsealed too: Ghostscript's -dSAFER lets a program read its temporary directory, the host's /tmp
# unless told another (issue 37).
@pytest.mark.parametrize("sealing", ["bwrap", "landlock", "none"], indirect=True)
def test_ghostscript_postscript_reads_no_file_or_variable_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("ghostscript-ps", "convert", "ps", "pdf")
    task = {"operation": "convert", "output_format": "pdf", "engine": "ghostscript-ps"}
    outcome = convert(client, tmp_path, "reader.ps", _postscript(secrets).encode(), task)
    assert_nothing_out({"reader.ps": outcome}, secrets)


# --- Documents: a presentation's links and entities (Markdown engine), imported documents' -----------


def _hostile_pptx(path: Path, secrets: Planted) -> Path:
    climb = "../" * 12
    rels = "".join(
        f'<Relationship Id="x{n}" Type="{kind}" Target="{target}"{mode}/>'
        for n, (kind, target, mode) in enumerate(
            (f"http://schemas.openxmlformats.org/officeDocument/2006/relationships/{kind}", target, mode)
            for file in [*secrets.text.values(), *secrets.pictures.values()]
            for kind in ("notesSlide", "image")
            for target, mode in ((file.as_uri(), ' TargetMode="External"'), (str(file), ""),
                                 (f"{climb}{str(file).lstrip('/')}", ""))
        )
    )  # fmt: skip
    return write_pptx(path, [Slide("Quokka facts", [(0, "Small")], notes="Say hello", extra_rels=rels)])


def _entity_xml(secrets: Planted) -> tuple[str, str]:
    """A document type declaring each secret text file an external entity, and the entities' uses."""
    declared = "".join(f'<!ENTITY e{n} SYSTEM "{p.as_uri()}">' for n, p in enumerate(secrets.text.values()))
    used = "".join(f"&e{n};" for n in range(len(secrets.text)))
    return f"<!DOCTYPE doc [{declared}]>", used


def test_markdown_reads_no_link_or_entity_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("markdown", "convert", "pptx", "md")
    linked = _hostile_pptx(tmp_path / "linked.pptx", secrets)
    doctype, used = _entity_xml(secrets)
    entity = tmp_path / "entity.pptx"
    with zipfile.ZipFile(linked) as source, zipfile.ZipFile(entity, "w") as target:
        for name in source.namelist():
            data = source.read(name).decode()
            if name == "ppt/slides/slide1.xml":  # an external entity in the slide, used in its title
                data = data.replace("?>\n", f"?>\n{doctype}", 1).replace("Quokka facts", f"Quokka {used}")
            target.writestr(name, data)
    task = {"operation": "convert", "output_format": "md", "engine": "markdown"}
    outcomes = {
        path.name: convert(client, tmp_path / path.stem, path.name, path.read_bytes(), task)
        for path in (linked, entity)
    }
    assert_nothing_out(outcomes, secrets)
    assert outcomes["linked.pptx"].status == "finished", outcomes["linked.pptx"].message
    assert b"## Slide 1: Quokka facts" in outcomes["linked.pptx"].output
    assert outcomes["entity.pptx"].message == (
        "INVALID_INPUT_FILE: entity.pptx: its part ppt/slides/slide1.xml is not plain XML"
    )


def _hostile_abw(secrets: Planted) -> bytes:
    doctype, used = _entity_xml(secrets)
    pictures = "".join(
        f'<p><image dataid="{p.as_uri()}" props="width:1in"/><a xlink:href="{p.as_uri()}">link</a>'
        f'<image dataid="{p}"/></p>'
        for p in secrets.pictures.values()
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        + doctype.replace("doc", "abiword", 1)
        + '\n<abiword xmlns="http://www.abisource.com/awml.dtd" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'fileformat="1.1"><section><p>Quokka notes {used}</p>{pictures}</section></abiword>\n'
    ).encode()


def _hostile_gnumeric(secrets: Planted) -> bytes:
    doctype, used = _entity_xml(secrets)
    return gzip.compress(
        f'<?xml version="1.0"?>\n{doctype.replace("doc", "gnm:Workbook", 1)}\n'
        '<gnm:Workbook xmlns:gnm="http://www.gnumeric.org/v10.dtd"><gnm:Sheets><gnm:Sheet><gnm:Name>S</gnm:Name>'
        f'<gnm:Cells><gnm:Cell Row="0" Col="0" ValueType="60">Quokka notes {used}</gnm:Cell></gnm:Cells>'
        "</gnm:Sheet></gnm:Sheets></gnm:Workbook>\n".encode()
    )


def test_imported_abiword_and_gnumeric_files_read_nothing_outside(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("libreoffice", "convert", "abw", "pdf")
    require_engine("libreoffice", "convert", "gnumeric", "pdf")
    task = {"operation": "convert", "output_format": "pdf", "engine": "libreoffice"}
    outcomes = {
        "hostile.abw": convert(client, tmp_path / "abw", "hostile.abw", _hostile_abw(secrets), task),
        "hostile.gnumeric": convert(
            client, tmp_path / "gnm", "hostile.gnumeric", _hostile_gnumeric(secrets), task
        ),
    }
    assert_nothing_out(outcomes, secrets)
    # libabw and orcus expand no external entity and load no picture by name: each converts without them
    for name, outcome in outcomes.items():
        assert outcome.status == "finished", (name, outcome.message)
        assert b"Quokka notes" in outcome.output, name
