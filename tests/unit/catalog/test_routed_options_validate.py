"""`mcv validate` knows routed pairs from the bundled catalog: their options are checked as any
pair's, so a JPEG quality for docx to jpg (whose last hop, the page renderer, takes none) is refused
offline, while docx to webp takes it. The catalog is the committed snapshot of the local listing."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.cli import main as cli

_PIPELINE = """\
version: 1
tasks:
  letter:
    operation: import/upload
    upload_from: letter.docx
  pages:
    operation: convert
    input: letter
    output_format: {target}
    width: 640
    quality: 80
"""


@pytest.mark.parametrize(("target", "code"), [("webp", 0), ("jpg", 2)])
def test_a_routed_pair_takes_the_options_its_hops_take(
    target: str, code: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "letter.docx").write_bytes(b"PK")
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(_PIPELINE.format(target=target), encoding="utf-8")
    assert cli.main(["validate", str(pipeline)]) == code
    out = capsys.readouterr()
    if code:
        assert "unknown option 'quality' for convert docx -> jpg (libreoffice+poppler)" in out.out + out.err
