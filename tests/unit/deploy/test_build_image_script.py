"""scripts/build-image.sh names an image by what it is built from (issue 38): a run on an unchanged tree
reuses the image, a change to any file the Dockerfile can copy builds a new one, and files the build
context leaves out (caches, egg-info, anything not let in) change nothing. Checked offline on a small
tree of its own: --print-tag needs no podman."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "build-image.sh"
IGNORE = "*\n!pyproject.toml\n!src/\n!deploy/entrypoint.sh\n**/__pycache__\n**/*.egg-info\n"


def tree(root: Path) -> Path:
    (root / "scripts").mkdir(parents=True)
    shutil.copy(SCRIPT, root / "scripts" / "build-image.sh")
    (root / "deploy").mkdir()
    (root / "deploy" / "Dockerfile").write_text("ARG BASE=debian:bookworm-20261123\nFROM ${BASE}\n")
    (root / "deploy" / "Dockerfile.dockerignore").write_text(IGNORE)
    (root / "deploy" / "entrypoint.sh").write_text("#!/bin/sh\n")
    (root / "pyproject.toml").write_text("[project]\n")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "module.py").write_text("A = 1\n")
    return root


def tag(root: Path) -> str:
    done = subprocess.run(["bash", str(root / "scripts" / "build-image.sh"), "--print-tag"],
                          capture_output=True, text=True, check=True, timeout=60)  # fmt: skip
    return done.stdout.strip()


def test_the_tag_follows_the_files_the_image_is_built_from(tmp_path: Path) -> None:
    root = tree(tmp_path)
    first = tag(root)
    assert first.startswith("mcv-pipelines:tree-")
    assert tag(root) == first  # nothing changed: the same image, not built again
    (root / "src" / "pkg" / "__pycache__").mkdir()
    (root / "src" / "pkg" / "__pycache__" / "module.cpython-311.pyc").write_bytes(b"\0")
    (root / "src" / "pkg.egg-info").mkdir()
    (root / "src" / "pkg.egg-info" / "PKG-INFO").write_text("Name: pkg\n")
    (root / "notes.md").write_text("not in the build context\n")
    assert tag(root) == first
    seen = {first}
    changes = [
        ("src/pkg/module.py", "A = 2\n"),
        ("src/pkg/new.py", ""),
        ("deploy/entrypoint.sh", "#!/bin/sh\nexec mcv\n"),
        ("pyproject.toml", "[project]\n#\n"),
        ("deploy/Dockerfile", "ARG BASE=debian:bookworm-20261123\nFROM ${BASE}\nUSER 1\n"),
    ]
    for path, text in changes:
        (root / path).write_text(text)
        changed = tag(root)
        assert changed not in seen, f"{path} changed, the tag did not"
        seen.add(changed)
    (root / "src" / "pkg" / "new.py").rename(root / "src" / "pkg" / "renamed.py")
    assert tag(root) not in seen  # the same content under another name is another tree


def test_an_unknown_option_is_refused() -> None:
    done = subprocess.run(["bash", str(SCRIPT), "--prnt-tag"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown option --prnt-tag" in done.stderr
