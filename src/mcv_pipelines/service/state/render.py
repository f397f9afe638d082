"""Rendering stored jobs, tasks, webhooks and users as the API shows them."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any
from urllib.parse import urlencode, urlsplit

from mcv_pipelines.service.state.store import Doc

__all__ = ["SECRET_FIELDS", "job_json", "list_envelope", "public_payload", "task_json", "webhook_json"]

# Credentials a caller submitted never come back in an answer.
SECRET_FIELDS = frozenset(
    {
        "secret_access_key",
        "access_key_id",
        "session_token",
        "storage_access_key",
        "sas_token",
        "private_key",
        "password",
        "headers",
    }
)
_TASK_FIELDS = (
    "id",
    "job_id",
    "name",
    "operation",
    "status",
    "message",
    "code",
    "credits",
    "percent",
    "created_at",
    "started_at",
    "ended_at",
    "depends_on_task_ids",
    "retry_of_task_id",
    "copy_of_task_id",
    "engine",
    "engine_version",
    "region",
    "user_id",
    "priority",
    "host_name",
    "storage",
    "result",
)


def _rebased(url: Any, base: str) -> Any:
    """The service's own link on its current address: a restart on another port (the embedded
    service picks a free one each time) must not break the links of earlier tasks."""
    if not isinstance(url, str):
        return url
    parts = urlsplit(url)
    if not parts.path.startswith(("/files/", "/upload/")):
        return url
    return f"{base}{parts.path}" + (f"?{parts.query}" if parts.query else "")


def _own_links(result: Any, base: str) -> Any:
    if not isinstance(result, dict):
        return result
    out = dict(result)
    if isinstance(out.get("form"), dict):
        out["form"] = {**out["form"], "url": _rebased(out["form"].get("url"), base)}
    if isinstance(out.get("files"), list):
        out["files"] = [
            {**f, "url": _rebased(f["url"], base)} if isinstance(f, dict) and "url" in f else f
            for f in out["files"]
        ]
    return out


def public_payload(payload: Doc) -> Doc:
    return {key: value for key, value in payload.items() if key not in SECRET_FIELDS}


def task_json(
    task: Doc,
    base: str,
    include: Collection[str] = (),
    lookup: Callable[[str], Doc | None] | None = None,
    retries: Sequence[Doc] = (),
    job: Doc | None = None,
) -> Doc:
    """A task as the API shows it; ``include`` adds payload, depends_on_tasks, retries, job."""
    out: Doc = {key: task.get(key) for key in _TASK_FIELDS}
    if task.get("operation") in ("export/url", "import/upload"):
        out["result"] = _own_links(out["result"], base)
    out["depends_on_task_ids"] = list(task.get("depends_on", {}).values())
    if task.get("job_id") is None and task.get("name") is None:
        del out["name"]  # a name is shown only for a task that is part of a job
    if "payload" in include:
        out["payload"] = public_payload(task.get("payload", {}))
    if "depends_on_tasks" in include:
        out["depends_on_tasks"] = dict(task.get("depends_on", {}))
    if "retries" in include:
        out["retries"] = [task_json(r, base) for r in retries]
    if "job" in include and job is not None:
        out["job"] = job_json(job, [], base, with_tasks=False)
    out["links"] = {"self": f"{base}/v2/tasks/{task['id']}"}
    return out


def job_json(job: Doc, tasks: Sequence[Doc], base: str, *, with_tasks: bool = True) -> Doc:
    out: Doc = {key: job.get(key) for key in ("id", "tag", "status", "created_at", "started_at", "ended_at")}
    if with_tasks:
        out["tasks"] = [task_json(t, base) for t in tasks]
    out["links"] = {"self": f"{base}/v2/jobs/{job['id']}"}
    return out


def webhook_json(hook: Doc, base: str) -> Doc:
    out = {key: value for key, value in hook.items() if key != "user_id"}
    out["links"] = {"self": f"{base}/v2/webhooks/{hook['id']}"}
    return out


def list_envelope(
    items: list[Any],
    path: str,
    query: dict[str, str],
    page: int,
    per_page: int,
    has_more: bool,
    next_bound: tuple[str, int] | None = None,
) -> Doc:
    """Laravel-style pagination: links.last is null, follow links.next until it is null.
    ``next_bound`` (name, value): a query parameter the next link carries besides its page number,
    so the next page starts where this one ended without the database walking the skipped rows."""

    def link(number: int, *extra: tuple[str, int]) -> str:
        return f"{path}?{urlencode({**query, 'page': number, 'per_page': per_page, **dict(extra)})}"

    bound = (next_bound,) if next_bound else ()
    start = (page - 1) * per_page
    return {
        "data": items,
        "links": {
            "first": link(1),
            "last": None,
            "prev": link(page - 1) if page > 1 else None,
            "next": link(page + 1, *bound) if has_more else None,
        },
        "meta": {
            "current_page": page,
            "from": start + 1 if items else None,
            "path": path,
            "per_page": per_page,
            "to": start + len(items) if items else None,
        },
    }
