"""`mcv serve`: run the embedded local service until interrupted."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import ipaddress
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mcv_pipelines.cli import serve_keys, serve_team
from mcv_pipelines.cli.options import port_number
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact, register_secret
from mcv_pipelines.run.embedded import default_data_dir
from mcv_pipelines.service.engines import seal
from mcv_pipelines.service.engines.landlock import starter
from mcv_pipelines.service.engines.url_guard import UrlGuard, parse_networks
from mcv_pipelines.service.files.storage import StorageError, check_s3_endpoint, check_storage_url
from mcv_pipelines.service.http.faults import Faults, parse_faults
from mcv_pipelines.service.http.logs import LOG_FORMATS
from mcv_pipelines.service.http.logs import configure as configure_logging
from mcv_pipelines.service.http.logs import reset as reset_logging
from mcv_pipelines.service.server import KeyRevoked, LocalService
from mcv_pipelines.service.state.config import ALL_SCOPES
from mcv_pipelines.service.state.database import DatabaseUnavailable, SchemaTooNew
from mcv_pipelines.service.state.lock import DataDirBusy, DataDirLock
from mcv_pipelines.service.work.caller_storage.contract import endpoint_problem

__all__ = ["SIGNING_KEY_VARIABLE", "register", "serve"]

SIGNING_KEY_VARIABLE = "MCV_SIGNING_KEY"  # else the data directory's `secret` file
PUBLIC_URL_VARIABLE = "MCV_PUBLIC_URL"  # --public-url from the environment (a container's image)
log = logging.getLogger("mcv_pipelines.service")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "serve",
        help="run the embedded local conversion service",
        description="Serve the conversion API on this machine (real conversions with the local engines). "
        "State and files stay in the data directory, so a restart loses nothing.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)"
    )
    parser.add_argument(
        "--port", type=port_number, default=8080, help="port (default: 8080; 0 picks a free one)"
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="state and files (default: MCV_DATA_DIR, else the user data directory of mcv, shared "
        "with `mcv run` on the embedded service)",
    )
    parser.add_argument(
        "--api-key",
        default=None,
        help="accept this key (visible in the process list: prefer MCV_SERVE_API_KEY or --api-key-file; "
        "default: generate one, shown once)",
    )
    parser.add_argument(
        "--scopes", default=",".join(ALL_SCOPES), help="comma-separated scopes of the key (default: all)"
    )
    parser.add_argument(
        "--sandbox", action="store_true", help="sandbox mode: no credits, whitelisted files only"
    )
    parser.add_argument(
        "--sandbox-allow",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="in sandbox mode, accept this file (by its MD5); repeatable",
    )
    parser.add_argument(
        "--faults",
        default=None,
        help='fault injection for tests, e.g. "429=0.1,503=0.05,drop=0.02,delay=0.2:0.5,seed=7"; '
        "drop_after=share loses POST answers after the request was carried out; files_delay=seconds "
        "slows each chunk of a download",
    )
    parser.add_argument(
        "--public-url",
        default=None,
        metavar="URL",
        help="the address clients reach this service at, used in upload forms and download links "
        f"(default: {PUBLIC_URL_VARIABLE}, else http://HOST:PORT as bound; set it behind a proxy or in "
        "a container)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default="text",
        help="stderr log: one line per request and per task state change (default: text)",
    )
    parser.add_argument(
        "--allow-private-urls",
        action="store_true",
        help="let import/url fetch from private, loopback and link-local addresses (refused by "
        "default on a served instance; the embedded service of `mcv run` allows them)",
    )
    parser.add_argument(
        "--allow-private-network",
        action="append",
        default=[],
        metavar="CIDR",
        help="let import/url fetch from this network although it is private, e.g. an internal file "
        "server at 10.1.2.0/24; repeatable",
    )
    parser.add_argument(
        "--sftp-known-hosts",
        default=os.environ.get("MCV_SFTP_KNOWN_HOSTS") or None,
        metavar="FILE",
        help="an OpenSSH known_hosts file: import/sftp and export/sftp connect only to servers whose "
        "key it pins (default: MCV_SFTP_KNOWN_HOSTS, else a server's key is accepted on first use and "
        "its fingerprint put in the task's result)",
    )
    parser.add_argument(
        "--gcs-endpoint",
        default=os.environ.get("MCV_GCS_ENDPOINT") or None,
        metavar="URL",
        help="the JSON API root of Google Cloud Storage for import/ and export/google-cloud-storage, for "
        "a sovereign cloud or an emulator (default: MCV_GCS_ENDPOINT, else https://storage.googleapis.com)",
    )
    parser.add_argument(
        "--gcs-token-uri",
        default=os.environ.get("MCV_GCS_TOKEN_URI") or None,
        metavar="URL",
        help="where a task's Google service account gets its access token (default: MCV_GCS_TOKEN_URI, "
        "else https://oauth2.googleapis.com/token)",
    )
    parser.add_argument(
        "--azure-blob-endpoint",
        default=os.environ.get("MCV_AZURE_BLOB_ENDPOINT") or None,
        metavar="URL",
        help="where import/azure/blob and export/azure/blob find a storage account, {account} standing "
        "for its name: a sovereign cloud or an emulator such as http://127.0.0.1:10000/{account} "
        "(default: MCV_AZURE_BLOB_ENDPOINT, else https://{account}.blob.core.windows.net)",
    )
    parser.add_argument(
        "--storage",
        default=None,
        metavar="URL",
        help="where tasks' files live: file:///DIR or s3://BUCKET[/PREFIX] (default: the data "
        "directory); S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
    )
    parser.add_argument(
        "--s3-endpoint",
        default=None,
        metavar="URL",
        help="the S3 server of an s3:// --storage, e.g. http://minio:9000 (default: AWS_ENDPOINT_URL, "
        "else AWS itself)",
    )
    parser.add_argument(
        "--allow-engine-network",
        action="store_true",
        help="serve even where engine programs cannot be sealed off the network (neither bubblewrap "
        "nor unshare works here); without it such a machine refuses to serve",
    )
    serve_team.add_options(parser)
    parser.set_defaults(handler=serve)
    serve_keys.register_keys(parser.add_subparsers(dest="serve_action", metavar="keys|signing-key"))


def serve(args: argparse.Namespace, stop: threading.Event | None = None) -> int:
    """Start the service, print how to reach it, serve until Ctrl-C or SIGTERM (or ``stop`` is set)."""
    try:
        faults = parse_faults(args.faults) if args.faults else None
    except ValueError as exc:
        raise UsageError(f"--faults: {exc}") from exc
    settings = _settings(args)
    scopes = [s.strip() for s in str(args.scopes).split(",") if s.strip()]
    unknown = sorted(set(scopes) - set(ALL_SCOPES))
    if unknown:
        raise UsageError(f"--scopes: unknown scope(s) {', '.join(unknown)}; known: {', '.join(ALL_SCOPES)}")
    serve_team.check_options(args)
    _check_seal(args)
    settings.update(serve_team.settings_of(args))
    data_dir = args.data_dir or default_data_dir()
    if args.database is not None and not args.database.startswith("sqlite:"):
        # Processes sharing a database share the data dir too: leases, not a lock, keep them apart.
        return _serve(args, data_dir, faults, scopes, settings, stop)
    try:
        lock = DataDirLock(data_dir).acquire()
    except DataDirBusy as exc:
        raise UsageError(f"{exc}; stop it first, or serve another --data-dir") from None
    try:
        return _serve(args, data_dir, faults, scopes, settings, stop)
    finally:
        lock.release()


def _serve(
    args: argparse.Namespace,
    data_dir: Path,
    faults: Faults | None,
    scopes: list[str],
    settings: dict[str, Any],
    stop: threading.Event | None,
) -> int:
    configure_logging(args.log_format)
    try:
        return _run_service(args, data_dir, faults, scopes, settings, stop)
    finally:
        reset_logging()


def _run_service(
    args: argparse.Namespace,
    data_dir: Path,
    faults: Faults | None,
    scopes: list[str],
    settings: dict[str, Any],
    stop: threading.Event | None,
) -> int:
    given_key = args.api_key or serve_team.env_api_key()
    key_file = serve_team.KeyFile(args.api_key_file) if args.api_key_file and args.role != "worker" else None
    service = LocalService(
        data_dir=data_dir,
        api_key=given_key,
        scopes=scopes,
        sandbox=args.sandbox,
        faults=faults,
        host=args.host,
        port=args.port,
        settings=settings,
        logging_configured=True,
        database=args.database,
        role=args.role,
        lease_seconds=args.lease_seconds,
        make_key=given_key is not None or key_file is None,
    )
    try:
        service.start()
    except StorageError as exc:
        raise UsageError(f"--storage: {exc.message}") from None
    except OSError as exc:
        raise UsageError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror}; choose another --port"
        ) from exc
    except (DatabaseUnavailable, SchemaTooNew, KeyRevoked) as exc:
        raise UsageError(redact(str(exc))) from None
    try:
        if args.role != "api":
            service.warm_engines()
        if key_file is not None:
            key_file.load(service)
        print(f"base URL: {service.base_url}")
        if args.role != "worker":
            print(f"sync URL: {service.sync_url}")
            if given_key is None and key_file is None:
                # Printed once, on purpose: this is how the user learns a generated key.
                print(f"API key:  {service.api_key}")
            elif given_key is not None:
                print("API key:  (the one given)")
            if key_file is not None:
                print(f"API keys: {key_file.path} ({key_file.count}; re-read on SIGHUP)")
        print(f"data dir: {service.data_dir}")
        _show_storage(service)
        print(f"database: {service.ctx.store.db.display if service.ctx else '?'}; role: {args.role}")
        if args.role != "api" and service.ctx is not None:  # an api process runs no task
            print(f"tasks:    up to {service.ctx.config.workers} at once (--workers)")
        if args.role != "worker":  # a worker serves no API, so no console
            print(f"console:  {service.base_url}/console/  (log in with the API key)")
        if args.role != "api":  # an api process runs no engine
            sealing = seal.describe()
            print(f"engines:  {sealing}")
            if seal.seal_method() not in ("bwrap", "landlock"):  # the log keeps what an operator must know
                log.warning("engine programs: %s", sealing)
            else:
                log.info("engine programs: %s", sealing)
            if seal.seal_method() == "landlock":
                starter.warm()  # programs find their starters ready (engines/landlock/starter.py)
        if settings["url_guard"] is not None and _loopback(args.host):
            print("import/url refuses private and loopback addresses; --allow-private-urls allows them")
        print("serving; press Ctrl-C to stop", flush=True)
        stop = stop or threading.Event()
        with _stop_on_sigterm(stop), serve_team.reload_on_sighup(key_file, service):
            # In short waits: a signal the kernel hands to another thread of this process leaves a
            # main thread blocked in one long wait asleep, and Python runs handlers only there.
            while not stop.wait(0.5):
                pass
        print("stopping", flush=True)
    except KeyboardInterrupt:
        print("stopping", flush=True)
    finally:
        service.stop()
    return 0


@contextlib.contextmanager
def _stop_on_sigterm(stop: threading.Event) -> Iterator[None]:
    """A container runtime stops a process with SIGTERM: stop as cleanly as on Ctrl-C."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may handle signals (tests serve from other threads)
        return
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _check_seal(args: argparse.Namespace) -> None:
    """A served instance converts strangers' files: it does not run converters that can reach the
    network unless the operator says so (issue 24). ``mcv run``'s embedded service does not come here."""
    if args.role == "api" or getattr(args, "serve_action", None) or args.allow_engine_network:
        return
    if seal.seal_method() == "none":
        raise UsageError(
            "engine programs cannot be sealed off the network here: neither bubblewrap (bwrap), "
            f"Landlock with seccomp nor `unshare --net` works ({seal.bubblewrap_state()}); install "
            "bubblewrap (apt-get install bubblewrap), run where user namespaces or Landlock (Linux 5.13+) "
            "are allowed, or pass --allow-engine-network to serve anyway"
        )


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """ServiceConfig fields from the options and the environment; UsageError names a bad one."""
    settings: dict[str, Any] = {
        "sandbox_whitelist": frozenset(_md5(path) for path in args.sandbox_allow),
        "url_guard": None,
    }
    signing_key = os.environ.get(SIGNING_KEY_VARIABLE)
    if signing_key is not None:
        # Every API and worker process of one deployment must sign and check links alike.
        if len(signing_key.strip()) < 32:
            raise UsageError(
                f"{SIGNING_KEY_VARIABLE} is too short: use at least 32 characters, "
                "e.g. `openssl rand -hex 32`"
            )
        register_secret(signing_key.strip())
        settings["signing_key"] = signing_key.strip().encode()
    if not args.allow_private_urls:
        try:
            allowed = parse_networks(args.allow_private_network)
        except ValueError as exc:
            raise UsageError(f"--allow-private-network: {exc}") from None
        settings["url_guard"] = UrlGuard(allowed_networks=allowed)
    settings.update(_storage_settings(args))
    if args.sftp_known_hosts:
        known = Path(args.sftp_known_hosts)
        if not known.is_file():
            raise UsageError(f"--sftp-known-hosts {known}: no such file (an OpenSSH known_hosts file)")
        settings["sftp_known_hosts"] = str(known.resolve())
    for option, field in (("--gcs-endpoint", "gcs_endpoint"), ("--gcs-token-uri", "gcs_token_uri")):
        value = getattr(args, field)
        if value:
            settings[field] = _service_url(option, value)
    if args.azure_blob_endpoint:
        problem = endpoint_problem(args.azure_blob_endpoint)
        if problem is not None:
            raise UsageError(f"--azure-blob-endpoint {args.azure_blob_endpoint!r}: {problem}")
        settings["azure_blob_endpoint"] = args.azure_blob_endpoint
    where, public_url = "--public-url", args.public_url
    if public_url is None and os.environ.get(PUBLIC_URL_VARIABLE, "").strip():
        where, public_url = PUBLIC_URL_VARIABLE, os.environ[PUBLIC_URL_VARIABLE].strip()
    if public_url is not None:
        parts = urlsplit(public_url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise UsageError(
                f"{where} {public_url!r}: expected http(s)://HOST[:PORT][/PATH], e.g. https://mcv.example.com"
            )
        settings["public_url"] = public_url.rstrip("/")
    return settings


def _show_storage(service: LocalService) -> None:
    storage = service.storage
    print(f"storage:  {storage.url}")
    if not storage.ping():  # serve anyway: the store may come up later, and /readyz says so meanwhile
        print(
            f"warning: the storage {storage.url} is not reachable now; tasks with files fail until it "
            "is (check --s3-endpoint or AWS_ENDPOINT_URL, the AWS_* credentials and that the bucket exists)",
            file=sys.stderr,
            flush=True,
        )


def _storage_settings(args: argparse.Namespace) -> dict[str, Any]:
    """``storage`` and ``s3_endpoint`` of ServiceConfig from --storage and --s3-endpoint."""
    storage = getattr(args, "storage", None) or ""
    endpoint = getattr(args, "s3_endpoint", None) or ""
    if endpoint and not storage.startswith("s3:"):
        raise UsageError("--s3-endpoint: only an s3:// --storage uses it; add --storage s3://BUCKET")
    try:
        check_storage_url(storage or "file:///")
    except ValueError as exc:
        raise UsageError(f"--storage: {exc}") from None
    try:
        check_s3_endpoint(endpoint) if endpoint else None
    except ValueError as exc:
        raise UsageError(f"--s3-endpoint: {exc}") from None
    return {"storage": storage, "s3_endpoint": endpoint}


def _service_url(option: str, value: str) -> str:
    """An operator's address of a store's service: http(s)://HOST[:PORT][/PATH], nothing else."""
    parts = urlsplit(value.strip())
    extra = parts.username or parts.query or parts.fragment
    if parts.scheme not in ("http", "https") or not parts.hostname or extra:
        shown = "an address with credentials" if parts.username else repr(value)
        raise UsageError(f"{option} {shown}: expected http(s)://HOST[:PORT][/PATH], without credentials")
    return value.strip().rstrip("/")


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1024 * 1024):
                digest.update(chunk)
    except OSError as exc:
        raise UsageError(f"--sandbox-allow {path}: {exc.strerror}") from exc
    return digest.hexdigest()
