"""Every example of pipelines/ run for real on the local service, the way `mcv run` will drive it.

Rendered with check_pipeline (real values, no examples), submitted as RenderedPipeline.job_body()
through the ApiClient, upload_from files sent to their tasks' forms, waited for, and the files of the
download_to tasks downloaded and checked. This proves the service side; the runner's own end-to-end
tests are separate.
"""

from __future__ import annotations

import io
import json
import secrets
import subprocess
import threading
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from engine_job_helpers import ASSETS
from example_checks import NEW_FAMILY_CHECKS
from PIL import Image
from pypdf import PdfReader
from swift_examples import swift_thumbnails

from azurite import KEY, Azurite
from engine_needs import engine_program
from mcv_pipelines.api.client import ApiClient
from mcv_pipelines.api.models import Job
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.pipeline.check import check_pipeline
from mcv_pipelines.service.engines.base import Engine
from mcv_pipelines.service.server import LocalService
from seaweed import SeaweedS3

ROOT = ASSETS.parent.parent
PIPELINES = ROOT / "pipelines"
RequireEngine = Callable[..., Engine]
Outputs = dict[str, Path]

# Real values for every pipeline (what a user passes with -p), and the programs each one needs.
VALUES: dict[str, dict[str, Any]] = {
    "archive-renditions": {"photo": "pipelines/assets/photo.jpg"},
    "audio-command": {"audio": "pipelines/assets/tone.wav"},
    "documents-merge": {
        "images": ["pipelines/assets/photo.jpg", "pipelines/assets/logo.png"],
        "document": "pipelines/assets/pages.pdf",
    },
    "office-to-pdf": {"document": "pipelines/assets/letter.docx", "title": "Sample letter"},
    "office-to-pdf-merge": {
        "document": "pipelines/assets/letter.docx",
        "appendix": "pipelines/assets/pages.pdf",
    },
    "product-images": {"photo": "pipelines/assets/photo.jpg"},
    "s3-roundtrip": {"bucket": "media-example", "source_prefix": "incoming/"},
    "azure-roundtrip": {"account": "devstoreaccount1", "container": "media", "source_prefix": "incoming/"},
    "swift-thumbnails": {"container": "media-example", "source_prefix": "incoming/"},
    "thumbnails": {"image": "pipelines/assets/logo.png"},
    "video-poster": {"video": "pipelines/assets/clip.mp4", "poster_at": "00:00:01.5"},
    "website-capture": {"name": "loopback"},  # url: the loopback page, set in the test
    "docs-to-web": {"document": "pipelines/assets/notes.md"},
    "ebook-from-markdown": {"manuscript": "pipelines/assets/notes.md"},
    "vector-assets": {"badge": "pipelines/assets/badge.svg", "logo": "pipelines/assets/logo.png"},
    "web-fonts": {"font": "pipelines/assets/boxes.ttf"},
    "photo-formats": {"photo": "pipelines/assets/photo.jpg"},
    "video-to-gif": {"video": "pipelines/assets/clip.mp4"},
    "archive-repack": {"files": ["pipelines/assets/photo.jpg", "pipelines/assets/pages.pdf"]},
    "pdf-to-text": {"document": "pipelines/assets/pages.pdf"},
    "model-formats": {"model": "pipelines/assets/cube.obj"},
}
# What each example needs beyond the core engines: (engine, operation, input format, output format).
ENGINES: dict[str, tuple[str, ...]] = {
    "audio-command": ("ffmpeg",),
    "video-poster": ("ffmpeg",),
    "office-to-pdf": ("libreoffice", "convert", "docx", "pdf"),
    "office-to-pdf-merge": ("libreoffice", "convert", "docx", "pdf"),
    "website-capture": ("chromium",),
    "docs-to-web": ("pandoc", "convert", "md", "docx"),
    "ebook-from-markdown": ("calibre", "convert", "epub", "azw3"),
    "vector-assets": ("librsvg", "convert", "svg", "png"),
    "photo-formats": ("libheif", "convert", "jpg", "heic"),
    "video-to-gif": ("ffmpeg", "convert", "mp4", "gif"),
    "pdf-to-text": ("poppler-text", "convert", "pdf", "html"),
    "model-formats": ("assimp", "convert", "obj", "glb"),
}
# Examples that need a second engine beyond the one above.
MORE_ENGINES: dict[str, tuple[tuple[str, ...], ...]] = {
    "ebook-from-markdown": (("pandoc", "convert", "md", "epub"),),
    "vector-assets": (("potrace", "convert", "png", "svg"),),
    "photo-formats": (("libjxl", "convert", "jpg", "jxl"),),
}
ENVIRON = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLEEXAMPLE", "AWS_SECRET_ACCESS_KEY": "not-a-real-secret-0123"}


