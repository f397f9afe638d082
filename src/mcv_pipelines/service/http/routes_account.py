"""The caller's account: users/me and webhooks (create, list, delete)."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from mcv_pipelines.service.http.auth import authorize
from mcv_pipelines.service.http.context import context
from mcv_pipelines.service.http.errors import InvalidData, not_found
from mcv_pipelines.service.http.request_utils import json_body, paging
from mcv_pipelines.service.state.render import list_envelope, webhook_json
from mcv_pipelines.service.state.store import now_iso
from mcv_pipelines.service.work.webhooks import EVENTS

__all__ = ["create_webhook", "delete_webhook", "list_webhooks", "me"]


async def me(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "user.read")
    user = ctx.store.get_user(caller.user_id)
    if user is None:
        raise not_found("User")
    return JSONResponse({"data": {**user, "links": {"self": f"{ctx.base}/v2/users/{user['id']}"}}})


async def create_webhook(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "webhook.write")
    body = await json_body(request)
    errors: dict[str, list[str]] = {}
    url, events = body.get("url"), body.get("events")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        errors["url"] = ["The url field is required and must be an http or https URL."]
    if not isinstance(events, list) or not events or not all(e in EVENTS for e in events):
        errors["events"] = [f"The events field must be a list of: {', '.join(EVENTS)}."]
    if errors:
        raise InvalidData(errors)
    now = now_iso()
    hook = ctx.store.save_webhook(
        {
            "user_id": caller.user_id,
            "url": url,
            "events": events,
            "disabled": False,
            "failing": False,
            "last_error_at": None,
            "last_response_code": None,
            "signing_secret": secrets.token_hex(16),
            "created_at": now,
            "updated_at": now,
        }
    )
    return JSONResponse({"data": webhook_json(hook, ctx.base)}, status_code=201)


async def list_webhooks(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "webhook.read")
    page, per_page = paging(request)
    hooks = ctx.store.user_webhooks(caller.user_id, request.query_params.get("filter[url]"))
    start = (page - 1) * per_page
    items = [webhook_json(h, ctx.base) for h in hooks[start : start + per_page]]
    query = {k: v for k, v in request.query_params.items() if k not in ("page", "per_page")}
    return JSONResponse(
        list_envelope(
            items, f"{ctx.base}/v2/users/me/webhooks", query, page, per_page, len(hooks) > start + per_page
        )
    )


async def delete_webhook(request: Request) -> Response:
    ctx = context(request)
    caller = authorize(request, "webhook.write")
    raw = str(request.path_params["webhook_id"])
    hook = ctx.store.get_webhook(int(raw)) if raw.isdigit() else None
    if hook is None or hook["user_id"] != caller.user_id:
        raise not_found("Webhook")
    ctx.store.delete_webhook(hook["id"])
    return Response(status_code=204)
