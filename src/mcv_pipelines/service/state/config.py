"""Settings of one local service instance and the layout of its data directory.

Layout of ``data_dir``::

    service.sqlite3     users, API keys, jobs, tasks, webhooks (WAL)
    secret              (older versions) the signing key; now kept in the database, which adopts this
                        file once (state/shared_secrets.py)
    tasks/<task_id>/    the files a task produced (imports, conversions, exports); with another
                        --storage only a staging area while the task runs
    work/<task_id>/     scratch space of a running engine, removed when the task ends
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mcv_pipelines.service.engines.url_guard import UrlGuard

__all__ = ["DAY", "ServiceConfig"]

DAY = 24 * 3600.0
ALL_SCOPES = ("user.read", "user.write", "task.read", "task.write", "webhook.read", "webhook.write")


@dataclass
class ServiceConfig:
    """Everything a running service needs to know; ``public_url`` is set once the port is bound."""

    data_dir: Path
    public_url: str = "http://127.0.0.1"
    sandbox: bool = False
    sandbox_whitelist: frozenset[str] = frozenset()  # MD5 hex digests of the files sandbox accepts
    task_retention: float = DAY  # ended tasks are deleted this many seconds after ended_at
    link_ttl: float = DAY  # export/url links stay valid this long
    upload_ttl: float = DAY  # upload forms stay valid this long
    max_upload_size: int = 50 * 1024**3
    workers: int = 4
    rate_limit: int = 500  # job and task creations per key per rate_period
    rate_period: float = 60.0
    default_credits: int = 10_000
    default_timeout: float = 5 * 3600.0
    # The longest a sync request (/sync/v2/..., /v2/jobs/{id}/wait) blocks before its 409
    # SYNC_WAIT_TIMEOUT answer: under the 60 s that proxies and load balancers commonly allow (nginx,
    # AWS ALB), so a client hears why rather than losing the connection (issue 29).
    sync_max_wait: float = 50.0
    webhook_backoff: tuple[float, ...] = (1.0, 4.0, 16.0)  # waits before the 3 retries
    janitor_interval: float = 60.0
    region: str = "local"
    url_guard: UrlGuard | None = None  # import/url refuses private addresses; None allows any (embedded)
    storage: str = ""  # file:///DIR or s3://BUCKET[/PREFIX]; "" is the data directory
    s3_endpoint: str = ""  # the S3 server's URL; "" reads AWS_ENDPOINT_URL
    storage_retry: float = 60.0  # seconds a storage call rides through transient faults before failing
    caller_storage_retry: float = 20.0  # the same for a caller's store (import/s3, export/s3, ...)
    sftp_known_hosts: str = ""  # a known_hosts file SFTP servers' keys must match; "": accept on first use
    gcs_endpoint: str = "https://storage.googleapis.com"  # Google Cloud Storage's JSON API (--gcs-endpoint)
    gcs_token_uri: str = "https://oauth2.googleapis.com/token"  # noqa: S105 (the token endpoint)
    azure_blob_endpoint: str = ""  # a URL template with {account}; "": Azure's public address
    # b"": the key kept in the database (the service fills it in at start); MCV_SIGNING_KEY overrides
    signing_key: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        self.data_dir = Path(self.data_dir)
        for sub in ("tasks", "work"):
            (self.data_dir / sub).mkdir(parents=True, exist_ok=True)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "service.sqlite3"

    def task_dir(self, task_id: str) -> Path:
        return self.data_dir / "tasks" / task_id

    def work_dir(self, task_id: str) -> Path:
        return self.data_dir / "work" / task_id
