"""`python -m mcv_pipelines` is the same as the `mcv` command."""

from mcv_pipelines.cli.main import program

raise SystemExit(program())
