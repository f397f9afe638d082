"""Opening PDFs (and images as PDF pages) with pypdf, with errors a user understands."""

from __future__ import annotations

import io
from pathlib import Path

from pypdf import PasswordType, PdfReader

from mcv_pipelines.service.engines.base import EngineError, OptionSpec
from mcv_pipelines.service.engines.failures import INVALID_INPUT_FILE, library_errors
from mcv_pipelines.service.engines.image.image_io import load_image, save_pdf

__all__ = ["PASSWORD", "image_as_pdf", "is_pdf", "open_pdf"]

PASSWORD = OptionSpec(
    "password", "string", None, None, "Password of an encrypted PDF; output is not encrypted."
)


def is_pdf(path: Path) -> bool:
    """True when the file starts (within its first KiB, as readers allow) with a PDF header."""
    with path.open("rb") as handle:
        return b"%PDF-" in handle.read(1024)


def open_pdf(path: Path, password: str | None = None) -> PdfReader:
    """A reader with every page parsed, decrypted when needed; EngineError when the file is not a PDF."""
    with library_errors(f"read {path.name!r} as a PDF (corrupt, or not a PDF)", INVALID_INPUT_FILE):
        reader = PdfReader(path)
        if reader.is_encrypted and reader.decrypt(password or "") == PasswordType.NOT_DECRYPTED:
            hint = "the password is wrong" if password else "give its password in the option 'password'"
            raise EngineError(INVALID_INPUT_FILE, f"{path.name!r} is password-protected; {hint}")
        if len(reader.pages) == 0:
            raise EngineError(INVALID_INPUT_FILE, f"{path.name!r} has no pages")
        for page in reader.pages:
            page.get_contents()  # parse now, so a broken page fails here and not halfway through a write
    return reader


def image_as_pdf(path: Path) -> PdfReader:
    """An image file as a PDF (one page per frame, 1 pixel = 1 point), made with Pillow."""
    source = load_image(path, all_frames=True, auto_orient=True)
    buffer = io.BytesIO()
    save_pdf(source.frames, buffer, (255, 255, 255))
    buffer.seek(0)
    with library_errors(f"turn {path.name!r} into a PDF page"):
        return PdfReader(buffer)