# Examples run by a test of their own, with the server they need (the test named is checked to exist).
RUN_ELSEWHERE = {
    "gcs-roundtrip": (
        "storage/test_caller_gcs.py",
        "test_the_example_recipe_converts_every_image_under_the_prefix_with_mcv_run",
    ),
    "sftp-thumbnails": (
        "storage/test_caller_sftp.py",
        "test_the_example_recipe_makes_a_thumbnail_of_every_image_with_mcv_run",
    ),
}


def test_every_example_has_values_here() -> None:
    assert {p.stem for p in PIPELINES.glob("*.yaml")} == set(VALUES) | set(RUN_ELSEWHERE)
    assert not set(VALUES) & set(RUN_ELSEWHERE)
    for module, test in RUN_ELSEWHERE.values():
        assert f"def {test}(" in (Path(__file__).parents[1] / module).read_text(), (module, test)


@pytest.fixture(scope="module")
def page_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("page")
    (root / "index.html").write_text(
        "<!doctype html><title>Example capture</title><body style='background:#fde68a;font:28px serif'>"
        "<h1>Pipeline capture page</h1><p>Served on loopback for the website-capture example.</p></body>"
    )

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


async def run_example(
    service: LocalService, name: str, values: dict[str, Any], dest: Path, environ: dict[str, str] = ENVIRON
) -> tuple[Job, Outputs]:
    checked = check_pipeline(PIPELINES / f"{name}.yaml", values, use_examples=False, environ=environ)
    assert checked.ok, [d.message for d in checked.diagnostics]
    pipeline = checked.pipeline
    assert pipeline is not None
    body = pipeline.job_body()
    tasks = body.pop("tasks")
    settings = Settings(base_url=service.base_url, sync_url=service.sync_url, api_key=service.api_key)
    outputs: Outputs = {}
    async with ApiClient(settings) as api:
        job = await api.create_job(tasks, extra=body)
        by_name = {task.name: task for task in job.tasks}
        for task_name, task in pipeline.tasks.items():
            if task.upload_from:
                await api.upload_file(by_name[task_name], ROOT / task.upload_from)
        ended = await api.wait_job(job.id, max_wait=180)
        for task_name, task in pipeline.tasks.items():
            if not task.download_to or ended.status != "finished":
                continue
            export = next(t for t in ended.tasks if t.name == task_name)
            assert export.result is not None
            for item in export.result.files:
                path = await api.download_file(item, dest / task.download_to)
                outputs[path.name] = path
    return ended, outputs


