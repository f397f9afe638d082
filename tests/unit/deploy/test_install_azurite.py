"""scripts/install-azurite.sh installs the Azurite version tests/azurite.py looks for, where it looks."""

from __future__ import annotations

import re
from pathlib import Path

import azurite

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "install-azurite.sh"


def test_the_script_installs_the_version_the_tests_start() -> None:
    text = SCRIPT.read_text()
    found = re.search(r"^AZURITE_VERSION=(\S+)", text, re.MULTILINE)
    assert found is not None
    assert found.group(1) == azurite.AZURITE_VERSION
    assert "mcv-pipelines/azurite" in text  # platformdirs' user cache on Linux, as tests/azurite.py
