"""The test tiers: `--fast` leaves out marked tests, browser-fixture tests and any Chromium launch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = "tests/fast_tier_probe.py"  # not a test_*.py file: run only from here
FILES = [
    "tests/clipping/test_browser.py",
    "tests/test_test_databases.py",
    "tests/test_tiers.py",
    PROBE,
]


def collected(*options: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q"]
        + [*options, *FILES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.slow
def test_the_fast_tier_leaves_out_marked_tests_and_tests_using_the_browser_fixture():
    everything, fast = collected(), collected("--fast")

    assert "test_browser.py::" in everything and "test_browser.py::" not in fast  # the fixture
    assert "test_test_databases.py::" in everything and "test_test_databases.py::" not in fast
    assert "test_tiers.py::" not in fast  # slow: they start pytest themselves
    assert "fast_tier_probe.py::" in fast


@pytest.mark.slow
def test_the_fast_tier_refuses_to_start_chromium():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--fast", PROBE],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert "1 passed" in result.stdout, result.stdout + result.stderr
