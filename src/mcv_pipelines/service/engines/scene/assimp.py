"""convert between 3D model formats with Assimp's ``assimp export IN OUT -f<exporter>``.

The input is copied alone into a fresh directory, its references to other files defused
(references.py), the export writes there, confined (confine.py),
and the one output file is moved to the task's output directory (a glTF's buffers embedded first).
3MF is written from an OBJ of the model (formats.THROUGH_OBJ), two runs of the program; X3D has the
node names Assimp leaves unescaped escaped afterwards (x3d_names.py).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable

from mcv_pipelines.service.engines.base import (
    ConversionType,
    EngineError,
    EngineRequest,
    EngineResult,
    OptionSpec,
)
from mcv_pipelines.service.engines.failures import CONVERSION_FAILED, UNSUPPORTED_CONVERSION
from mcv_pipelines.service.engines.naming import output_path, single_input
from mcv_pipelines.service.engines.options import FILENAME, bool_option
from mcv_pipelines.service.engines.process import run_checked
from mcv_pipelines.service.engines.program_engine import ProgramEngine
from mcv_pipelines.service.engines.scene.confine import confined, program_env, program_prefix
from mcv_pipelines.service.engines.scene.formats import EXPORTERS, READERS, THROUGH_OBJ, TRIANGLES_ONLY
from mcv_pipelines.service.engines.scene.gltf_embed import embed_side_files
from mcv_pipelines.service.engines.scene.references import defuse_references
from mcv_pipelines.service.engines.scene.x3d_names import escape_x3d_names

__all__ = ["AssimpEngine"]

_OPTIONS = (
    FILENAME,
    OptionSpec(
        "triangulate",
        "boolean",
        False,
        None,
        "Split polygons into triangles (always for stl, 3mf, glb, gltf and 3ds: they hold only triangles)",
    ),
)


class AssimpEngine(ProgramEngine):
    name = "assimp"
    programs = ("assimp",)
    version_args = ("version",)
    version_pattern = r"Version (\d+(?:\.\d+)+)"

    def conversion_types(self) -> Iterable[ConversionType]:
        return self.convert_pairs(READERS, EXPORTERS, _OPTIONS, keep=lambda source, target: source != target)

    def run(self, request: EngineRequest) -> EngineResult:
        exporter = EXPORTERS.get(request.output_format)
        if (
            request.operation != "convert"
            or request.input_format not in READERS
            or exporter is None
            or self.program is None
        ):
            raise EngineError(
                UNSUPPORTED_CONVERSION,
                f"assimp does not {request.operation} {request.input_format} to {request.output_format}",
            )
        source = single_input(request)
        triangulate = bool_option(request.options, "triangulate", False)
        alone = request.work_dir / "assimp"
        shutil.rmtree(alone, ignore_errors=True)
        alone.mkdir(parents=True)
        model = alone / f"model.{request.input_format}"
        shutil.copyfile(source, model)
        defuse_references(model, request.input_format)
        made = alone / f"converted.{request.output_format}"
        triangles = triangulate or request.output_format in TRIANGLES_ONLY
        steps = [(model, made, exporter)]
        if request.output_format in THROUGH_OBJ:
            between = alone / "between.obj"
            steps = [(model, between, EXPORTERS["obj"]), (between, made, exporter)]
        prefix = program_prefix(self.program)
        with confined(keep=() if prefix is None else (prefix,)):
            for read, write, writer in steps:
                argv = [
                    self.program,
                    "export",
                    read.name,
                    write.name,
                    f"-f{writer}",
                    *(["-tri"] if triangles else []),
                ]
                run_checked(
                    argv,
                    what=f"converting {source.name} with assimp",
                    cwd=alone,
                    env=program_env(alone),
                    timeout=request.timeout,
                    cancelled=request.cancelled,
                )
        if not made.is_file() or made.stat().st_size == 0:
            wanted = request.output_format
            raise EngineError(CONVERSION_FAILED, f"assimp wrote no {wanted} file of {source.name}")
        if request.output_format == "gltf":
            embed_side_files(made, set(alone.iterdir()) - {model, made})
        elif request.output_format == "x3d":
            escape_x3d_names(made)
        target = output_path(request, request.output_format)
        shutil.move(made, target)
        return EngineResult(files=[target])
