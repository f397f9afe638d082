"""Hostile fonts read nothing outside their task (issue 47), under bubblewrap and Landlock.

A TTX that declares the planted secrets external entities, or names them as a table's ``src`` (fontTools
would open that file); an sfd whose PickledData would run code copying the secrets when FontForge loads
it; a Type 1 font and a BDF that name the secrets in PostScript ``file`` operators and properties; a
TrueType font whose table directory claims tables of 2 GB. Each is refused with a clear error or converts
without the outside content, within seconds, and neither its output nor its error holds a secret.
"""

from __future__ import annotations

import pickle
import struct
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from planted_secrets import Planted
from test_hostile_files_see_only_their_task import (  # the planted secrets under both seals
    assert_nothing_out,
    convert,
    sealing,
    secrets,
)

from font_samples import BDF, SFD, TYPE1, box_ttf, ttx_text, type1_font
from mcv_pipelines.service.engines.base import Engine

__all__ = ["sealing", "secrets"]  # fixtures of the hostile suite, used here by name

RequireEngine = Callable[..., Engine]


def _task(target: str, engine: str) -> dict[str, str]:
    return {"operation": "convert", "output_format": target, "engine": engine}


def _paths(secrets: Planted) -> list[Path]:
    return [*secrets.text.values(), Path("/etc/passwd")]


def test_a_ttx_names_no_entity_and_no_other_file(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fonttools", "convert", "ttx", "ttf")
    plain = ttx_text()
    declared = "".join(f'<!ENTITY e{n} SYSTEM "{path.as_uri()}">' for n, path in enumerate(_paths(secrets)))
    used = "".join(f"&e{n};" for n in range(len(_paths(secrets))))
    entity = plain.replace("\n<ttFont", f"\n<!DOCTYPE ttFont [{declared}]>\n<ttFont", 1).replace(
        ">Quokka Sans<", f">Quokka {used}<", 1
    )
    sources = {
        "entity.ttx": entity,
        "absolute.ttx": plain.replace("<loca/>", f'<loca/><hdmx src="{secrets.text["tmp"]}"/>'),
        "relative.ttx": plain.replace("<loca/>", f'<loca/><hdmx src="{"../" * 12}etc/passwd"/>'),
    }
    outcomes = {
        name: convert(client, tmp_path / name, name, text.encode(), _task("ttf", "fonttools"))
        for name, text in sources.items()
    }
    assert_nothing_out(outcomes, secrets)
    assert outcomes["entity.ttx"].message == (
        "INVALID_INPUT_FILE: entity.ttx: a TTX with a document type declaration (entities) is not read"
    )
    for name in ("absolute.ttx", "relative.ttx"):
        assert (
            outcomes[name].message
            == f"INVALID_INPUT_FILE: {name}: a TTX whose <hdmx> names another file (src) is not read"
        )


class _Copy:
    """Unpickled, runs ``cp`` of the secrets into the task's folder (where FontForge would write)."""

    def __init__(self, paths: list[Path]) -> None:
        self.command = "cat " + " ".join(map(str, paths)) + " > output.sfd"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return (os.system, (self.command,))


# FontForge cannot make its temporary files under Landlock (tmpfile() writes /tmp), so it lists nothing
# there: its cases run under bubblewrap alone
@pytest.mark.parametrize("sealing", ["bwrap"], indirect=True)
def test_an_sfd_with_pickled_code_is_not_opened(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "sfd", "pfa")
    pickled = pickle.dumps(_Copy(_paths(secrets)), protocol=0).decode("latin-1")
    hostile = SFD.replace("Ascent: 800\n", f'Ascent: 800\nPickledData: "{pickled}"\n', 1)
    outcomes = {
        name: convert(client, tmp_path / name, name, hostile.encode(), _task(target, "fontforge"))
        for name, target in (("pickled.sfd", "ttf"), ("shouting.sfd", "pfa"))
    }
    disguised = hostile.replace("SplineFontDB", "%!PS-AdobeFont-1.0 SplineFontDB").encode()
    outcomes["disguised.pfa"] = convert(
        client, tmp_path / "pfa", "disguised.pfa", disguised, _task("ttf", "fontforge")
    )
    assert_nothing_out(outcomes, secrets)
    for name, outcome in outcomes.items():
        assert outcome.message == (
            f"INVALID_INPUT_FILE: {name} carries pickled Python data (PickledData), which FontForge would "
            "run as code: not read"
        )


# FontForge cannot make its temporary files under Landlock (tmpfile() writes /tmp), so it lists nothing
# there: its cases run under bubblewrap alone
@pytest.mark.parametrize("sealing", ["bwrap"], indirect=True)
def test_type1_and_bdf_naming_files_read_none(
    sealing: str,
    secrets: Planted,
    require_engine: RequireEngine,
    require_program: Callable[..., str],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    require_engine("fontforge", "convert", "pfa", "ttf")
    require_program("t1asm")
    reads = "".join(
        f"({path}) (r) file 100 string readstring pop /Notice exch def\n" for path in _paths(secrets)
    )
    disassembly = TYPE1.replace("/FontName /QuokkaSans def\n", f"/FontName /QuokkaSans def\n{reads}", 1)
    made = tmp_path / "reads.pfa"
    type1_font(binary=False, text=disassembly)(made)
    properties = "".join(f'COMMENT "{path}"\n' for path in _paths(secrets))
    bdf = BDF.replace(
        "STARTPROPERTIES 4\n", f'{properties}STARTPROPERTIES 5\nFONT_NAME_FILE "{secrets.text["tmp"]}"\n', 1
    )
    outcomes = {
        "reads.pfa": convert(
            client, tmp_path / "pfa", "reads.pfa", made.read_bytes(), _task("sfd", "fontforge")
        ),
        "names.bdf": convert(client, tmp_path / "bdf", "names.bdf", bdf.encode(), _task("ttf", "fontforge")),
    }
    assert_nothing_out(outcomes, secrets)
    if sealing == "bwrap":  # under Landlock FontForge cannot make its temporary files (it lists nothing)
        assert outcomes["names.bdf"].status == "finished", outcomes["names.bdf"].message


# FontForge cannot make its temporary files under Landlock (tmpfile() writes /tmp), so it lists nothing
# there: its cases run under bubblewrap alone
@pytest.mark.parametrize("sealing", ["bwrap"], indirect=True)
def test_a_font_claiming_huge_tables_fails_fast(
    secrets: Planted, require_engine: RequireEngine, client: httpx.Client, tmp_path: Path
) -> None:
    require_engine("fontforge", "convert", "ttf", "pfa")
    box_ttf(tmp_path / "box.ttf")
    data = bytearray((tmp_path / "box.ttf").read_bytes())
    tables = struct.unpack(">H", data[4:6])[0]
    for index in range(tables):  # every table's length in the directory says 2 GB
        struct.pack_into(">I", data, 12 + 16 * index + 12, 0x7FFFFFF0)
    started = time.monotonic()
    outcomes = {
        f"huge-{engine}.ttf": convert(
            client, tmp_path / engine, f"huge-{engine}.ttf", bytes(data), _task(target, engine)
        )
        for engine, target in (("fonttools", "woff"), ("fontforge", "pfa"))
    }
    assert time.monotonic() - started < 60
    assert_nothing_out(outcomes, secrets)
    assert outcomes["huge-fonttools.ttf"].message == (
        "INVALID_INPUT_FILE: huge-fonttools.ttf is a damaged font: unexpected end of 'head' table data: "
        "expected 2147483632 bytes but got 476 at offset 172"
    )
