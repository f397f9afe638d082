"""A boto3 client for a caller's S3 storage that knows nothing but what the task carries.

boto3 reads credentials, endpoints, a CA bundle, proxies, retry modes and whole profiles from the
AWS_* variables and ~/.aws of the process that runs it. A worker serving strangers must not lend
them its own identity or settings, so the session here reads no variable and no file: the task's
keys, its region and its endpoint (else the region's public one) are all it uses.

On a served instance ``pin`` makes the client's connections go to the addresses the guard checked
for a host, never resolving the name again (a name that answers a public address to the guard and
127.0.0.1 to the connect, DNS rebinding, gets nowhere). Only the socket's address changes: the URL,
the signed Host header, the TLS name (SNI) and the certificate check stay the name's.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import botocore.session
from botocore.awsrequest import (
    AWSHTTPConnection,
    AWSHTTPConnectionPool,
    AWSHTTPSConnection,
    AWSHTTPSConnectionPool,
)
from botocore.config import Config
from botocore.configprovider import (
    BOTOCORE_DEFAUT_SESSION_VARIABLES,
    DEFAULT_PROXIES_CONFIG_VARS,
    DEFAULT_S3_CONFIG_VARS,
    ConfigChainFactory,
    ConfigValueStore,
    SectionConfigProvider,
)
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.util.connection import create_connection

__all__ = ["endpoint_for", "host_and_port", "pin", "s3_client"]

Addresses = Callable[[str, int], Sequence[str]]  # (host, port) -> the addresses checked for it


def endpoint_for(region: str) -> str:
    """The public S3 endpoint of an AWS region."""
    domain = "amazonaws.com.cn" if region.startswith("cn-") else "amazonaws.com"
    return f"https://s3.{region}.{domain}"


def _isolated_session() -> botocore.session.Session:
    session = botocore.session.Session()
    chains = ConfigChainFactory(session=session, environ={})  # no variable read

    def mapping(table: Mapping[str, Any]) -> dict[str, Any]:
        return {
            name: chains.create_config_chain(
                instance_name=name,
                env_var_names=spec[1],
                config_property_names=spec[0],
                default=spec[2],
                conversion_func=spec[3],
            )
            for name, spec in table.items()
        }

    store = mapping(BOTOCORE_DEFAUT_SESSION_VARIABLES)
    store["s3"] = SectionConfigProvider("s3", session, mapping(DEFAULT_S3_CONFIG_VARS))
    store["proxies_config"] = SectionConfigProvider(
        "proxies_config", session, mapping(DEFAULT_PROXIES_CONFIG_VARS)
    )
    session.register_component("config_store", ConfigValueStore(mapping=store))
    session.set_config_variable("config_file", os.devnull)  # no ~/.aws/config, no AWS_CONFIG_FILE
    session.set_config_variable("credentials_file", os.devnull)
    return session


def s3_client(payload: Mapping[str, Any], endpoint: str, pool: int) -> Any:
    """A client with the task's credentials on ``endpoint``: virtual-hosted addressing on AWS's own
    endpoints, path-style on any other (S3-compatible stores want it)."""
    host = urlsplit(endpoint).hostname or ""
    named = not host.endswith((".amazonaws.com", ".amazonaws.com.cn"))
    config = Config(
        connect_timeout=5,
        read_timeout=60,
        retries={"max_attempts": 3, "mode": "standard"},
        s3={"addressing_style": "path" if named else "virtual"},
        proxies={},  # no HTTP(S)_PROXY from the environment: it would resolve names unguarded
        max_pool_connections=max(pool, 10),
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    token = payload.get("session_token") or None
    return _isolated_session().create_client(
        "s3",
        region_name=str(payload["region"]),
        endpoint_url=endpoint,
        aws_access_key_id=str(payload["access_key_id"]),
        aws_secret_access_key=str(payload["secret_access_key"]),
        aws_session_token=str(token) if token else None,
        verify=True,  # never REQUESTS_CA_BUNDLE or AWS_CA_BUNDLE
        config=config,
    )


def host_and_port(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)


def pin(client: Any, addresses: Addresses) -> None:
    """Makes ``client`` connect to ``addresses(host, port)`` only: this client's pools, no other.

    botocore offers no setting for it, so its URLLib3Session's pool classes are replaced by ones whose
    connections open their socket to a checked address (the rest of each connection, TLS included, is
    botocore's own). No proxy is ever configured here, so this one manager makes every connection.
    """
    session = client._endpoint.http_session  # no public way to reach the pools
    session._manager.pool_classes_by_scheme = {
        "http": _pinned(AWSHTTPConnectionPool, AWSHTTPConnection, addresses),
        "https": _pinned(AWSHTTPSConnectionPool, AWSHTTPSConnection, addresses),
    }


def _pinned(pool: type[Any], connection: type[Any], addresses: Addresses) -> type[Any]:
    default_port = 443 if issubclass(connection, AWSHTTPSConnection) else 80

    class Pinned(connection):  # type: ignore[misc]  # mypy cannot subclass a class held in a variable
        def _new_conn(self) -> socket.socket:
            port = int(self.port or default_port)
            try:
                found = list(addresses(str(self.host).strip("[]").lower(), port))
            except Exception as exc:  # the guard's refusal: no socket at all
                raise NewConnectionError(self, f"Refused to connect to {self.host}: {exc}") from None
            failure: OSError | None = None
            for address in found:  # each one checked; the next only when the last did not connect
                try:
                    return create_connection(
                        (address, port), self.timeout, self.source_address, self.socket_options
                    )
                except TimeoutError as exc:
                    raise ConnectTimeoutError(
                        self, f"Connection to {self.host} timed out. (connect timeout={self.timeout})"
                    ) from exc
                except OSError as exc:
                    failure = exc
            raise NewConnectionError(self, f"Failed to establish a new connection: {failure or 'no address'}")

    return type(f"Pinned{pool.__name__}", (pool,), {"ConnectionCls": Pinned})
