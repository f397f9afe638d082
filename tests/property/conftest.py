"""Hypothesis profiles of the property suite.

``default`` (local runs): a few dozen examples a test, the whole suite well under a minute.
``long`` (CI: scripts/test.sh sets HYPOTHESIS_PROFILE=long when CI is set): thousands of examples over
the suite, under five minutes on a two-core machine. Pick one with HYPOTHESIS_PROFILE=NAME.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile("default", max_examples=25, deadline=None, suppress_health_check=_SLOW_OK)
settings.register_profile(
    "long", max_examples=500, deadline=None, suppress_health_check=_SLOW_OK, database=None, print_blob=True
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
