"""`mcv serve` where namespaces are refused (issue 37, issue 38): under a filter like a container
runtime's default seccomp profile (no unshare, setns or mount, no clone into a new namespace), bubblewrap
cannot start; the service starts all the same, sealed by Landlock and seccomp, says so, and converts."""

from __future__ import annotations

import base64
import os
import platform
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from test_serve_command import SCRIPT

from engine_needs import require_engine, unavailable
from mcv_pipelines.service.engines.landlock import rules as landlock_rules
from mcv_pipelines.service.engines.landlock import ruleset, seccomp
from mcv_pipelines.service.engines.seal import FORCE_VARIABLE

ASSETS = Path(__file__).resolve().parents[3] / "pipelines" / "assets"
_LD, _JEQ, _JSET, _RET = 0x20, 0x15, 0x45, 0x06
_ALLOW, _EPERM, _ENOSYS = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
_NEW_NAMESPACES = 0x7E020000  # CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
# x86_64: unshare, setns, mount, pivot_root refused; clone3 "not implemented" (glibc falls back to clone)
_REFUSED, _CLONE, _CLONE3 = (272, 308, 165, 155), 56, 435

WRAPPER = (
    "import os, sys\n"
    "from mcv_pipelines.service.engines.landlock import seccomp\n"
    "seccomp.install(bytes.fromhex(sys.argv[1]))\n"
    "os.execv(sys.executable, [sys.executable, '-c', *sys.argv[2:]])\n"
)


def container_profile() -> bytes:
    """The namespace part of a runtime's default profile, for an unprivileged container."""
    lines: list[tuple[int, int, str | int, str | int] | str] = [
        (_LD, 4, 0, 0),
        (_JEQ, seccomp.ARCHES["x86_64"].audit, 0, "allow"),
        (_LD, 0, 0, 0),
        *((_JEQ, number, "eperm", 0) for number in _REFUSED),
        (_JEQ, _CLONE3, "enosys", 0),
        (_JEQ, _CLONE, 0, "allow"),
        (_LD, 16, 0, 0),
        (_JSET, _NEW_NAMESPACES, "eperm", "allow"),
        "eperm",
        (_RET, _EPERM, 0, 0),
        "enosys",
        (_RET, _ENOSYS, 0, 0),
        "allow",
        (_RET, _ALLOW, 0, 0),
    ]
    return seccomp.assemble(lines)


def test_a_service_under_a_container_profile_serves_sealed_by_landlock(tmp_path: Path) -> None:
    if platform.machine() != "x86_64":
        unavailable("the container profile here is written for x86_64")
    if not landlock_rules.available():
        unavailable(f"Landlock (ABI {ruleset.abi()}) or seccomp cannot be set on this machine")
    require_engine("imagemagick")
    env = {name: value for name, value in os.environ.items() if name != FORCE_VARIABLE}
    command = [sys.executable, "-c", WRAPPER, container_profile().hex(), SCRIPT,
               "serve", "--port", "0", "--data-dir", str(tmp_path)]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    with child:
        assert child.stdout is not None
        lines: dict[str, str] = {}
        for line in child.stdout:
            if line.startswith("serving"):
                break
            label, _, value = line.partition(":")
            lines[label.strip()] = value.strip()
        try:
            assert lines["engines"].startswith(f"Landlock ABI {ruleset.abi()}"), lines
            assert "seccomp" in lines["engines"]
            if Path("/usr/bin/bwrap").exists():
                assert "bubblewrap is installed but blocked" in lines["engines"]
            converted = convert(lines["base URL"], lines["API key"], tmp_path)
        finally:
            child.send_signal(signal.SIGINT)
            child.communicate(timeout=60)
    assert child.returncode == 0
    assert converted[:4] == b"RIFF"


def convert(base: str, key: str, tmp_path: Path) -> bytes:
    """A png to webp through the service's ImageMagick command, downloaded."""
    logo = base64.b64encode((ASSETS / "logo.png").read_bytes()).decode()
    tasks = {
        "logo": {"operation": "import/base64", "file": logo, "filename": "logo.png"},
        "convert": {
            "operation": "command", "input": "logo", "engine": "imagemagick", "command": "convert",
            "arguments": "/input/logo/logo.png /output/logo.webp",
        },
        "export": {"operation": "export/url", "input": "convert"},
    }  # fmt: skip
    with httpx.Client(base_url=base, timeout=120, headers={"Authorization": f"Bearer {key}"}) as client:
        created = client.post("/v2/jobs", json={"tasks": tasks})
        assert created.status_code == 201, created.text
        ended = client.get(f"/sync/v2/jobs/{created.json()['data']['id']}").json()["data"]
        assert ended["status"] == "finished", ended
        (export,) = [task for task in ended["tasks"] if task["name"] == "export"]
        (item,) = export["result"]["files"]
        return httpx.get(item["url"], timeout=60).content
