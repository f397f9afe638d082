"""The client of the media conversion service: settings, models, errors, the async client, webhooks.

Names are loaded on first use, so ``import mcv_pipelines.api.models`` (all the local service may import)
does not pull in the client, httpx or the settings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcv_pipelines.api.client import ApiClient
    from mcv_pipelines.api.errors import (
        ApiError,
        BadResponse,
        Forbidden,
        InvalidData,
        NetworkError,
        NotFound,
        OutcomeUnknown,
        PaymentRequired,
        RateLimited,
        ServerError,
        TransferError,
        Unauthorized,
        WaitTimeout,
    )
    from mcv_pipelines.api.models import (
        File,
        Job,
        ListPage,
        Operation,
        Task,
        TaskResult,
        UploadForm,
        User,
        Webhook,
    )
    from mcv_pipelines.api.pacer import Pacer, RateLimitInfo
    from mcv_pipelines.api.receiver import WebhookReceiver
    from mcv_pipelines.api.retry import RetryPolicy
    from mcv_pipelines.api.settings import Settings
    from mcv_pipelines.api.timeouts import Timeouts
    from mcv_pipelines.api.transfer import safe_filename

_HOME = {
    "ApiClient": "client",
    **dict.fromkeys(
        (
            "ApiError",
            "BadResponse",
            "Forbidden",
            "InvalidData",
            "NetworkError",
            "NotFound",
            "OutcomeUnknown",
            "PaymentRequired",
            "RateLimited",
            "ServerError",
            "TransferError",
            "Unauthorized",
            "WaitTimeout",
        ),
        "errors",
    ),
    **dict.fromkeys(
        ("File", "Job", "ListPage", "Operation", "Task", "TaskResult", "UploadForm", "User", "Webhook"),
        "models",
    ),
    "Pacer": "pacer",
    "RateLimitInfo": "pacer",
    "RetryPolicy": "retry",
    "Settings": "settings",
    "Timeouts": "timeouts",
    "safe_filename": "transfer",
    "WebhookReceiver": "receiver",
}

__all__ = [
    "ApiClient",
    "ApiError",
    "BadResponse",
    "File",
    "Forbidden",
    "InvalidData",
    "Job",
    "ListPage",
    "NetworkError",
    "NotFound",
    "Operation",
    "OutcomeUnknown",
    "Pacer",
    "PaymentRequired",
    "RateLimitInfo",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "Settings",
    "Task",
    "TaskResult",
    "Timeouts",
    "TransferError",
    "Unauthorized",
    "UploadForm",
    "User",
    "WaitTimeout",
    "Webhook",
    "WebhookReceiver",
    "safe_filename",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'mcv_pipelines.api' has no attribute {name!r}")
    return getattr(importlib.import_module(f"mcv_pipelines.api.{home}"), name)
