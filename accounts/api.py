"""The REST API's authentication: personal tokens sent as `Authorization: Bearer <token>`.

A token is looked up by its SHA-256 digest (the secret itself is never stored), then the
person's requests are counted in the shared cache: a fixed window of WEBCLIP_API_RATE_WINDOW
allows WEBCLIP_API_RATE_LIMIT requests over all their tokens, the next one gets 429.
"""

from __future__ import annotations

import math
import time

from django.core.cache import cache
from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone
from ninja.security import HttpBearer

from accounts.conf import api_settings
from accounts.models import API_TOKEN_PREFIX, ApiToken, User, token_digest

RATE_KEY = "api-rate:{user}:{slot}"


class RateLimited(Exception):
    """Over the person's API rate: retry after `wait` seconds."""

    def __init__(self, wait: float) -> None:
        super().__init__(f"Rate limit reached; retry in {math.ceil(wait)} s.")
        self.wait = wait


class TokenAuth(HttpBearer):
    """Bearer authentication with a personal API token; returns the token's owner."""

    def authenticate(self, request: HttpRequest, token: str) -> User | None:
        token = token.strip()
        if not token.startswith(API_TOKEN_PREFIX) or len(token) > 200:
            return None
        found = (
            ApiToken.objects.select_related("user")
            .filter(digest=token_digest(token), user__is_active=True)
            .first()
        )
        if found is None:
            return None
        count_request(found.user)
        touch(found)
        return found.user


def count_request(user: User) -> None:
    """Count one request of the user's; raise RateLimited past the limit of the window."""
    conf = api_settings()
    window = max(conf.rate_window.total_seconds(), 1.0)
    now = time.time()
    slot = int(now // window)
    key = RATE_KEY.format(user=user.pk, slot=slot)
    # add() then incr() is atomic on Redis and on the local-memory cache: no two requests
    # read the same count.
    cache.add(key, 0, timeout=math.ceil(window) + 1)
    try:
        count = cache.incr(key)
    except ValueError:  # the key expired between the two calls: a new window began
        cache.add(key, 1, timeout=math.ceil(window) + 1)
        count = 1
    if count > conf.rate_limit:
        raise RateLimited((slot + 1) * window - now)


def touch(token: ApiToken) -> None:
    """Record that the token was used: at most one UPDATE per token and WEBCLIP_API_LAST_USED_EVERY."""
    now = timezone.now()
    stale = now - api_settings().touch_every
    ApiToken.objects.filter(pk=token.pk).filter(
        Q(last_used_at__isnull=True) | Q(last_used_at__lte=stale)
    ).update(last_used_at=now)
