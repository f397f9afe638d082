"""A DjVu document made with djvulibre's encoders (cjb2 for a bilevel page, c44 for a colour one,
djvm to bundle them, djvused to give the first page a hidden text layer), from pages Pillow draws:
programs other than ddjvu and djvutxt, which the djvulibre engine runs. Used by the pages tests and
by bench/formats.py's samples."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

__all__ = ["djvu_document"]


def _run(*argv: str, cwd: Path) -> None:
    subprocess.run(argv, cwd=cwd, check=True, capture_output=True, timeout=60)


def djvu_document(target: Path, words: list[str], dpi: int = 100) -> Path:
    """A bundled DjVu of one 400x300 page per word (odd pages bilevel, even pages colour), each
    page's word in its hidden text layer; ``target``."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pages = []
        for number, word in enumerate(words, start=1):
            image = Image.new("RGB", (400, 300), "white")
            draw = ImageDraw.Draw(image)
            draw.rectangle(
                (20, 20, 20 + 30 * number, 100), fill=(29, 78, 216) if number % 2 == 0 else "black"
            )
            draw.text((30, 150), f"{word} page {number}", fill="black")
            page = f"p{number}.djvu"
            if number % 2:
                image.convert("1").save(work / f"p{number}.pbm")
                _run("cjb2", "-dpi", str(dpi), f"p{number}.pbm", page, cwd=work)
            else:
                image.save(work / f"p{number}.ppm")
                _run("c44", "-dpi", str(dpi), f"p{number}.ppm", page, cwd=work)
            (work / f"p{number}.txt").write_text(f'(page 0 0 400 300 (word 30 140 160 160 "{word}"))\n')
            _run("djvused", "-s", page, "-e", f"select 1; set-txt p{number}.txt", cwd=work)
            pages.append(page)
        _run("djvm", "-c", "document.djvu", *pages, cwd=work)
        target.write_bytes((work / "document.djvu").read_bytes())
    return target
