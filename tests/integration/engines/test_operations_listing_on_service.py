"""The operations listing says what this machine can do: what it lists runs, what is missing vanishes."""

from __future__ import annotations

import io
import json
import struct
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from engine_job_helpers import ASSETS, b64_import, run_job
from PIL import Image
from pypdf import PdfReader

from image_samples import READ_ONLY_SAMPLES
from mcv_pipelines.service.engines import available_engines
from mcv_pipelines.service.engines.archive.repack import write_archive
from mcv_pipelines.service.engines.archive.unpack import READABLE
from mcv_pipelines.service.engines.image.formats import ImageFormat, image_format
from mcv_pipelines.service.engines.image.image_io import save_image
from mcv_pipelines.service.server import LocalService

CORE = ("pillow", "pypdf", "archive")
# What an operation needs besides its input to do anything at all.
REQUIRED = {
    "watermark": {"text": "mark", "font_size": 8},
    "metadata/write": {"metadata": {"Artist": "listing test"}},
    "thumbnail": {"width": 16},
}


def listing(client: httpx.Client) -> list[dict[str, Any]]:
    answer = client.get("/v2/operations", params={"alternatives": "true"})
    assert answer.status_code == 200, answer.text
    data: list[dict[str, Any]] = answer.json()["data"]
    return data


def sample_file(fmt: str, folder: Path) -> Path:
    if fmt == "pdf":
        return ASSETS / "pages.pdf"
    path = folder / f"sample.{fmt}"
    if fmt in ("zst", "lz4"):  # one compressed file, not an archive: the file is its one member
        if fmt == "zst":
            import zstandard

            path.write_bytes(zstandard.ZstdCompressor().compress(b"listed and run"))
        else:
            import lz4.frame

            path.write_bytes(lz4.frame.compress(b"listed and run"))
        return path
    if fmt in READABLE:  # an archive converted to another archive format
        member = folder / "member.txt"
        member.write_text("listed and run")
        write_archive(fmt, path, [(member, "docs/member.txt")])
        return path
    if fmt in READ_ONLY_SAMPLES:  # Pillow reads it but has no writer
        path.write_bytes(READ_ONLY_SAMPLES[fmt]())
        return path
    image = Image.new("RGB", (48, 32), (200, 60, 30))
    image.paste((20, 90, 200), (0, 0, 24, 16))
    save_image([image], path, _image_format(fmt))
    return path


def _image_format(fmt: str) -> ImageFormat:
    found = image_format(fmt)
    assert found is not None, fmt
    return found


def check_output(operation: str, output_format: str, content: bytes, task: dict[str, Any]) -> None:
    if output_format == "json":
        assert task["result"].get("metadata"), task
    elif output_format == "pdf":
        assert PdfReader(io.BytesIO(content)).pages
    elif output_format in ("zip", "7z") or output_format.startswith("tar"):  # tar.gz ... tar.zst, tar.lz4
        assert len(content) > 100
    elif output_format == "palm":  # written only: width, height, bytes a row, flags, bits a pixel
        width, height, row_bytes = struct.unpack(">HHH", content[:6])
        assert min(width, height) > 0
        assert row_bytes * 8 >= width * content[8]
    else:
        with Image.open(io.BytesIO(content)) as image:
            assert image.format == _image_format(output_format).pil, (operation, image.format)


def test_every_core_conversion_type_listed_runs(client: httpx.Client, tmp_path: Path) -> None:
    by_input: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in listing(client):
        if entry["engine"] in CORE:
            by_input[entry["input_format"]].append(entry)
    assert {"png", "jpg", "pdf", "any"} <= set(by_input)
    ran = 0
    for input_format, entries in sorted(by_input.items()):
        source = sample_file("png" if input_format == "any" else input_format, tmp_path)
        tasks: dict[str, Any] = {"src": b64_import(source)}
        expected: dict[str, tuple[str, str]] = {}
        for index, entry in enumerate(entries):
            name = f"t{index}"
            tasks[name] = {
                "operation": entry["operation"], "input": "src", "engine": entry["engine"],
                "output_format": entry["output_format"], **REQUIRED.get(entry["operation"], {}),
            }  # fmt: skip
            if entry["operation"] == "metadata/write" and input_format == "pdf":
                tasks[name]["metadata"] = {"Title": "listing test"}
            if entry["operation"] == "merge":
                tasks[name]["input"] = ["src", "src"]
            if entry["operation"] in ("optimize", "watermark", "metadata", "metadata/write"):
                del tasks[name]["output_format"]  # these keep the input's format
            expected[name] = (entry["operation"], entry["output_format"])
        tasks["export"] = {"operation": "export/url", "input": list(expected)}
        job = run_job(client, tasks)
        by_name = {task["name"]: task for task in job["tasks"]}
        failed = {
            n: (expected[n], by_name[n]["code"], by_name[n]["message"])
            for n in expected
            if by_name[n]["status"] != "finished"
        }
        assert not failed, f"{input_format}: {json.dumps(failed, indent=1)}"
        for name, (operation, output_format) in expected.items():
            files = by_name[name]["result"].get("files") or []
            if output_format == "json":
                check_output(operation, output_format, b"", by_name[name])
                continue
            [item] = files
            assert item["filename"].endswith("." + output_format), (operation, item["filename"])
            links = {f["filename"]: f["url"] for f in by_name["export"]["result"]["files"]}
            content = (
                httpx.get(links[item["filename"]], timeout=30).content if item["filename"] in links else b""
            )
            check_output(operation, output_format, content, by_name[name])
            ran += 1
    assert ran > 100  # every format pair of the three core engines, not a handful


