"""The OpenAPI paths around the work: the account and webhooks, the open listings, the upload form,
downloads, metrics and the document itself."""

from __future__ import annotations

from mcv_pipelines.service.http.openapi.parts import (
    LISTING,
    PAGING,
    Obj,
    answer,
    body,
    errors,
    operation,
    param,
    path_id,
)

__all__ = ["account_paths", "open_paths"]


def account_paths() -> Obj:
    return {
        "/v2/users/me": {
            "get": operation(
                "showMe",
                "The caller's account",
                "account",
                {"200": answer("The user.", "UserAnswer")},
                scope="user.read",
            )
        },
        "/v2/users/me/webhooks": {
            "get": operation(
                "listWebhooks",
                "List webhooks",
                "account",
                {"200": answer("A page of webhooks.", "WebhookList")},
                scope="webhook.read",
                parameters=[param("filter[url]", "query", {"type": "string"}), *PAGING],
                responses=errors("422"),
            ),
        },
        "/v2/webhooks": {
            "post": operation(
                "createWebhook",
                "Create a webhook",
                "account",
                {"201": answer("The webhook.", "WebhookAnswer")},
                scope="webhook.write",
                requestBody=body({"$ref": "#/components/schemas/WebhookBody"}),
                responses=errors("422"),
            ),
        },
        "/v2/webhooks/{webhook_id}": {
            "parameters": [path_id("webhook_id")],
            "delete": operation(
                "deleteWebhook",
                "Delete a webhook",
                "account",
                {"204": answer("Deleted.")},
                scope="webhook.write",
                responses=errors("404"),
            ),
        },
    }


def open_paths() -> Obj:
    listing = {"200": answer("Conversion types of the engines on this machine.", "OperationList")}
    form_fields = {
        name: {"type": "string"}
        for name in ("expires", "max_file_count", "max_file_size", "signature", "redirect")
    }
    return {
        "/v2/operations": {
            "get": operation(
                "listOperations", "List operations", "listing", listing, scope=None, parameters=LISTING
            )
        },
        "/v2/convert/formats": {
            "get": operation(
                "listConvertFormats",
                "List convert formats",
                "listing",
                listing,
                scope=None,
                parameters=LISTING[1:],
            )
        },
        "/upload/{task_id}": {
            "parameters": [path_id("task_id")],
            "post": operation(
                "uploadFile",
                "Upload the file of an import/upload task (its form's url)",
                "files",
                {
                    "201": answer("The finished import/upload task.", "TaskAnswer"),
                    "303": {
                        "description": "The form carried redirect: go there.",
                        "headers": {"Location": {"required": True, "schema": {"type": "string"}}},
                    },
                },
                scope=None,
                requestBody={
                    "required": True,
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["file"],
                                "properties": {
                                    **form_fields,
                                    "file": {
                                        "type": "string",
                                        "contentMediaType": "application/octet-stream",
                                    },
                                },
                            }
                        }
                    },
                },
                responses=errors("403", "404", "409", "413", "422"),
            ),
        },
        "/files/{task_id}/{filename}": {
            "parameters": [path_id("task_id"), path_id("filename")],
            **{
                method: operation(
                    f"{method}File",
                    "Download an exported file (an export/url result's url)",
                    "files",
                    {
                        "200": {"description": "The file.", "content": {"*/*": {"schema": {}}}},
                        "206": {"description": "The requested range.", "content": {"*/*": {"schema": {}}}},
                    },
                    scope=None,
                    parameters=[
                        param(n, "query", {"type": "string"}) for n in ("expires", "signature", "inline")
                    ],
                    responses=errors("403", "404"),
                )
                for method in ("get", "head")
            },
        },
        "/metrics": {
            "get": operation(
                "metrics",
                "Prometheus metrics",
                "operations",
                {
                    "200": {
                        "description": "Prometheus or OpenMetrics text.",
                        "content": {
                            "text/plain": {"schema": {"type": "string"}},
                            "application/openmetrics-text": {"schema": {"type": "string"}},
                        },
                    }
                },
                scope=None,
            )
        },
        "/openapi.json": {
            "get": operation(
                "openapi",
                "This document",
                "operations",
                {
                    "200": {
                        "description": "OpenAPI 3.1.",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
                scope=None,
            )
        },
    }
