"""`mcv serve` options for a team: what is refused before anything starts, and the --api-key warning."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mcv_pipelines.cli.main import build_parser
from mcv_pipelines.cli.serve_team import check_options, settings_of
from mcv_pipelines.errors import UsageError
from mcv_pipelines.service.state.keyfile import KeyFileError, read_key_file


def _args(*argv: str) -> argparse.Namespace:
    return build_parser("serve").parse_args(["serve", *argv])


def test_worker_and_api_roles_need_a_shared_database() -> None:
    for role in ("worker", "api"):
        with pytest.raises(UsageError, match=f"--role {role} needs a database shared"):
            check_options(_args("--role", role))
        with pytest.raises(UsageError, match="on SQLite one process"):
            check_options(_args("--role", role, "--database", "sqlite:///x.db"))
    check_options(_args("--role", "worker", "--database", "postgresql://mcv@db/mcv"))


def test_a_bad_database_url_is_refused_without_showing_its_password() -> None:
    with pytest.raises(UsageError) as refused:
        check_options(_args("--database", "mysql://u:pa55word-x@h/db"))
    assert "expected sqlite:///PATH or postgresql://" in str(refused.value)
    with pytest.raises(UsageError) as refused_pg:
        check_options(_args("--role", "worker", "--database", "postgres:/u:pa55word-y@h"))
    assert "pa55word-y" not in str(refused_pg.value)


def test_workers_must_be_at_least_one_and_reach_the_service_settings() -> None:
    for bad in ("0", "-3"):
        with pytest.raises(UsageError, match=f"--workers: give at least 1 task at a time \\(got {bad}\\)"):
            check_options(_args("--workers", bad))
    assert settings_of(_args("--workers", "2", "--rate-limit", "0")) == {"workers": 2, "rate_limit": 0}
    assert settings_of(_args()) == {}  # the service's own defaults


def test_a_key_in_argv_is_accepted_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    check_options(_args("--api-key", "sk-argv-key-0123456789"))
    assert "visible in the process list" in capsys.readouterr().err


def test_key_file_lines_are_checked_with_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(
        "# comment\n\nsk-aaaaaaaaaaaaaaaaaaaa task.read,task.write  # trailing\nsk-bbbbbbbbbbbbbbbbbbbb\n"
    )
    keys = read_key_file(path)
    assert next(k.scopes for k in keys) == ("task.read", "task.write")
    assert len(keys[1].scopes) == 6  # no scopes given: all
    path.write_text("sk-aaaaaaaaaaaaaaaaaaaa task.reed\n")
    with pytest.raises(KeyFileError, match=rf"{path}:1: unknown scope\(s\) task.reed"):
        read_key_file(path)
    path.write_text("sk-aaaaaaaaaaaaaaaaaaaa\nsk-aaaaaaaaaaaaaaaaaaaa\n")
    with pytest.raises(KeyFileError, match=rf"{path}:2: the same key is listed twice"):
        read_key_file(path)
