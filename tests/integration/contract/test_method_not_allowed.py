"""A method a path does not serve is answered 405 with an ``Allow`` header naming every method the
path does serve (RFC 9110): the route table has one line per (path, method), and Starlette used to
name only the first line's method (``OPTIONS /v2/jobs`` said ``Allow: POST``; issue 29)."""

from __future__ import annotations

import re

import httpx

from mcv_pipelines.service.http.openapi.document import build_document
from mcv_pipelines.service.server import LocalService


def _concrete(template: str) -> str:
    return re.sub(r"\{[^}]+\}", "x", template)


def test_every_path_answers_a_wrong_method_with_all_of_its_methods(contract_service: LocalService) -> None:
    paths = build_document()["paths"]
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    wrong: dict[str, tuple[int, str]] = {}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=30) as client:
        for template, item in paths.items():
            documented = {method.upper() for method in item if method != "parameters"}
            if "GET" in documented:
                documented.add("HEAD")  # answered by every GET path, as HTTP expects
            for method in ("OPTIONS", "PATCH", "PUT", "DELETE", "POST"):
                if method in documented:
                    continue
                answer = client.request(method, _concrete(template))
                allowed = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
                if answer.status_code != 405 or allowed != documented:
                    wrong[f"{method} {template}"] = (answer.status_code, answer.headers.get("allow", ""))
                elif method == "OPTIONS":
                    assert answer.json()["code"] == "METHOD_NOT_ALLOWED"
    assert wrong == {}


def test_the_paths_served_by_two_handlers_still_reach_each_of_them(contract_service: LocalService) -> None:
    headers = {"Authorization": f"Bearer {contract_service.api_key}"}
    with httpx.Client(base_url=contract_service.base_url, headers=headers, timeout=30) as client:
        created = client.post("/v2/jobs", json={"tasks": {"up": {"operation": "import/upload"}}})
        assert created.status_code == 201
        job_id = created.json()["data"]["id"]
        listed = client.get("/v2/jobs")
        assert [job["id"] for job in listed.json()["data"]] == [job_id]
        assert client.head(f"/v2/jobs/{job_id}").status_code == 200
        assert client.delete(f"/v2/jobs/{job_id}").status_code == 204
        assert client.get(f"/v2/jobs/{job_id}").status_code == 404
