"""Parallel test workers share one Redis database: each clears only its own cache keys."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from tests.servers import clear_own_keys

pytestmark = [pytest.mark.redis, pytest.mark.django_db]


def test_clearing_the_cache_leaves_another_workers_rate_limit_counters() -> None:
    assert "-test-" in cache.key_prefix  # this process's own prefix
    redis = cache._cache.get_client(write=True)
    theirs = "webclip-test-gw97:1:login-failures"
    redis.set(theirs, 4)
    cache.set("login-failures", 3)
    try:
        clear_own_keys(cache)
        assert cache.get("login-failures") is None
        assert redis.get(theirs) == b"4"
    finally:
        redis.delete(theirs)