def probe(path: Path) -> dict[str, Any]:
    text = subprocess.run(
        [
            engine_program("ffmpeg", "ffprobe"),
            "-v", "error", "-show_format", "-show_streams", "-of", "json", str(path),
        ],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    data: dict[str, Any] = json.loads(text)
    return data


def video(info: dict[str, Any]) -> dict[str, Any]:
    stream: dict[str, Any] = next(s for s in info["streams"] if s["codec_type"] == "video")
    return stream


def pages(path: Path) -> int:
    return len(PdfReader(path).pages)


def image_size(path: Path) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


def check_outputs(name: str, job: Job, out: Outputs) -> None:
    """What a user of each example expects to find in its download folder."""
    assert job.status == "finished", [(t.name, t.code, t.message) for t in job.tasks if t.status == "error"]
    if name == "archive-renditions":
        with zipfile.ZipFile(out["photo-renditions.zip"]) as bundle:
            assert sorted(bundle.namelist()) == ["photo-640.pdf", "photo-640.png", "photo-640.webp"]
    elif name == "audio-command":
        assert probe(out["tone.mp3"])["streams"][0]["codec_name"] == "mp3"
        assert probe(out["tone.ogg"])["streams"][0]["codec_name"] == "vorbis"
    elif name == "documents-merge":
        assert pages(out["merged.pdf"]) == 2 + 2  # two images, then the two-page document
    elif name == "office-to-pdf":
        reader = PdfReader(out["letter.pdf"])
        assert reader.metadata is not None
        assert reader.metadata.title == "Sample letter"
        assert "Sample letter" in reader.pages[0].extract_text()
    elif name == "office-to-pdf-merge":
        reader = PdfReader(out["combined.pdf"])
        assert len(reader.pages) == 1 + 2
        assert "Sample letter" in reader.pages[0].extract_text()
        assert reader.pages[1].extract_text() == PdfReader(ASSETS / "pages.pdf").pages[0].extract_text()
    elif name == "product-images":
        widths = sorted(image_size(p)[0] for n, p in out.items() if n.endswith(".webp"))
        assert widths == [320, 640]
        assert any(n.endswith(".pdf") for n in out)
    elif name == "thumbnails":
        assert {n: image_size(p) for n, p in out.items()} == {
            "logo-48.png": (48, 48), "logo-96.png": (96, 96), "logo-256.webp": (256, 256),
        }  # fmt: skip
    elif name == "video-poster":
        mp4, webm = probe(out["clip-web.mp4"]), probe(out["clip-web.webm"])
        assert (video(mp4)["codec_name"], video(mp4)["width"]) == ("h264", 160)
        assert (video(webm)["codec_name"], video(webm)["width"]) == ("vp9", 160)
        assert abs(float(mp4["format"]["duration"]) - 2.0) < 0.2
        assert image_size(out["clip-poster.jpg"]) == (160, 120)
    elif name == "website-capture":
        text = " ".join(PdfReader(out["loopback.pdf"]).pages[0].extract_text().split())
        assert "Pipeline capture page" in text
        with Image.open(out["loopback.png"]) as shot:
            assert shot.size == (1280, 800)
            colors = shot.convert("RGB").getcolors(maxcolors=1 << 20) or []
            assert len(colors) > 2
            assert max(colors)[1] == (0xFD, 0xE6, 0x8A)  # the page's background fills most of it
    elif name in NEW_FAMILY_CHECKS:
        NEW_FAMILY_CHECKS[name](out)
    else:
        raise AssertionError(f"no output check for {name}")


@pytest.mark.parametrize("name", sorted(VALUES))
async def test_example_pipeline_runs_on_the_local_service(
    name: str,
    service: LocalService,
    require_engine: RequireEngine,
    page_url: str,
    tmp_path: Path,
    request: pytest.FixtureRequest,
) -> None:
    if name in ENGINES:
        require_engine(*ENGINES[name])
    for needed in MORE_ENGINES.get(name, ()):
        require_engine(*needed)
    values = dict(VALUES[name])
    if name == "website-capture":
        values["url"] = page_url
    if name == "s3-roundtrip":
        await s3_roundtrip(service, request.getfixturevalue("seaweed"), values, tmp_path)
        return
    if name == "azure-roundtrip":
        await azure_roundtrip(request.getfixturevalue("azurite"), values, tmp_path)
        return
    if name == "swift-thumbnails":
        await swift_thumbnails(run_example, service, request.getfixturevalue("swift"), values, tmp_path)
        return
    job, outputs = await run_example(service, name, values, tmp_path)
    check_outputs(name, job, outputs)


async def s3_roundtrip(
    service: LocalService, seaweed: SeaweedS3, values: dict[str, Any], tmp_path: Path
) -> None:
    """Every image under the prefix becomes a webp under the other one; a decoy beside the prefix
    stays where it is."""
    prefix = f"roundtrip-{secrets.token_hex(4)}/"
    values.update(bucket=seaweed.bucket, endpoint=seaweed.endpoint, region="us-east-1")
    values.update(source_prefix=f"{prefix}incoming/", target_prefix=f"{prefix}web/", width=64)
    client = seaweed.client()
    try:
        for key, asset in (
            ("incoming/photo.jpg", "photo.jpg"),
            ("incoming/logo.png", "logo.png"),
            ("decoy.png", "logo.png"),
        ):
            client.put_object(Bucket=seaweed.bucket, Key=prefix + key, Body=(ASSETS / asset).read_bytes())
        environ = {"AWS_ACCESS_KEY_ID": seaweed.access_key, "AWS_SECRET_ACCESS_KEY": seaweed.secret_key}
        job, _ = await run_example(service, "s3-roundtrip", values, tmp_path, environ)
        assert job.status == "finished", [
            (t.name, t.code, t.message) for t in job.tasks if t.status == "error"
        ]
        web = next(t for t in job.tasks if t.name == "web")
        assert sorted(f.filename for f in web.files) == ["logo.webp", "photo.webp"]
        listed = client.list_objects_v2(Bucket=seaweed.bucket, Prefix=f"{prefix}web/")
        assert sorted(o["Key"] for o in listed["Contents"]) == [
            f"{prefix}web/logo.webp",
            f"{prefix}web/photo.webp",
        ]
        for name in ("logo.webp", "photo.webp"):
            stored = client.get_object(Bucket=seaweed.bucket, Key=f"{prefix}web/{name}")
            assert stored["CacheControl"] == "public, max-age=31536000"
            assert stored["ContentType"] == "image/webp"
            with Image.open(io.BytesIO(stored["Body"].read())) as image:
                assert (image.format, image.width) == ("WEBP", 64)
    finally:
        client.close()


async def azure_roundtrip(azurite: Azurite, values: dict[str, Any], tmp_path: Path) -> None:
    """Every image under the prefix becomes a webp blob under the other one, with the recipe's
    metadata; a decoy beside the prefix stays where it is. The service is told where Azurite is."""
    from azure.storage.blob import BlobServiceClient

    blobs = BlobServiceClient.from_connection_string(azurite.connection_string)
    container = blobs.create_container(f"media-{secrets.token_hex(4)}")
    values.update(container=container.container_name, width=64)
    try:
        for name, asset in (("incoming/photo.jpg", "photo.jpg"), ("incoming/logo.png", "logo.png")):
            container.upload_blob(name, (ASSETS / asset).read_bytes())
        container.upload_blob("decoy.png", (ASSETS / "logo.png").read_bytes())
        settings = {"azure_blob_endpoint": azurite.endpoint}
        with LocalService(data_dir=tmp_path / "azure-service", settings=settings) as service:
            environ = {"AZURE_STORAGE_KEY": KEY}
            job, _ = await run_example(service, "azure-roundtrip", values, tmp_path, environ)
        failed = [(t.name, t.code, t.message) for t in job.tasks if t.status == "error"]
        assert job.status == "finished", failed
        assert sorted(b.name for b in container.list_blobs(name_starts_with="web/")) == [
            "web/logo.webp",
            "web/photo.webp",
        ]
        for name in ("logo.webp", "photo.webp"):
            blob = container.get_blob_client(f"web/{name}")
            properties = blob.get_blob_properties()
            assert properties.metadata == {"converted_by": "mcv-pipelines", "source_prefix": "incoming/"}
            assert properties.content_settings.content_type == "image/webp"
            with Image.open(io.BytesIO(blob.download_blob().readall())) as image:
                assert (image.format, image.width) == ("WEBP", 64)
    finally:
        blobs.close()
