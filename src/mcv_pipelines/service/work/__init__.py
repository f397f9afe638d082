"""The service's work: running tasks once a job is stored.

Scheduling in one process (scheduler) or across processes sharing PostgreSQL (lease_scheduler over
leases), task timeouts (deadlines), one task's run (operations: imports, exports, engines),
progress, imports and exports (imports, url_fetch, instore, taskfiles) and webhook delivery.

May import: state, files, engines. Never http (a worker process has no routes).
"""
