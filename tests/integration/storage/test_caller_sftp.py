"""import/sftp and export/sftp on the local service against OpenSSH's sshd on loopback: password and
key logins, one file and a directory both ways, paths relative to the login directory, the host key's
fingerprint in the result, pinned keys, errors, and the guard of a served instance."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from caller_jobs import run_job
from mcv_pipelines.cli.main import main
from mcv_pipelines.service.engines.image.pillow import PillowEngine
from mcv_pipelines.service.engines.url_guard import UrlGuard
from mcv_pipelines.service.server import LocalService
from sshd import SftpServer

REPO = Path(__file__).resolve().parents[3]


def start(tmp_path: Path, **settings: Any) -> LocalService:
    return LocalService(data_dir=tmp_path / f"data-{secrets.token_hex(3)}", engines=[], settings=settings)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[LocalService]:
    with start(tmp_path, caller_storage_retry=1.0) as svc:
        yield svc


def login(sshd: SftpServer, by: str = "password", **extra: Any) -> dict[str, Any]:
    secret = (
        {"password": sshd.password}
        if by == "password"
        else {"private_key": sshd.client_key.export_private_key().decode()}
    )
    return {"host": "127.0.0.1", "port": sshd.port, "username": sshd.user, **secret, **extra}


@pytest.fixture
def folder(sshd: SftpServer) -> str:
    """A fresh directory in the user's home, named relative to it."""
    name = f"t-{secrets.token_hex(3)}"
    (sshd.home / name).mkdir()
    sshd.give_home()
    return name


def seed(sshd: SftpServer, files: dict[str, bytes]) -> None:
    for name, body in files.items():
        (sshd.home / name).parent.mkdir(parents=True, exist_ok=True)
        (sshd.home / name).write_bytes(body)
    sshd.give_home()


def test_files_come_in_and_go_out_with_password_and_key_logins(
    sshd: SftpServer, service: LocalService, folder: str
) -> None:
    seed(sshd, {f"{folder}/in/a.txt": b"alpha", f"{folder}/in/b.txt": b"beta", f"{folder}/decoy.txt": b"no"})
    tasks = run_job(
        service,
        {
            "in": {"operation": "import/sftp", **login(sshd, port=str(sshd.port)), "path": f"{folder}/in"},
            "out": {
                "operation": "export/sftp",
                "input": "in",
                **login(sshd, by="key"),
                "path": f"{folder}/out",
            },
            "one": {
                "operation": "export/sftp",
                "input": "in",
                **login(sshd),
                "file": f"{folder}/page-%d.txt",
            },
        },
    )
    for name in ("in", "out", "one"):
        assert tasks[name]["status"] == "finished", tasks[name]["message"]
        assert tasks[name]["result"]["host_key"] == sshd.fingerprint
    assert [f["filename"] for f in tasks["in"]["result"]["files"]] == ["a.txt", "b.txt"]
    assert (sshd.home / folder / "out" / "a.txt").read_bytes() == b"alpha"
    assert (sshd.home / folder / "out" / "b.txt").read_bytes() == b"beta"
    assert (sshd.home / folder / "page-2.txt").read_bytes() == b"beta"
    assert sorted(p.name for p in (sshd.home / folder / "out").iterdir()) == ["a.txt", "b.txt"]  # no partials
    port = sshd.port
    assert tasks["out"]["result"]["files"][0]["location"] == f"sftp://127.0.0.1:{port}/{folder}/out/a.txt"
    for task in tasks.values():
        assert "password" not in task["payload"]
        assert "private_key" not in task["payload"]


@pytest.mark.parametrize(
    ("kind", "form"), [("ecdsa", "openssh"), ("ecdsa", "pkcs8-pem"), ("rsa", "pkcs1-pem")]
)
def test_ecdsa_and_rsa_keys_in_openssh_or_pem_form_log_in(
    sshd: SftpServer, service: LocalService, folder: str, kind: str, form: str
) -> None:
    seed(sshd, {f"{folder}/a.txt": b"a"})
    key = sshd.other_keys[kind].export_private_key(form).decode()
    task = {
        "operation": "import/sftp",
        **login(sshd),
        "password": None,
        "private_key": key,
        "file": f"{folder}/a.txt",
    }
    ended = run_job(service, {"t": {k: v for k, v in task.items() if v is not None}})["t"]
    assert ended["status"] == "finished", ended["message"]


