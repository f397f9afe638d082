"""scripts/install-engines.sh keeps one list of engines for the image and CI, and the packages only
the test suite needs apart (issue 38: they were 830 MB of a 3.21 GB image)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "install-engines.sh"
TEST_ONLY = {"chromium", "postgresql", "zsh", "fish", "nodejs", "npm", "openssl", "podman", "debootstrap"}


def listed(*flags: str) -> list[str]:
    done = subprocess.run(
        ["bash", str(SCRIPT), *flags, "--list"], capture_output=True, text=True, check=True, timeout=30
    )
    return done.stdout.split()


def test_the_runtime_list_has_the_engines_and_nothing_only_tests_need() -> None:
    runtime = listed("--runtime")
    assert not TEST_ONLY & set(runtime)
    assert {"ffmpeg", "libreoffice-writer-nogui", "python3-uno", "chromium-headless-shell", "bubblewrap",
            "fonts-dejavu-core", "fontconfig"} <= set(runtime)  # fmt: skip


def test_ci_installs_the_runtime_list_and_the_test_only_packages() -> None:
    everything = listed()
    assert everything[: len(listed("--runtime"))] == listed("--runtime")
    assert {"chromium", "postgresql", "zsh", "fish", "openssl"} <= set(everything)


def test_an_unknown_option_is_refused() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--runtim"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "unknown option --runtim" in done.stderr
