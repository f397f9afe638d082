"""Hypothesis profiles of the property suite.

``default`` (local runs): a few dozen examples a test, the whole suite well under a minute.
``long`` (CI: scripts/test.sh sets HYPOTHESIS_PROFILE=long when CI is set): thousands of examples over
the suite, under five minutes on a two-core machine. Pick one with HYPOTHESIS_PROFILE=NAME.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from mcv_pipelines.redact import forgetting_new_secrets

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("default", max_examples=25, deadline=None, suppress_health_check=_SLOW_OK)
# derandomize: CI explores the same examples every run, so a red build is a change's doing and can be
# replayed; the default profile stays random and finds new cases locally.
settings.register_profile(
    "long",
    max_examples=500,
    deadline=None,
    suppress_health_check=_SLOW_OK,
    database=None,
    print_blob=True,
    derandomize=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True)
def generated_secrets_stay_here() -> Iterator[None]:
    """Generated pipelines declare random secrets ("POST", "undefined", ...); the redact registry is
    process-wide, so without this they would mask those words in every later test's output."""
    with forgetting_new_secrets():
        yield