# the engines that run ffmpeg: the av family's and the subtitle family's (a video's subtitle streams)
_FFMPEG_ENGINES = frozenset({"ffmpeg", "ffmpeg-subtitles"})


@pytest.fixture
def without_ffmpeg() -> list[Any]:
    return [engine for engine in available_engines() if engine.name not in _FFMPEG_ENGINES]


def test_a_missing_program_takes_its_conversions_out_of_the_listing(
    require_engine: Callable[..., Any], client: httpx.Client, without_ffmpeg: list[Any], tmp_path: Path
) -> None:
    require_engine("ffmpeg")  # missing here: skipped, or failed under MCV_REQUIRE_ENGINES=1
    full = {(e["operation"], e["input_format"], e["output_format"], e["engine"]) for e in listing(client)}
    # ffmpeg runs here, so a listing without it is the regression this test is for, not a reason to skip.
    assert any(engine == "ffmpeg" for *_, engine in full), "ffmpeg runs here but the listing leaves it out"
    with LocalService(data_dir=tmp_path, engines=without_ffmpeg) as svc:
        headers = {"Authorization": f"Bearer {svc.api_key}"}
        with httpx.Client(base_url=svc.base_url, headers=headers, timeout=60) as other:
            reduced = {
                (e["operation"], e["input_format"], e["output_format"], e["engine"]) for e in listing(other)
            }
            assert reduced == {entry for entry in full if entry[3] not in _FFMPEG_ENGINES}
            assert not [e for e in reduced if "wav" in e or "mp4" in e]
            job = run_job(
                other,
                {
                    "tone": b64_import(ASSETS / "tone.wav"),
                    "mp3": {"operation": "convert", "input": "tone", "output_format": "mp3"},
                },
            )
    mp3 = next(task for task in job["tasks"] if task["name"] == "mp3")
    assert mp3["code"] == "UNSUPPORTED_CONVERSION"
    assert "wav" in mp3["message"]
    assert "mp3" in mp3["message"]


def test_each_query_is_answered_for_itself_and_the_same_when_asked_again(
    client: httpx.Client, require_engine: Callable[..., Any]
) -> None:
    # The alternatives listing is longer than the defaults only where two engines do one conversion:
    # gif -> webp by Pillow (the default) and by ffmpeg.
    require_engine("ffmpeg", "convert", "gif", "webp")
    # The bodies are kept per query once made (listing.py): a wrong key would answer one query
    # with another's listing.
    queries: dict[str, dict[str, str]] = {
        "all": {},
        "alternatives": {"alternatives": "true"},
        "png": {"filter[input_format]": "png"},
        "pdf": {"filter[input_format]": "pdf"},
        "png with options": {"filter[input_format]": "png", "include": "options"},
    }
    answers = {}
    for name, query in queries.items():
        first = client.get("/v2/operations", params=query)
        again = client.get("/v2/operations", params=query)
        assert first.status_code == again.status_code == 200, first.text
        assert first.headers["content-type"] == "application/json"
        assert first.json() == again.json(), name
        answers[name] = first.json()["data"]
    assert {entry["input_format"] for entry in answers["png"]} == {"png"}
    assert {entry["input_format"] for entry in answers["pdf"]} == {"pdf"}
    assert all("options" in entry for entry in answers["png with options"])
    assert not any("options" in entry for entry in answers["png"])
    assert len(answers["alternatives"]) > len(answers["all"]) > len(answers["png"])
    formats = client.get("/v2/convert/formats", params={"filter[input_format]": "png"}).json()["data"]
    assert formats == [entry for entry in answers["png"] if entry["operation"] == "convert"]


def test_queries_that_ask_the_same_share_one_kept_body(service: LocalService, client: httpx.Client) -> None:
    # The route needs no key: spellings of one query must not each keep a listing of their own.
    first = client.get("/v2/operations", params={"filter[operation]": "convert"}).json()
    kept = len(service.ctx.listings)
    for spelling in ("CONVERT", "Convert", "cOnVeRt"):
        for include in ("", "nothing", "nothing,else"):
            params = {"filter[operation]": spelling, "include": include}
            assert client.get("/v2/operations", params=params).json() == first
    assert len(service.ctx.listings) == kept
    assert sum(len(body) for body in service.ctx.listings.values()) <= 32 * 1024**2
