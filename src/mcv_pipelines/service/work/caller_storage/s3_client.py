"""A boto3 client for a caller's S3 storage that knows nothing but what the task carries.

boto3 reads credentials, endpoints, a CA bundle, proxies, retry modes and whole profiles from the
AWS_* variables and ~/.aws of the process that runs it. A worker serving strangers must not lend
them its own identity or settings, so the session here reads no variable and no file: the task's
keys, its region and its endpoint (else the region's public one) are all it uses.

On a served instance ``pin`` makes the client's connections go to the addresses the guard checked
for a host (pinning.py, as every kind's), never resolving the name again; only the socket's address
changes: the URL, the signed Host header, the TLS name (SNI) and the certificate check stay the name's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import botocore.session
from botocore.awsrequest import AWSHTTPConnectionPool, AWSHTTPSConnectionPool
from botocore.config import Config
from botocore.configprovider import (
    BOTOCORE_DEFAUT_SESSION_VARIABLES,
    DEFAULT_PROXIES_CONFIG_VARS,
    DEFAULT_S3_CONFIG_VARS,
    ConfigChainFactory,
    ConfigValueStore,
    SectionConfigProvider,
)

from mcv_pipelines.service.work.caller_storage.pinning import Addresses, pinned_pools

__all__ = ["endpoint_for", "pin", "s3_client"]


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
        retries={"total_max_attempts": 1, "mode": "standard"},  # retry.py's policy is the one
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


def pin(client: Any, addresses: Addresses) -> None:
    """Makes ``client`` connect to ``addresses`` only: this client's pools, no other.

    botocore has no public way to give a client its connections (its ``before-send`` event could
    only replace its whole sending: the retries' and errors' translation of connection faults, and
    the streamed body, with it). So its URLLib3Session's pool classes are replaced by pinning's
    (the rest of each connection, TLS included, is botocore's own); pyproject.toml bounds botocore
    to the versions this was tested with, and tests/integration/service/test_caller_s3_pinning.py
    fails loudly when these internals move. No proxy is ever configured here, so this one manager
    makes every connection.
    """
    manager = client._endpoint.http_session._manager  # no public way to reach the pools
    manager.pool_classes_by_scheme = pinned_pools(AWSHTTPConnectionPool, AWSHTTPSConnectionPool, addresses)
