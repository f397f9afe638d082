"""The names batch and the CLI import from mcv_pipelines.run are there, and nothing else is exported."""

from __future__ import annotations

import mcv_pipelines.run as run


def test_public_names() -> None:
    assert set(run.__all__) == {
        "DownloadedFile", "EmbeddedService", "EventSink", "JsonLinesEvents", "NullEvents", "RunInterrupted",
        "RunOptions", "RunOutcome", "RunTimeout", "TaskFailure", "TaskState", "Tee", "default_data_dir",
        "embedded_service", "failures_of", "find_job_by_tag", "job_tag", "new_run_id", "preflight",
        "resume_hint", "run_pipeline", "submit_job",
    }  # fmt: skip
    for name in run.__all__:
        assert getattr(run, name) is not None


def test_the_runner_never_imports_the_cli() -> None:
    import subprocess
    import sys

    code = "import sys, mcv_pipelines.run; print(any(m.startswith('mcv_pipelines.cli') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
