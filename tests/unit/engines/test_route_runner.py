"""The route engine's runner with engines written here that write files: a document's pages fan out to
one picture each, intermediates are gone when the task ends, a failing hop is named, one deadline."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import pytest

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    InputFile,
    OptionSpec,
)
from mcv_pipelines.service.engines.routes.engine import RouteEngine


class _Writer:
    """Lists ``pairs``; a run writes ``pages`` files named after its input (``a-1.png`` ...) holding the
    input's bytes and the hop, and records the options and work directory it was given."""

    def __init__(self, name: str, pairs: Iterable[tuple[str, str]], options: tuple[str, ...] = (),
                 pages: int = 1, fail: str = "") -> None:  # fmt: skip
        self.name, self.pairs, self.pages, self.fail = name, list(pairs), pages, fail
        self.options = tuple(OptionSpec(option, "string") for option in options)
        self.seen: list[tuple[dict[str, object], Path, float | None]] = []

    def version(self) -> str:
        return f"{self.name}-9"

    def conversion_types(self) -> list[ConversionType]:
        return [ConversionType("convert", a, b, self.name, options=self.options) for a, b in self.pairs]

    def run(self, request: EngineRequest) -> EngineResult:
        self.seen.append((dict(request.options), request.work_dir, request.timeout))
        if self.fail:
            raise EngineError("CONVERSION_FAILED", self.fail)
        source = request.inputs[0].path
        made = []
        for page in range(1, self.pages + 1):
            stem = source.stem if self.pages == 1 else f"{source.stem}-{page}"
            name = str(request.options.get("filename") or f"{stem}.{request.output_format}")
            path = request.output_dir / name
            path.write_bytes(source.read_bytes() + f"|{self.name}:{page}".encode())
            made.append(path)
        return EngineResult(files=made)


def _family(family: str, *args: object, **kwargs: object) -> _Writer:
    kind = type(f"{family}Writer", (_Writer,), {"__module__": f"mcv_pipelines.service.engines.{family}.x"})
    return kind(*args, **kwargs)  # type: ignore[no-any-return]  # a _Writer made under another module


def _request(tmp_path: Path, source: str, target: str, **options: object) -> EngineRequest:
    path = tmp_path / f"report.{source}"
    path.write_bytes(b"doc")
    (tmp_path / "out").mkdir()
    return EngineRequest("convert", source, target, options, [InputFile("in", path)], tmp_path / "out",
                         tmp_path / "work", timeout=30.0)  # fmt: skip


def _route_engine(*engines: _Writer) -> RouteEngine:
    routes = RouteEngine()
    routes.route_through(engines)  # type: ignore[arg-type]  # writers stand in for engines
    return routes


def _three_hops(pages: int = 3, fail: str = "") -> tuple[RouteEngine, _Writer, _Writer, _Writer]:
    office = _family("office", "libreoffice", [("docx", "pdf")], ("filename", "quality"))
    poppler = _family("pdf", "poppler", [("pdf", "png")], ("pages", "width"), pages=pages)
    pillow = _family("image", "pillow", [("png", "webp")], ("filename", "width", "quality"), fail=fail)
    return _route_engine(office, poppler, pillow), office, poppler, pillow


def test_every_page_becomes_a_picture_and_nothing_in_between_is_left(tmp_path: Path) -> None:
    routes, *_ = _three_hops()
    kind = next(k for k in routes.conversion_types() if (k.input_format, k.output_format) == ("docx", "webp"))
    assert kind.engine == "libreoffice+poppler+pillow"
    assert kind.meta["route"] == "docx -> pdf -> png -> webp"
    assert routes.version_of(kind) == "libreoffice-9+poppler-9+pillow-9"
    result = routes.run(_request(tmp_path, "docx", "webp"))
    assert sorted(path.name for path in result.files) == ["report-1.webp", "report-2.webp", "report-3.webp"]
    assert result.files[0].read_bytes() == b"doc|libreoffice:1|poppler:1|pillow:1"
    assert not [path for path in (tmp_path / "work").rglob("*") if path.is_file()]  # intermediates gone


def test_options_reach_their_hop_and_a_filename_is_numbered_per_page(tmp_path: Path) -> None:
    routes, office, poppler, pillow = _three_hops(pages=2)
    options = {"filename": "scan.webp", "width": 300, "pages": "1-2", "quality": 60}
    result = routes.run(_request(tmp_path, "docx", "webp", **options))
    assert sorted(path.name for path in result.files) == ["scan-1.webp", "scan-2.webp"]
    assert office.seen[0][0] == {}  # neither the picture's quality nor its name shape the PDF
    assert poppler.seen[0][0] == {"pages": "1-2"}  # not the width: the last hop sizes the picture
    shaping = {"width": 300, "quality": 60}
    assert [seen[0] for seen in pillow.seen] == [{"filename": "scan-1.webp", **shaping},
                                                 {"filename": "scan-2.webp", **shaping}]  # fmt: skip


