"""Settings come from arguments > environment > profile; the key never shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcv_pipelines.api.settings import PUBLIC_BASE_URL, PUBLIC_SYNC_URL, Settings
from mcv_pipelines.errors import UsageError
from mcv_pipelines.redact import redact

KEY = "sk-profile-key-111111"


@pytest.fixture
def profile_file(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(
        f'[default]\napi_key = "{KEY}"\nregion = "eu-central"\n\n'
        '[local]\nbase_url = "http://127.0.0.1:8080/"\n\n'
        '[work]\napi_key = "sk-work-222222"\nbase_url = "https://conv.example.org"\n'
        'sync_url = "https://sync.conv.example.org"\nsandbox = true\n',
        encoding="utf-8",
    )
    return path


def test_nothing_given_means_not_configured(tmp_path: Path) -> None:
    settings = Settings.resolve(env={"MCV_CONFIG": str(tmp_path / "none.toml")})
    assert not settings.is_configured
    assert settings.base_url is None


def test_key_alone_selects_the_public_instance(tmp_path: Path) -> None:
    settings = Settings.resolve(env={"MCV_API_KEY": "sk-env-333333", "MCV_CONFIG": str(tmp_path / "x.toml")})
    assert settings.is_configured
    assert (settings.base_url, settings.sync_url) == (PUBLIC_BASE_URL, PUBLIC_SYNC_URL)


def test_region_and_sandbox_hosts(tmp_path: Path) -> None:
    env = {"MCV_CONFIG": str(tmp_path / "x.toml")}
    regional = Settings.resolve(api_key="sk-arg-444444", region="us-east", env=env)
    assert regional.base_url == "https://us-east.api.cloudconvert.com"
    assert regional.sync_url == "https://us-east.sync.api.cloudconvert.com"
    sandbox = Settings.resolve(api_key="sk-arg-444444", env={**env, "MCV_SANDBOX": "yes"})
    assert sandbox.sandbox
    assert sandbox.base_url == "https://api.sandbox.cloudconvert.com"
    with pytest.raises(UsageError, match="unknown region"):
        Settings.resolve(api_key="sk-arg-444444", region="mars", env=env)


def test_base_url_alone_is_configured_with_sync_under_it(tmp_path: Path) -> None:
    settings = Settings.resolve(base_url="http://127.0.0.1:8080/", env={"MCV_CONFIG": str(tmp_path / "x")})
    assert settings.is_configured
    assert settings.api_key is None
    assert settings.sync_url == "http://127.0.0.1:8080/sync"


def test_precedence_arguments_over_env_over_profile(profile_file: Path) -> None:
    env = {"MCV_CONFIG": str(profile_file)}
    from_profile = Settings.resolve(env=env)
    assert from_profile.api_key == KEY
    assert from_profile.region == "eu-central"
    assert from_profile.profile == "default"
    assert from_profile.base_url == "https://eu-central.api.cloudconvert.com"

    from_env = Settings.resolve(env={**env, "MCV_API_KEY": "sk-env-555555", "MCV_REGION": "us-east"})
    assert from_env.api_key == "sk-env-555555"
    assert from_env.region == "us-east"

    from_args = Settings.resolve(
        api_key="sk-arg-666666",
        region="eu-central",
        env={**env, "MCV_API_KEY": "sk-env-555555", "MCV_REGION": "us-east"},
    )
    assert from_args.api_key == "sk-arg-666666"
    assert from_args.region == "eu-central"


def test_named_profile(profile_file: Path) -> None:
    env = {"MCV_CONFIG": str(profile_file)}
    work = Settings.resolve(profile="work", env=env)
    assert (work.base_url, work.sync_url, work.sandbox) == (
        "https://conv.example.org",
        "https://sync.conv.example.org",
        True,
    )
    local = Settings.resolve(env={**env, "MCV_PROFILE": "local"})
    assert local.base_url == "http://127.0.0.1:8080"
    assert local.sync_url == "http://127.0.0.1:8080/sync"
    with pytest.raises(UsageError, match=r"no profile \[nope\] \(profiles: default, local, work\)"):
        Settings.resolve(profile="nope", env=env)


def test_sync_url_as_path_prefix_is_kept(tmp_path: Path) -> None:
    settings = Settings.resolve(
        base_url="http://127.0.0.1:8080",
        sync_url="http://127.0.0.1:8080/sync/",
        env={"MCV_CONFIG": str(tmp_path / "x")},
    )
    assert settings.sync_url == "http://127.0.0.1:8080/sync"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[default\n", "cannot read the profile file"),
        ('[default]\napi_kee = "x"\n', "unknown setting"),
        ('[default]\nsandbox = "maybe"\n', "expected true or false"),
        ('[default]\nbase_url = "ftp://x"\n', "not an http"),
    ],
)
def test_bad_profile_files_are_clear_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(UsageError, match=message):
        Settings.resolve(env={"MCV_CONFIG": str(path)})


def test_key_never_in_repr_str_and_is_redacted(profile_file: Path) -> None:
    settings = Settings.resolve(env={"MCV_CONFIG": str(profile_file)})
    assert KEY not in repr(settings)
    assert KEY not in str(settings)
    assert "api_key=***" in repr(settings)
    assert redact(f"header Bearer {KEY}") == "header Bearer ***"


def test_explicit_public_base_url_gets_its_own_sync_host(tmp_path: Path) -> None:
    env = {"MCV_CONFIG": str(tmp_path / "x")}
    settings = Settings.resolve(base_url="https://eu-central.api.cloudconvert.com", env=env)
    assert settings.sync_url == "https://eu-central.sync.api.cloudconvert.com"
