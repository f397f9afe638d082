from __future__ import annotations

import pytest

from mcv_pipelines.service.http.faults import Faults, parse_faults


def test_parse_full_spec() -> None:
    assert parse_faults("429=0.1,503=0.05,drop=0.02,delay=0.2:0.5,seed=7") == Faults(
        {429: 0.1, 503: 0.05}, 0.02, 0.2, 0.5, 7
    )


@pytest.mark.parametrize("spec", ["teapot=1", "429=lots", "418=0.1", "429=0.9,500=0.2"])
def test_bad_specs_are_refused_with_a_hint(spec: str) -> None:
    with pytest.raises(ValueError, match=r"bad fault|more than 1"):
        parse_faults(spec)


def test_drop_after_is_its_own_share() -> None:
    assert parse_faults("drop_after=0.5,seed=2") == Faults(drop_after=0.5, seed=2)
    with pytest.raises(ValueError, match="more than 1"):
        parse_faults("drop=0.6,drop_after=0.6")


def test_files_delay_slows_download_links_only() -> None:
    assert parse_faults("files_delay=0.25") == Faults(files_delay=0.25)
    with pytest.raises(ValueError, match="files_delay=seconds"):
        parse_faults("files_delay=slow")
