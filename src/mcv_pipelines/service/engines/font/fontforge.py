"""Type 1 (pfa, pfb), Type 42 (t42), FontForge's sfd, bare CFF (read), the bitmap fonts bdf and pcf,
and Mac dfont (written), with FontForge (``fontforge -lang=py``, run sealed with a script of ours:
fontforge_script.py).

Outline fonts (pfa, pfb, sfd, t42, cff, and ttf/otf/woff/woff2 as sources) go to one another and to ttf,
otf, woff, woff2 and dfont; the pairs among ttf/otf/woff/woff2 stay fontTools' (in-process, faster),
which this engine does not list. Bitmap fonts (bdf, pcf) keep their strikes: to a ttf with embedded
bitmaps (EBDT/EBLC, what current systems read as a bitmap font), and pcf to bdf; an outline format from a
bitmap font would hold no outlines and is not listed. The input is copied alone into a folder of its
own first, so FontForge finds nothing beside it (a pfb's .afm metrics, an sfd's neighbours), and must
start as its format does and carry no pickled Python (fontforge_input.py: FontForge unpickles an sfd's
PickledData, which runs code). Not listed under the Landlock seal (see ``version``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import ConversionType, EngineError, EngineRequest, EngineResult
from mcv_pipelines.service.engines.environment import program_environment
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.font.fontforge_input import check_fontforge_input
from mcv_pipelines.service.engines.font.fontforge_script import FONTFORGE_SCRIPT
from mcv_pipelines.service.engines.naming import output_path
from mcv_pipelines.service.engines.options import FILENAME
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.seal import seal_method
from mcv_pipelines.service.engines.vector.isolate import isolated_input

__all__ = ["FontForgeEngine"]

_OWN = ("pfa", "pfb", "sfd", "t42")  # the outline formats only FontForge reads here
_SFNT = ("ttf", "otf", "woff", "woff2")  # fontTools converts these among themselves
_OUTLINE_OUTPUTS = (*_OWN, *_SFNT, "dfont")
# a bare CFF font (as PDFs embed them): read, not written (FontForge writes it wrapped in PostScript)
_READ_ONLY = ("cff",)
_BITMAP_OUTPUTS = {"bdf": ("ttf",), "pcf": ("ttf", "bdf")}


def _pairs() -> dict[str, tuple[str, ...]]:
    pairs = {
        source: tuple(t for t in _OUTLINE_OUTPUTS if t != source and not (source in _SFNT and t in _SFNT))
        for source in (*_OWN, *_SFNT, *_READ_ONLY)
    }
    return {**pairs, **_BITMAP_OUTPUTS}


class FontForgeEngine(ProgramEngine):
    name = "fontforge"
    programs = ("fontforge",)
    version_args = ("-lang=py", "-c", "import fontforge; print('fontforge', fontforge.version())")
    version_pattern = r"fontforge (\d+)"

    def version(self) -> str | None:
        # FontForge keeps what it reads in temporary files made by the C library's tmpfile(), which
        # always go to /tmp, whatever TMPDIR says; the Landlock seal keeps the machine's /tmp out of
        # reach (bubblewrap gives a private one), so there nearly every conversion fails: none is listed.
        if seal_method() == "landlock":
            return None
        return self._version

    def conversion_types(self) -> Iterable[ConversionType]:
        return [
            pair
            for source, targets in _pairs().items()
            for pair in self.convert_pairs((source,), targets, (FILENAME,))
        ]

    def run(self, request: EngineRequest) -> EngineResult:
        source, target_format = request.input_format, request.output_format
        if (
            request.operation != "convert"
            or target_format not in _pairs().get(source, ())
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION, f"fontforge does not convert {source} to {target_format}"
            )
        copy = isolated_input(request, "fontforge")
        check_fontforge_input(copy, source, request.inputs[0].path.name)
        written = copy.parent / f"output.{target_format}"
        home = request.work_dir / "fontforge-home"  # FontForge writes its preferences and plugin list there
        home.mkdir(parents=True, exist_ok=True)
        run_checked(
            [
                self.program,
                "-quiet",
                "-lang=py",
                "-c",
                FONTFORGE_SCRIPT,
                copy.name,
                target_format,
                written.name,
            ],
            what=f"converting {request.inputs[0].path.name} with FontForge",
            cwd=copy.parent,
            env=program_environment({"HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}),
            writable=(home,),
            timeout=request.timeout,
            cancelled=request.cancelled,
        )
        if not written.is_file() or written.stat().st_size == 0:
            raise EngineError(
                CONVERSION_FAILED, f"FontForge wrote no {target_format} of {request.inputs[0].path.name}"
            )
        target = output_path(request, target_format)
        shutil.move(written, target)
        return EngineResult(files=[target])
