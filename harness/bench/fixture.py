"""The ``swarbench_benchmark`` fixture (swarbench.testing.CheckedBenchmark): a function checked against a
kernel's oracle, then timed through pytest-benchmark's own ``benchmark`` fixture, so a project's test file can
hold its benchmark. This module imports pytest alone (pytest has loaded it by then); the checking and timing
load when a test asks for the fixture."""

import pytest


@pytest.fixture
def swarbench_benchmark(request):
    from swarbench.testing import CheckedBenchmark

    return CheckedBenchmark(lambda: request.getfixturevalue("benchmark"))
