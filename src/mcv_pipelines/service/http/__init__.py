"""The HTTP face of the service: the Starlette app, its routes and everything a request passes.

Holds the route table (app), request parsing and body validation (validate, body_schema), API keys
and rate limits (auth, ratelimit), the upload form and download links (uploads, downloads,
file_answer), the operator surface (access log, logs, health, metrics, faults for tests), the OpenAPI
document (openapi/) and the web console (console/).

May import: work, state, files, engines (below it), and the package's shared modules (api.models is
not needed here: the service answers with its own stored documents). Nothing below imports it.
"""
