"""The service's image, built from the repository as it is and run as an operator would (issue 38):
as the Compose file's `all` role, under podman's defaults, then hardened as Compose and Kubernetes run
it (a read-only root with tmpfs for the writable directories, every capability dropped, no new
privileges) under podman's seccomp profile and under Docker's. Each time it converts a png, a docx and
an html page over HTTP (upload forms and download links at its public URL), its engines run sealed, and
SIGTERM stops it within seconds.

Docker's profile is moby's own (moby-seccomp-default.json beside this file; its origin and licence in
moby-seccomp-default.NOTICE). It refuses namespaces to an unprivileged container, so bubblewrap and
`unshare` cannot seal there and the worker must seal with Landlock and seccomp.
"""

from __future__ import annotations

import json
import resource
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from image_build import BUILD_TIMEOUT, REPO, Built, built_image, require_podman

# A test's own bound (pyproject's `timeout`) would cut the wait for a cold build in the background.
pytestmark = [pytest.mark.image, pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT + 600)]

HERE = Path(__file__).resolve().parent
MOBY_PROFILE = HERE / "moby-seccomp-default.json"
ASSETS = REPO / "pipelines" / "assets"
HARDENED = ["--read-only", "--tmpfs", "/tmp", "--tmpfs", "/home/mcv:U", "--tmpfs", "/var/lib/mcv:U",
            "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]  # fmt: skip
PAGE = b"<!doctype html><html><body><h1>From the image</h1><p>An html page to pdf.</p></body></html>"


@pytest.fixture(scope="module")
def image() -> Built:
    require_podman()
    built = built_image()
    print(f"image {built.tag} ({built.image[:12]}), {built.size / 1e9:.2f} GB, {built.how}")
    return built


def free_port() -> int:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        port: int = listener.getsockname()[1]
        return port


def compose_all_role(public_url: str) -> list[str]:
    """The `all` service's command in deploy/docker-compose.yml, its public URL filled in."""
    compose = yaml.safe_load((REPO / "deploy" / "docker-compose.yml").read_text())
    command: list[str] = compose["services"]["all"]["command"]
    assert "${MCV_PUBLIC_URL:-http://localhost:8080}" in command
    return [public_url if "MCV_PUBLIC_URL" in word else word for word in command]


def machine_ulimits() -> list[str]:
    """`--ulimit` options within this machine's hard limits (issue 50).

    Rootful podman asks runc for 1,048,576 open files and 4,194,304 processes unless told otherwise.
    On a machine whose root lacks CAP_SYS_RESOURCE and whose hard limits are lower (CI's: 20,000 open
    files), every `podman run` then exits 126 with "error setting rlimits ... operation not permitted".
    The container gets this machine's own hard limits instead; processes are also bounded by pid_max,
    above which runc was refused there too (measured: 32,768 passes, 32,769 does not).
    """
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    processes = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    pid_max = int(Path("/proc/sys/kernel/pid_max").read_text())
    processes = pid_max if processes == resource.RLIM_INFINITY else min(processes, pid_max)
    files = 1_048_576 if files == resource.RLIM_INFINITY else min(files, 1_048_576)
    return ["--ulimit", f"nofile={files}:{files}", "--ulimit", f"nproc={processes}:{processes}"]


def podman(*argv: str, timeout: float = 60) -> str:
    done = subprocess.run(["podman", *argv], capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"podman {' '.join(argv)}: {done.stderr.strip()}"
    return done.stdout


class Container:
    """One run of the image, named for this test; removed (with its volume) whatever happens."""

    def __init__(self, image: Built, options: list[str]) -> None:
        self.name = f"mcv-image-test-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.key = uuid.uuid4().hex
        volume = [] if "--read-only" in options else ["-v", f"{self.name}:/var/lib/mcv"]
        podman("run", "-d", "--name", self.name, "-p", f"127.0.0.1:{self.port}:8080",
               "-e", f"MCV_SERVE_API_KEY={self.key}", *machine_ulimits(), *volume, *options,
               image.tag, *compose_all_role(self.url))  # fmt: skip
        self.volume = bool(volume)

    def logs(self) -> str:
        done = subprocess.run(["podman", "logs", self.name], capture_output=True, text=True, timeout=60)
        return done.stdout + done.stderr

    def running(self) -> bool:
        return podman("inspect", "--format", "{{.State.Running}}", self.name).strip() == "true"

    def remove(self) -> None:
        subprocess.run(["podman", "rm", "--force", "--time", "0", self.name], capture_output=True, timeout=60)
        if self.volume:
            subprocess.run(["podman", "volume", "rm", "--force", self.name], capture_output=True, timeout=60)


@pytest.fixture
def run_image(image: Built) -> Iterator[Any]:
    started: list[Container] = []

    def start(options: list[str]) -> Container:
        started.append(Container(image, options))
        return started[-1]

    yield start
    for container in started:
        container.remove()


def wait_ready(container: Container, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not container.running():
            pytest.fail(f"the container stopped before it was ready:\n{container.logs()[-4000:]}")
        try:
            if httpx.get(f"{container.url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(1)
    pytest.fail(f"/readyz did not answer 200 within {seconds} s:\n{container.logs()[-4000:]}")


def seal_of(logs: str) -> str:
    """The seal the banner's `engines:` line names: bwrap, landlock, unshare or none."""
    lines = [line.partition(":")[2].strip() for line in logs.splitlines() if line.startswith("engines:")]
    assert lines, f"no `engines:` line in the log:\n{logs[-4000:]}"
    starts = {"bubblewrap": "bwrap", "Landlock": "landlock", "unshare": "unshare", "NOT sealed": "none"}
    for start, method in starts.items():
        if lines[0].startswith(start):
            return method
    raise AssertionError(f"an `engines:` line of no known seal: {lines[0]}")


def convert_three(container: Container) -> dict[str, bytes]:
    """png -> webp, docx -> pdf, html -> pdf in one job, through upload forms and download links."""
    inputs = {"png": ("logo.png", (ASSETS / "logo.png").read_bytes(), "webp"),
              "docx": ("letter.docx", (ASSETS / "letter.docx").read_bytes(), "pdf"),
              "html": ("page.html", PAGE, "pdf")}  # fmt: skip
    tasks: dict[str, Any] = {}
    for name, (_, _, output) in inputs.items():
        tasks[f"in-{name}"] = {"operation": "import/upload"}
        tasks[f"to-{name}"] = {"operation": "convert", "input": f"in-{name}", "output_format": output}
    tasks["out"] = {"operation": "export/url", "input": [f"to-{name}" for name in inputs]}
    headers = {"Authorization": f"Bearer {container.key}"}
    with httpx.Client(base_url=container.url, headers=headers, timeout=180) as client:
        created = client.post("/v2/jobs", json={"tasks": tasks})
        assert created.status_code == 201, created.text
        job = created.json()["data"]
        for name, (filename, content, _) in inputs.items():
            (task,) = [task for task in job["tasks"] if task["name"] == f"in-{name}"]
            form = task["result"]["form"]
            assert form["url"].startswith(container.url), form["url"]  # MCV_PUBLIC_URL, not 127.0.0.1:8080
            sent = httpx.post(form["url"], data={k: str(v) for k, v in form["parameters"].items()},
                              files={"file": (filename, content)}, timeout=60)  # fmt: skip
            assert sent.status_code == 201, sent.text
        done = client.get(f"/sync/v2/jobs/{job['id']}").json()["data"]
    failed = {task["name"]: (task["code"], task["message"])
              for task in done["tasks"] if task["status"] != "finished"}  # fmt: skip
    assert done["status"] == "finished", f"{failed}\n{container.logs()[-4000:]}"
    (out,) = [task for task in done["tasks"] if task["name"] == "out"]
    files: dict[str, bytes] = {}
    for file in out["result"]["files"]:
        assert file["url"].startswith(container.url), file["url"]
        files[file["filename"]] = httpx.get(file["url"], timeout=60).content
    return files


def check_converted(files: dict[str, bytes]) -> None:
    by_kind = {name.rsplit(".", 1)[-1]: content for name, content in files.items()}
    assert sorted(name.rsplit(".", 1)[-1] for name in files) == ["pdf", "pdf", "webp"], sorted(files)
    assert (by_kind["webp"][:4], by_kind["webp"][8:12]) == (b"RIFF", b"WEBP")
    for name, content in files.items():
        if name.endswith(".pdf"):
            assert content.startswith(b"%PDF-"), name


def stop_with_sigterm(container: Container, within: float = 10) -> float:
    """Seconds from SIGTERM to the container's end; it must end by itself (exit 0), not be killed."""
    started = time.monotonic()
    podman("kill", "--signal", "TERM", container.name)
    ended = podman("wait", container.name, timeout=within + 30).strip()
    seconds = time.monotonic() - started
    assert ended == "0", f"exit {ended} after SIGTERM:\n{container.logs()[-4000:]}"
    assert seconds < within, f"SIGTERM took {seconds:.1f} s to stop it (at most {within} s)"
    return seconds


PACKAGE_FILES = """
import hashlib, json, pathlib, sys
root = pathlib.Path(sys.argv[1])
print(json.dumps({str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
                  for path in sorted(root.rglob("*.py")) if "__pycache__" not in path.parts}))
"""


def package_files(*python: str) -> dict[str, str]:
    """sha256 of each module of the package, by its path in the package, as ``python`` sees them."""
    locate = "import mcv_pipelines, pathlib; print(pathlib.Path(mcv_pipelines.__file__).parent)"
    root = subprocess.run([*python, "-c", locate], capture_output=True, text=True, timeout=120, check=True)
    done = subprocess.run([*python, "-c", PACKAGE_FILES, root.stdout.strip()], capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    files: dict[str, str] = json.loads(done.stdout)
    return files


def test_the_image_carries_the_package_of_this_tree(image: Built) -> None:
    """Every module as in src/ (podman once reused an old package's layer after a source change)."""
    inside = package_files("podman", "run", "--rm", *machine_ulimits(), "--entrypoint", "python3", image.tag)
    here = package_files(sys.executable)
    assert inside, "no module found in the image"
    differ = sorted({path for path in inside.keys() | here.keys() if inside.get(path) != here.get(path)})
    assert differ == [], f"modules of the image that are not this tree's: {differ}"


def test_the_image_converts_sealed_under_podmans_defaults(run_image: Any) -> None:
    container = run_image([])
    wait_ready(container)
    check_converted(convert_three(container))
    seal = seal_of(container.logs())
    assert seal != "none", container.logs()[-4000:]
    seconds = stop_with_sigterm(container)
    print(f"podman's defaults: sealed by {seal}; SIGTERM stopped it in {seconds:.1f} s")


def test_the_image_converts_sealed_by_landlock_hardened_under_dockers_seccomp_profile(run_image: Any) -> None:
    container = run_image([*HARDENED, "--security-opt", f"seccomp={MOBY_PROFILE}"])
    wait_ready(container)
    check_converted(convert_three(container))
    assert seal_of(container.logs()) == "landlock", container.logs()[-4000:]
    seconds = stop_with_sigterm(container)
    print(f"hardened, Docker's seccomp profile: sealed by landlock; SIGTERM stopped it in {seconds:.1f} s")


def test_the_image_converts_sealed_hardened_under_podmans_default_profile(run_image: Any) -> None:
    """The hardened options alone (as Compose and Kubernetes run it), with the runtime's own seccomp
    profile: a read-only root must not cost a conversion (fc-match's warnings once did) nor the seal."""
    container = run_image(HARDENED)
    wait_ready(container)
    check_converted(convert_three(container))
    seal = seal_of(container.logs())
    assert seal != "none", container.logs()[-4000:]
    seconds = stop_with_sigterm(container)
    print(f"hardened, podman's default profile: sealed by {seal}; SIGTERM stopped it in {seconds:.1f} s")
