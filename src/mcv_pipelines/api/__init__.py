"""The client of the media conversion service: settings, models, errors, the async client, webhooks."""

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
from mcv_pipelines.api.retry import RetryPolicy
from mcv_pipelines.api.settings import Settings
from mcv_pipelines.api.timeouts import Timeouts
from mcv_pipelines.api.transfer import safe_filename

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
    "safe_filename",
]
