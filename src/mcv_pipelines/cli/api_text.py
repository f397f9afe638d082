"""Plain-text renderings of service resources for the jobs/tasks/webhooks/me/operations commands."""

from __future__ import annotations

from datetime import datetime

from mcv_pipelines.api.models import Job, Operation, Task, User, Webhook

__all__ = ["job_text", "operation_line", "task_line", "task_text", "user_text", "webhook_line"]


def _when(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value else "-"


def task_line(task: Task, indent: str = "") -> str:
    name = task.name or task.id
    line = f"{indent}{name:<20} {task.operation:<18} {task.status:<10}"
    if task.status == "error":
        line += f" {task.code or ''}: {task.message or ''}".rstrip(": ")
    files = [f.filename for f in task.files]
    if files:
        line += f" files: {', '.join(files)}"
    return line.rstrip()


def task_text(task: Task) -> str:
    lines = [
        f"task {task.id}  {task.operation}  {task.status}",
        f"  job: {task.job_id or '-'}  name: {task.name or '-'}  engine: {task.engine or '-'} "
        f"{task.engine_version or ''}".rstrip(),
        f"  created {_when(task.created_at)}  started {_when(task.started_at)}  ended {_when(task.ended_at)}",
    ]
    if task.message:
        lines.append(f"  message: {task.message}" + (f" ({task.code})" if task.code else ""))
    lines.extend(f"  file: {f.filename}" + (f"  {f.url}" if f.url else "") for f in task.files)
    return "\n".join(lines)


def job_text(job: Job) -> str:
    head = f"job {job.id}  {job.status}" + (f"  tag={job.tag}" if job.tag else "")
    head += f"  created {_when(job.created_at)}  ended {_when(job.ended_at)}"
    lines = [head]
    lines.extend(task_line(t, "  ") for t in job.tasks)
    for f in job.export_files:
        lines.append(f"  export: {f.filename}  {f.url}")
    return "\n".join(lines)


def webhook_line(hook: Webhook) -> str:
    state = "disabled" if hook.disabled else ("failing" if hook.failing else "active")
    return f"{hook.id:<8} {state:<9} {hook.url}  events: {', '.join(hook.events) or '-'}"


def user_text(user: User) -> str:
    return f"user {user.id}  {user.username or '-'}  {user.email or '-'}  credits: {user.credits}"


def operation_line(op: Operation) -> str:
    flags = [f for f, on in (("deprecated", op.deprecated), ("experimental", op.experimental)) if on]
    options = ", ".join(o.name for o in op.options)
    line = f"{op.operation:<16} {op.input_format:>8} -> {op.output_format:<8} {op.engine:<14}"
    if op.credits is not None:
        line += f" credits {op.credits}"
    if flags:
        line += f" [{', '.join(flags)}]"
    if options:
        line += f"  options: {options}"
    return line.rstrip()