def test_wrong_password_missing_file_and_unpinned_key_each_fail_with_their_code(
    sshd: SftpServer, service: LocalService, folder: str, tmp_path: Path
) -> None:
    canary = "canary-" + secrets.token_urlsafe(20)
    wrong = run_job(
        service, {"t": {"operation": "import/sftp", **login(sshd), "password": canary, "file": "x"}}
    )["t"]
    assert wrong["code"] == "STORAGE_ACCESS_DENIED"
    assert f"127.0.0.1:{sshd.port}" in wrong["message"]
    assert canary not in str(wrong)
    missing = run_job(
        service, {"t": {"operation": "import/sftp", **login(sshd), "file": f"{folder}/none.txt"}}
    )["t"]
    assert missing["code"] == "STORAGE_FILE_NOT_FOUND"
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    pinned = tmp_path / "known_hosts"
    pinned.write_text(f"[127.0.0.1]:{sshd.port} {other}\n")
    with start(tmp_path, sftp_known_hosts=str(pinned)) as strict:
        refused = run_job(strict, {"t": {"operation": "import/sftp", **login(sshd), "file": "x"}})["t"]
    assert refused["code"] == "STORAGE_HOST_KEY_REJECTED"
    seed(sshd, {f"{folder}/a.txt": b"a"})
    pinned.write_text(f"[127.0.0.1]:{sshd.port} {sshd.host_key.export_public_key().decode().strip()}\n")
    with start(tmp_path, sftp_known_hosts=str(pinned)) as strict:
        fine = run_job(strict, {"t": {"operation": "import/sftp", **login(sshd), "file": f"{folder}/a.txt"}})[
            "t"
        ]
    assert fine["status"] == "finished", fine["message"]


def test_a_served_instance_refuses_a_loopback_host(sshd: SftpServer, tmp_path: Path) -> None:
    with start(tmp_path, url_guard=UrlGuard()) as guarded:
        ended = run_job(guarded, {"t": {"operation": "import/sftp", **login(sshd), "file": "x"}})["t"]
    assert ended["code"] == "STORAGE_FORBIDDEN_ADDRESS"
    assert "is not allowed" in ended["message"]


def test_the_example_recipe_makes_a_thumbnail_of_every_image_with_mcv_run(
    sshd: SftpServer,
    folder: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """pipelines/sftp-thumbnails.yaml on a served instance: each image of the directory becomes a webp
    thumbnail in the other one (made on the way), a file beside the directory is left alone, and
    `mcv run` lists the sftp:// files; the password, given through secret(), is printed nowhere."""
    assets = REPO / "pipelines" / "assets"
    seed(
        sshd,
        {
            f"{folder}/incoming/photo.jpg": (assets / "photo.jpg").read_bytes(),
            f"{folder}/incoming/logo.png": (assets / "logo.png").read_bytes(),
            f"{folder}/decoy.png": (assets / "logo.png").read_bytes(),
        },
    )
    with LocalService(data_dir=tmp_path / "data", engines=[PillowEngine()]) as svc:
        for name, value in {
            "MCV_BASE_URL": svc.base_url,
            "MCV_API_KEY": svc.api_key,
            "MCV_CONFIG": str(tmp_path / "no-config.toml"),
            "MCV_DATA_DIR": str(tmp_path / "embedded"),
            "SFTP_PASSWORD": sshd.password,
        }.items():
            monkeypatch.setenv(name, value)
        values = {
            "host": "127.0.0.1",
            "port": str(sshd.port),
            "username": sshd.user,
            "source_dir": f"{folder}/incoming",
            "target_dir": f"{folder}/thumbs",
            "width": "40",
        }
        arguments = [arg for name, value in values.items() for arg in ("-p", f"{name}={value}")]
        code = main(
            ["run", str(REPO / "pipelines" / "sftp-thumbnails.yaml"), *arguments, "--progress", "plain"]
        )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "2 file(s) stored:" in out
    thumbs = sshd.home / folder / "thumbs"
    assert sorted(p.name for p in thumbs.iterdir()) == ["logo.webp", "photo.webp"]
    for name in ("logo.webp", "photo.webp"):
        assert f"sftp://127.0.0.1:{sshd.port}/{folder}/thumbs/{name}" in out
        assert (thumbs / name).read_bytes()[8:12] == b"WEBP"
    assert sorted(p.name for p in (sshd.home / folder).iterdir()) == ["decoy.png", "incoming", "thumbs"]
    assert sshd.password not in out + err
