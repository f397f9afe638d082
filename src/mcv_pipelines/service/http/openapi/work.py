"""The OpenAPI paths of the work: jobs (also synchronous), tasks, and the standalone task endpoints."""

from __future__ import annotations

from mcv_pipelines.service.http.body_schema import operation_schema
from mcv_pipelines.service.http.openapi.parts import (
    INCLUDE,
    PAGING,
    REDIRECT,
    SEQ_BOUND,
    TO_EXPORT,
    Obj,
    answer,
    body,
    errors,
    operation,
    param,
    path_id,
    sync_timeout,
)
from mcv_pipelines.service.http.openapi.schemas import standalone_ref
from mcv_pipelines.service.http.routes_tasks import STANDALONE

__all__ = ["jobs_paths", "tasks_paths"]


def jobs_paths() -> Obj:
    job_ok = {"200": answer("The job.", "JobAnswer")}
    return {
        "/v2/jobs": {
            "post": operation(
                "createJob",
                "Create a job",
                "jobs",
                {"201": answer("The created job.", "JobAnswer")},
                scope="task.write",
                requestBody=body({"$ref": "#/components/schemas/JobBody"}),
                responses=errors("402", "422", "429"),
            ),
            "get": operation(
                "listJobs",
                "List jobs",
                "jobs",
                {"200": answer("A page of jobs.", "JobList")},
                scope="task.read",
                parameters=[
                    param("filter[status]", "query", {"type": "string"}),
                    param("filter[tag]", "query", {"type": "string"}),
                    param("include", "query", {"type": "string"}, "tasks: add each job's tasks."),
                    *PAGING,
                    SEQ_BOUND,
                ],
                responses=errors("422"),
            ),
        },
        "/v2/jobs/{job_id}": {
            "parameters": [path_id("job_id")],
            "get": operation(
                "showJob",
                "Show a job",
                "jobs",
                job_ok,
                scope="task.read",
                parameters=[REDIRECT],
                responses={"302": TO_EXPORT, **errors("404")},
            ),
            "delete": operation(
                "deleteJob",
                "Delete a job and its tasks",
                "jobs",
                {"204": answer("Deleted.")},
                scope="task.write",
                responses=errors("404"),
            ),
        },
        "/v2/jobs/{job_id}/wait": {
            "parameters": [path_id("job_id")],
            "get": operation(
                "waitJob",
                "Wait until the job has ended",
                "jobs",
                job_ok,
                scope="task.read",
                parameters=[REDIRECT],
                responses={"302": TO_EXPORT, **errors("404"), **sync_timeout("job")},
            ),
        },
        "/sync/v2/jobs": {
            "post": operation(
                "createJobSync",
                "Create a job and answer when it has ended",
                "sync",
                {"201": answer("The ended job.", "JobAnswer")},
                scope="task.write",
                requestBody=body({"$ref": "#/components/schemas/JobBody"}),
                responses={"302": TO_EXPORT, **errors("402", "422", "429"), **sync_timeout("job")},
            ),
        },
        "/sync/v2/jobs/{job_id}": {
            "parameters": [path_id("job_id")],
            "get": operation(
                "waitJobSync",
                "Wait until the job has ended",
                "sync",
                job_ok,
                scope="task.read",
                parameters=[REDIRECT],
                responses={"302": TO_EXPORT, **errors("404"), **sync_timeout("job")},
            ),
        },
    }


def _needs_body(operation: str) -> bool:
    """A standalone body may be left out when nothing but the operation (named by the path) is required."""
    required = (operation_schema(operation) or {}).get("required", [])
    return any(name != "operation" for name in required)


def tasks_paths() -> Obj:
    task_ok = {"200": answer("The task.", "TaskAnswer")}
    paths: Obj = {
        "/v2/tasks": {
            "get": operation(
                "listTasks",
                "List tasks",
                "tasks",
                {"200": answer("A page of tasks.", "TaskList")},
                scope="task.read",
                parameters=[
                    *(
                        param(f"filter[{n}]", "query", {"type": "string"})
                        for n in ("job_id", "status", "operation")
                    ),
                    param(
                        "include", "query", {"type": "string"}, "Comma-separated: retries, depends_on_tasks."
                    ),
                    *PAGING,
                    SEQ_BOUND,
                ],
                responses=errors("422"),
            )
        },
        "/v2/tasks/{task_id}": {
            "parameters": [path_id("task_id")],
            "get": operation(
                "showTask",
                "Show a task",
                "tasks",
                task_ok,
                scope="task.read",
                parameters=[INCLUDE],
                responses=errors("404"),
            ),
            "delete": operation(
                "deleteTask",
                "Delete a task and its files",
                "tasks",
                {"204": answer("Deleted.")},
                scope="task.write",
                responses=errors("404"),
            ),
        },
        "/sync/v2/tasks/{task_id}": {
            "parameters": [path_id("task_id")],
            "get": operation(
                "waitTaskSync",
                "Wait until the task has ended",
                "sync",
                task_ok,
                scope="task.read",
                parameters=[INCLUDE],
                responses={**errors("404"), **sync_timeout("task")},
            ),
        },
        "/v2/tasks/{task_id}/cancel": {
            "parameters": [path_id("task_id")],
            "post": operation(
                "cancelTask",
                "Cancel a waiting or processing task",
                "tasks",
                task_ok,
                scope="task.write",
                responses=errors("404", "422"),
            ),
        },
        "/v2/tasks/{task_id}/retry": {
            "parameters": [path_id("task_id")],
            "post": operation(
                "retryTask",
                "Create a new task from this one's payload",
                "tasks",
                {"201": answer("The new task.", "TaskAnswer")},
                scope="task.write",
                responses=errors("402", "404", "429"),
            ),
        },
    }
    for kind in STANDALONE:
        name = "".join(part.capitalize() for part in kind.replace("/", "-").split("-"))
        paths[f"/v2/{kind}"] = {
            "post": operation(
                f"create{name}Task",
                f"Create a {kind} task",
                "tasks",
                {"201": answer("The created task.", "TaskAnswer")},
                scope="task.write",
                requestBody=body(standalone_ref(kind), _needs_body(kind)),
                responses=errors("402", "422", "429"),
            )
        }
    return paths
