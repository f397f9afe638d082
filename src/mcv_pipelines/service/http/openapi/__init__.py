"""The service's contract as an OpenAPI 3.1 document (document.build_openapi), in parts.

parts: answers, errors, parameters; schemas: resources and task bodies from schemas/operations;
work, account, operator: the paths; links: how one answer feeds the next request.

May import: the http layer's route helpers and body schemas, and below.
"""
