"""Where the service is and how to authenticate: the one module that knows host names.

Each value comes from the first of: explicit arguments (command-line flags), the environment
(``MCV_API_KEY``, ``MCV_BASE_URL``, ``MCV_SYNC_URL``, ``MCV_REGION``, ``MCV_SANDBOX``,
``MCV_CONNECT_TIMEOUT``, ``MCV_READ_TIMEOUT``), a profile in a
TOML file (``[NAME]`` tables in ``<user config dir>/mcv-pipelines/config.toml``, or the file named by
``MCV_CONFIG``; the profile is ``--profile NAME``, else ``MCV_PROFILE``, else ``default``).

The public instance's hosts apply only when a key is given without a base URL. With neither a key nor
a base URL nothing is configured (``is_configured`` is False): the runner then starts the embedded local
service. A base URL given without a sync URL gets ``<base>/sync``, the local service's layout.

    [default]
    api_key = "..."          # better kept in MCV_API_KEY
    region = "eu-central"

    [local]
    base_url = "http://127.0.0.1:8080"
    connect_timeout = 5      # seconds to open a connection (default 10)
    read_timeout = 30        # seconds to wait for the next bytes of an answer (default 60; 120 transfers)
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import register_secret

__all__ = [
    "PUBLIC_BASE_URL",
    "PUBLIC_SANDBOX_SYNC_URL",
    "PUBLIC_SANDBOX_URL",
    "PUBLIC_SYNC_URL",
    "REGIONS",
    "Settings",
    "config_path",
]

PUBLIC_BASE_URL = "https://api.cloudconvert.com"
PUBLIC_SYNC_URL = "https://sync.api.cloudconvert.com"
PUBLIC_SANDBOX_URL = "https://api.sandbox.cloudconvert.com"
PUBLIC_SANDBOX_SYNC_URL = "https://sync.api.sandbox.cloudconvert.com"
REGIONS = ("eu-central", "us-east")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_KEYS = ("api_key", "base_url", "sync_url", "region", "sandbox", "connect_timeout", "read_timeout")


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """The profile file: ``MCV_CONFIG`` or ``config.toml`` in the user's config directory."""
    env = os.environ if env is None else env
    explicit = env.get("MCV_CONFIG")
    if explicit:
        return Path(explicit).expanduser()
    return Path(platformdirs.user_config_dir("mcv-pipelines")) / "config.toml"


