"""Hypothesis profiles for the differential suites.

"ci" (the default) keeps the whole Python suite well under a minute on two cores; "nightly"
(selected by FERROITER_NIGHTLY=1) runs many more examples per property.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from harness import PARALLELISM, PARALLELISM_IDS

# SciPy reads this once, at its first import: the client tests (test_clients.py) call its
# Array API dispatch, whichever test file imports scipy first
os.environ.setdefault("SCIPY_ARRAY_API", "1")

_COMMON = {
    "deadline": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}

# "ci" draws the same examples on every run (a red CI is then reproducible, not a lottery);
# "nightly" draws new ones each time, which is how the suite keeps finding cases.
settings.register_profile("ci", max_examples=150, derandomize=True, **_COMMON)
settings.register_profile("nightly", max_examples=5000, **_COMMON)
settings.load_profile("nightly" if os.environ.get("FERROITER_NIGHTLY") == "1" else "ci")


@pytest.fixture(params=PARALLELISM, ids=PARALLELISM_IDS)
def threads_and_grain(request):
    """Each (threads, grain size) setting of harness.PARALLELISM in turn."""
    return request.param
