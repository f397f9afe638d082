"""The package exports exactly the names the runner and users are meant to build on."""

from __future__ import annotations

import mcv_pipelines.api as api


def test_exported_names() -> None:
    assert set(api.__all__) == {
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
    }
    for name in api.__all__:
        assert getattr(api, name) is not None


def test_client_errors_share_the_project_root() -> None:
    from mcv_pipelines.errors import McvError, ServiceTrouble

    for cls in (
        api.ApiError,
        api.NetworkError,
        api.OutcomeUnknown,
        api.BadResponse,
        api.WaitTimeout,
        api.TransferError,
    ):
        assert issubclass(cls, ServiceTrouble)
        assert issubclass(cls, McvError)


def test_models_alone_do_not_load_the_client() -> None:
    import subprocess
    import sys

    code = (
        "import sys, mcv_pipelines.api.models\n"
        "loaded = [m for m in ('mcv_pipelines.api.client', 'mcv_pipelines.api.settings', 'httpx') "
        "if m in sys.modules]\n"
        "print(','.join(loaded))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_every_export_resolves_to_its_home() -> None:
    assert set(api._HOME) == set(api.__all__)