def _flag(value: Any, source: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise UsageError(f"{source}: expected true or false, got {value!r}")


def _load_profile(path: Path, name: str, explicit: bool) -> dict[str, Any]:
    if not path.is_file():
        if explicit:
            raise UsageError(f"profile {name!r} asked for, but {path} does not exist")
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the profile file: {exc}") from exc
    table = data.get(name)
    if table is None:
        if explicit:
            known = ", ".join(sorted(k for k, v in data.items() if isinstance(v, dict))) or "none"
            raise UsageError(f"{path}: no profile [{name}] (profiles: {known})")
        return {}
    if not isinstance(table, dict):
        raise UsageError(f"{path}: [{name}] is not a table")
    unknown = sorted(set(table) - set(_KEYS))
    if unknown:
        raise UsageError(
            f"{path}: [{name}]: unknown setting(s) {', '.join(unknown)} (known: {', '.join(_KEYS)})"
        )
    if "api_key" in table and isinstance(table["api_key"], str):
        register_secret(table["api_key"])
    return table


def _seconds(value: Any, source: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if isinstance(value, bool) or not seconds > 0 or seconds == float("inf"):
        raise UsageError(f"{source}: expected a positive number of seconds, got {value!r}")
    return seconds


def _url(value: str | None, source: str) -> str | None:
    if value is None or not str(value).strip():
        return None
    text = str(value).strip().rstrip("/")
    if not text.startswith(("http://", "https://")):
        raise UsageError(f"{source}: {value!r} is not an http(s) URL")
    return text


@dataclass(frozen=True)
class Settings:
    """Resolved connection settings. ``repr`` and ``str`` never show the key."""

    base_url: str | None = None
    sync_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    region: str | None = None
    sandbox: bool = False
    profile: str | None = None
    connect_timeout: float | None = None  # None: the client's default (api.timeouts.Timeouts)
    read_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.api_key:
            register_secret(self.api_key)

    def __repr__(self) -> str:
        key = "***" if self.api_key else None
        return (
            f"Settings(base_url={self.base_url!r}, sync_url={self.sync_url!r}, api_key={key}, "
            f"region={self.region!r}, sandbox={self.sandbox!r}, profile={self.profile!r}, "
            f"connect_timeout={self.connect_timeout!r}, read_timeout={self.read_timeout!r})"
        )

    __str__ = __repr__

    @property
    def is_configured(self) -> bool:
        """False when neither a key nor a base URL was given: use the embedded local service."""
        return bool(self.api_key or self.base_url)

    @classmethod
    def resolve(
        cls,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        sync_url: str | None = None,
        region: str | None = None,
        sandbox: bool | None = None,
        profile: str | None = None,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Settings:
        """Combine arguments > environment > profile file, then fill the public hosts if needed."""
        env = os.environ if env is None else env
        name = profile or env.get("MCV_PROFILE") or "default"
        table = _load_profile(config_path(env), name, explicit=bool(profile or env.get("MCV_PROFILE")))
        where = f"profile [{name}]"

        def pick(arg: Any, var: str, key: str) -> tuple[Any, str]:
            if arg is not None and arg != "":
                return arg, f"--{key.replace('_', '-')}"
            if env.get(var):
                return env[var], var
            return table.get(key), f"{where} {key}"

        key, _ = pick(api_key, "MCV_API_KEY", "api_key")
        base, base_src = pick(base_url, "MCV_BASE_URL", "base_url")
        sync, sync_src = pick(sync_url, "MCV_SYNC_URL", "sync_url")
        reg, _ = pick(region, "MCV_REGION", "region")
        sbx, sbx_src = pick(sandbox, "MCV_SANDBOX", "sandbox")
        connect, connect_src = pick(connect_timeout, "MCV_CONNECT_TIMEOUT", "connect_timeout")
        read, read_src = pick(read_timeout, "MCV_READ_TIMEOUT", "read_timeout")
        if key is not None and not isinstance(key, str):
            raise UsageError(f"{where}: api_key must be a string")
        if key:
            register_secret(key)
        return cls.build(
            api_key=key or None,
            base_url=_url(base, base_src),
            sync_url=_url(sync, sync_src),
            region=str(reg).strip() or None if reg is not None else None,
            sandbox=_flag(sbx, sbx_src) if sbx is not None else False,
            profile=name if table else None,
            connect_timeout=_seconds(connect, connect_src),
            read_timeout=_seconds(read, read_src),
        )

    @classmethod
    def build(
        cls,
        *,
        api_key: str | None,
        base_url: str | None,
        sync_url: str | None = None,
        region: str | None = None,
        sandbox: bool = False,
        profile: str | None = None,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
    ) -> Settings:
        """Fill the hosts that were not given; the public instance only when a key comes alone."""
        if base_url is None and api_key:
            base_url, default_sync = _public_hosts(region, sandbox)
            sync_url = sync_url or default_sync
        elif base_url is not None and sync_url is None:
            sync_url = _KNOWN_SYNC.get(base_url, f"{base_url}/sync")
        return cls(
            base_url=base_url,
            sync_url=sync_url,
            api_key=api_key,
            region=region,
            sandbox=sandbox,
            profile=profile,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
        )


_KNOWN_SYNC = {
    PUBLIC_BASE_URL: PUBLIC_SYNC_URL,
    PUBLIC_SANDBOX_URL: PUBLIC_SANDBOX_SYNC_URL,
    **{f"https://{r}.api.cloudconvert.com": f"https://{r}.sync.api.cloudconvert.com" for r in REGIONS},
}


def _public_hosts(region: str | None, sandbox: bool) -> tuple[str, str]:
    if sandbox:
        return PUBLIC_SANDBOX_URL, PUBLIC_SANDBOX_SYNC_URL
    if region:
        if region not in REGIONS:
            raise UsageError(f"unknown region {region!r} (known: {', '.join(REGIONS)})")
        return f"https://{region}.api.cloudconvert.com", f"https://{region}.sync.api.cloudconvert.com"
    return PUBLIC_BASE_URL, PUBLIC_SYNC_URL