def test_a_failing_hop_fails_the_task_naming_the_hop(tmp_path: Path) -> None:
    routes, *_ = _three_hops(fail="bad picture")
    with pytest.raises(EngineError) as failed:
        routes.run(_request(tmp_path, "docx", "webp"))
    assert failed.value.code == "CONVERSION_FAILED"
    assert failed.value.message == "hop 3 of 3 (pillow png -> webp): bad picture"


def test_the_hops_share_one_deadline_and_a_cancel(tmp_path: Path) -> None:
    routes, office, poppler, _ = _three_hops()
    request = _request(tmp_path, "docx", "webp")
    routes.run(request)
    first, second = office.seen[0][2], poppler.seen[0][2]
    assert first is not None
    assert second is not None
    assert second <= first <= 30.0
    request.cancelled = threading.Event()
    request.cancelled.set()
    with pytest.raises(EngineError, match="stopped"):
        routes.run(request)


def test_a_pair_without_a_route_is_refused(tmp_path: Path) -> None:
    routes, *_ = _three_hops()
    with pytest.raises(EngineError, match="no route from webp to docx"):
        routes.run(_request(tmp_path, "webp", "docx"))


def test_files_the_next_hop_does_not_take_go_to_the_output_as_they_are(tmp_path: Path) -> None:
    class _Mail(_Writer):
        def run(self, request: EngineRequest) -> EngineResult:
            printed = request.output_dir / "note.pdf"
            printed.write_bytes(b"%PDF pages")
            attached = request.output_dir / "invoice.eml"
            attached.write_bytes(b"From: a")
            return EngineResult(files=[printed, attached])

    mail = type("MailWriter", (_Mail,), {"__module__": "mcv_pipelines.service.engines.mail.x"})(
        "mail", [("msg", "pdf")]
    )
    poppler = _family("pdf", "poppler", [("pdf", "jpg")], pages=2)
    pillow = _family("image", "pillow", [("png", "jpg")])
    result = _route_engine(mail, poppler, pillow).run(_request(tmp_path, "msg", "jpg"))
    assert [path.name for path in result.files] == ["note-1.jpg", "note-2.jpg", "invoice.eml"]
    assert (tmp_path / "out" / "invoice.eml").read_bytes() == b"From: a"


def test_progress_runs_once_across_the_hops(tmp_path: Path) -> None:
    class _Reporting(_Writer):
        def run(self, request: EngineRequest) -> EngineResult:
            request.progress(50.0)
            done = super().run(request)
            request.progress(100.0)
            return done

    def reporting(family: str, *args: object, **kwargs: object) -> _Writer:
        kind = type(
            f"{family}Reporting", (_Reporting,), {"__module__": f"mcv_pipelines.service.engines.{family}.x"}
        )
        return kind(*args, **kwargs)  # type: ignore[no-any-return]  # a _Writer made under another module

    routes = _route_engine(
        reporting("office", "libreoffice", [("docx", "pdf")]),
        reporting("pdf", "poppler", [("pdf", "png")], pages=2),
        reporting("image", "pillow", [("png", "webp")]),
    )
    heard: list[float] = []
    request = _request(tmp_path, "docx", "webp")
    request.progress = heard.append
    routes.run(request)
    assert heard == sorted(heard)  # never backwards, across hops and pages
    assert heard[0] == pytest.approx(50 / 3)
    assert heard[-1] == pytest.approx(100.0)
    assert len(heard) == 2 + 2 + 4  # two reports per run: one document, one PDF, two pages


def test_a_file_beside_the_output_with_the_output_s_name_gets_a_free_one(tmp_path: Path) -> None:
    class _Mail(_Writer):
        def run(self, request: EngineRequest) -> EngineResult:
            printed = request.output_dir / "note.pdf"
            printed.write_bytes(b"%PDF pages")
            attached = request.output_dir / "note.jpg"  # the name the page picture will take
            attached.write_bytes(b"an attached photo")
            return EngineResult(files=[printed, attached])

    mail = type("MailWriter", (_Mail,), {"__module__": "mcv_pipelines.service.engines.mail.x"})(
        "mail", [("msg", "pdf")]
    )
    poppler = _family("pdf", "poppler", [("pdf", "jpg")])
    pillow = _family("image", "pillow", [("png", "jpg")])
    result = _route_engine(mail, poppler, pillow).run(_request(tmp_path, "msg", "jpg"))
    assert [path.name for path in result.files] == ["note.jpg", "note-1.jpg"]
    assert [path.read_bytes() for path in result.files] == [b"%PDF pages|poppler:1", b"an attached photo"]
