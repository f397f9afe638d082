"""The fonts family's pure logic: what fontTools and FontForge are given to read, and what they list."""

from __future__ import annotations

from pathlib import Path

import pytest
from fontTools.ttLib import TTCollection, TTFont

from font_samples import SFD, box_ttf, ttx_text
from mcv_pipelines.service.engines.base import EngineError, EngineRequest, InputFile
from mcv_pipelines.service.engines.font import fontforge, ttx_guard
from mcv_pipelines.service.engines.font.fontforge_input import check_fontforge_input
from mcv_pipelines.service.engines.font.fonttools_engine import FontEngine
from mcv_pipelines.service.engines.seal import FORCE_VARIABLE


def _refusal(path: Path) -> str:
    with pytest.raises(EngineError) as caught:
        ttx_guard.read_ttx(path)
    assert caught.value.code == "INVALID_INPUT_FILE"
    return caught.value.message


def test_a_hand_written_ttx_is_read(tmp_path: Path) -> None:
    (tmp_path / "hand.ttx").write_text(ttx_text())
    font = ttx_guard.read_ttx(tmp_path / "hand.ttx")
    assert font.getGlyphOrder() == [".notdef", "Q"]
    assert font["name"].getDebugName(1) == "Quokka Sans"


def test_a_ttx_with_entities_another_file_or_too_many_bytes_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = ttx_text()
    cases = {
        "internal.ttx": text.replace("\n<ttFont", '\n<!DOCTYPE ttFont [<!ENTITY a "aaaa">]>\n<ttFont', 1),
        "src.ttx": text.replace("<loca/>", '<loca/><hdmx src="other.ttx"/>'),
        "broken.ttx": text[:-20],
    }
    for name, content in cases.items():
        (tmp_path / name).write_text(content)
    assert _refusal(tmp_path / "internal.ttx") == (
        "internal.ttx: a TTX with a document type declaration (entities) is not read"
    )
    assert (
        _refusal(tmp_path / "src.ttx") == "src.ttx: a TTX whose <hdmx> names another file (src) is not read"
    )
    assert _refusal(tmp_path / "broken.ttx").startswith("broken.ttx is not well-formed XML: ")
    monkeypatch.setattr(ttx_guard, "MAX_TTX_BYTES", 1024 * 1024)
    (tmp_path / "big.ttx").write_bytes(b" " * (1024 * 1024 + 1))
    assert _refusal(tmp_path / "big.ttx") == "big.ttx is larger than 1 MB, too large a TTX"


def test_fontforge_opens_only_its_format_without_pickles(tmp_path: Path) -> None:
    (tmp_path / "good.sfd").write_text(SFD)
    check_fontforge_input(tmp_path / "good.sfd", "sfd", "good.sfd")
    (tmp_path / "pickle.sfd").write_text(SFD.replace("Ascent: 800\n", 'Ascent: 800\npickleddata: "x"\n'))
    with pytest.raises(EngineError, match=r"carries pickled Python data \(PickledData\)"):
        check_fontforge_input(tmp_path / "pickle.sfd", "sfd", "pickle.sfd")
    with pytest.raises(EngineError, match=r"^good.pfb is not a pfb font"):
        check_fontforge_input(tmp_path / "good.sfd", "pfb", "good.pfb")


def test_fontforge_lists_what_fonttools_does_not() -> None:
    pairs = fontforge._pairs()
    sfnt = {"ttf", "otf", "woff", "woff2"}
    assert not [(s, t) for s, targets in pairs.items() for t in targets if s in sfnt and t in sfnt]
    assert pairs["bdf"] == ("ttf",)
    assert pairs["pcf"] == ("ttf", "bdf")
    assert set(pairs["pfb"]) == {"pfa", "sfd", "t42", "ttf", "otf", "woff", "woff2", "dfont"}
    assert "cff" in pairs
    assert not [source for source, targets in pairs.items() if "cff" in targets]  # read, never written


def test_fontforge_is_not_listed_under_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FORCE_VARIABLE, "landlock")
    assert fontforge.FontForgeEngine().version() is None


def _collection(tmp_path: Path) -> Path:
    fonts = []
    for family in ("Quokka Sans", "Quokka Mono"):
        box_ttf(tmp_path / f"{family}.ttf", family)
        fonts.append(TTFont(tmp_path / f"{family}.ttf"))
    collection = TTCollection()
    collection.fonts = fonts
    collection.save(tmp_path / "pair.ttc")
    return tmp_path / "pair.ttc"


def _request(tmp_path: Path, source: Path, target: str, **options: object) -> EngineRequest:
    return EngineRequest(
        "convert", "ttc", target, options, [InputFile("in", source)], tmp_path / "out", tmp_path / "work"
    )


def test_a_collection_gives_every_member_or_the_one_asked_for(tmp_path: Path) -> None:
    source = _collection(tmp_path)
    (tmp_path / "out").mkdir()
    every = FontEngine().run(_request(tmp_path, source, "ttf"))
    assert [path.name for path in every.files] == ["pair-1.ttf", "pair-2.ttf"]
    second = FontEngine().run(_request(tmp_path, source, "ttx", font_number=2, filename="mono.ttx"))
    assert "Quokka Mono" in second.files[0].read_text()
    with pytest.raises(EngineError) as caught:
        FontEngine().run(_request(tmp_path, source, "otf", font_number=3))
    assert (caught.value.code, caught.value.message) == (
        "INVALID_OPTION",
        "option 'font_number' must be an integer between 1 and 2, got 3",
    )
