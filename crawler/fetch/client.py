"""The fetcher: one async HTTP client, polite, capped, SSRF-guarded, never raising on the web."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode, urlsplit

import aiohttp
import yarl

from crawler.canonical import origin
from crawler.fetch.body import ACCEPT_ENCODING, ACCEPT_HEADER, BodyError
from crawler.fetch.policy import FetchPolicy, SiteRules, policy_from_settings
from crawler.fetch.politeness import (
    Clock,
    Deferred,
    HostGate,
    SystemClock,
    host_key,
    parse_retry_after,
)
from crawler.fetch.reading import (
    REDIRECT_STATUSES,
    read_response,
    redirect_target,
    redirected_request,
)
from crawler.fetch.result import ErrorKind, FetchError, FetchResult, failure
from crawler.fetch.robots import RobotsCache, RobotsRules, rules_from
from crawler.fetch.slots import Slots
from crawler.fetch.ssrf import Resolver, VettingResolver, host_refusal, refusal_in, system_resolve
from crawler.fetch.sync import run_sync

BACKOFF_STATUSES = frozenset({429, 503})
# A robots.txt refused for these reasons refuses the page for the same reason.
_PASSED_ON = frozenset({ErrorKind.SSRF, ErrorKind.URL})
# Outcomes that say nothing about the file itself, so they are not cached.
_NOT_CACHED = frozenset({ErrorKind.SSRF, ErrorKind.BACKOFF})


class Fetcher:
    """Fetch pages and robots.txt files politely; one per crawl process, used as `async with`.

    Every failure comes back as `FetchResult.error`; only programming errors raise.
    """

    def __init__(
        self,
        policy: FetchPolicy | None = None,
        *,
        resolver: Resolver | None = None,
        clock: Clock | None = None,
        slots: Slots | None = None,
    ) -> None:
        self.policy = policy or policy_from_settings()
        self.resolver = resolver or system_resolve
        self.clock = clock or SystemClock()
        # Hosts' turns: this process's memory unless shared slots are given (crawl workers).
        self.gate = HostGate(self.clock, slots, lease=self.policy.host_lease)
        self.robots_cache = RobotsCache(self.policy.robots_ttl, self.policy.robots_error_ttl)
        # One session per address rule set: the resolver inside the connector enforces it.
        self._sessions: dict[tuple[bool, tuple[str, ...]], aiohttp.ClientSession] = {}
        self._in_flight: asyncio.Semaphore | None = None
        self._robots_locks: dict[str, asyncio.Lock] = {}

    async def __aenter__(self) -> Fetcher:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP sessions and their pooled connections, and the slots' store's."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()
        closing = getattr(self.gate.slots, "aclose", None)
        if closing is not None:
            await closing()

    async def fetch(
        self,
        url: str,
        rules: SiteRules | None = None,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
        known: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        """Fetch `url` (GET, conditional when `etag`/`last_modified` are given); a redirect
        to a URL `known` says the caller has already is not followed (`known_target`)."""
        headers: dict[str, str] = {}
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        return await self._follow(
            url,
            rules or SiteRules(),
            headers,
            cap=self.policy.max_body_bytes,
            for_robots=False,
            known=known,
        )

    async def post(
        self, url: str, data: Sequence[tuple[str, str]], rules: SiteRules | None = None
    ) -> FetchResult:
        """Submit a form body to `url` (POST, form-urlencoded) under the same checks as fetch.

        For hidden-web search forms (crawler.hiddenweb), which never change state. A 301, 302
        or 303 answer is followed with GET and no body, as browsers do.
        """
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return await self._follow(
            url,
            rules or SiteRules(),
            headers,
            cap=self.policy.max_body_bytes,
            for_robots=False,
            method="POST",
            body=urlencode(list(data)).encode(),
        )

    async def robots(self, url: str, rules: SiteRules | None = None) -> RobotsRules:
        """Return the robots.txt rules for `url`'s origin, fetched at most once per TTL."""
        rules = rules or SiteRules()
        scope = origin(url)
        lock = self._robots_locks.setdefault(scope, asyncio.Lock())
        async with lock:  # concurrent fetches of one origin share one robots.txt request
            cached = self.robots_cache.get(scope, self.clock.monotonic())
            if cached is not None:
                return cached
            result = await self._follow(
                f"{scope}/robots.txt",
                rules,
                {},
                cap=self.policy.robots_max_bytes,
                for_robots=True,
            )
            found = rules_from(
                scope, self.policy.robots_token, result, self.policy.robots_max_bytes
            )
            if found.error_kind not in _NOT_CACHED:
                self.robots_cache.put(found, self.clock.monotonic())
            return found

    async def refusal(self, url: str, rules: SiteRules) -> FetchError | None:
        """Return why `url` may not be asked now (spelling, address, robots.txt), or None."""
        refused, _delay = await self._admission(url, rules, for_robots=False)
        return refused

    async def _follow(
        self,
        url: str,
        rules: SiteRules,
        headers: dict[str, str],
        *,
        cap: int,
        for_robots: bool,
        method: str = "GET",
        body: bytes | None = None,
        known: Callable[[str], bool] | None = None,
    ) -> FetchResult:
        """Fetch `url`, checking every redirect hop as if it were a new URL."""
        # Rules with no site origins exempt this URL's origin only, never a redirect target.
        rules = rules.scoped_to(url)
        budget = self.policy.total_timeout
        redirects: list[str] = []
        current = url
        for _ in range(self.policy.max_redirects + 1):
            asked = time.monotonic()
            refused, delay = await self._admission(current, rules, for_robots=for_robots)
            # A slow robots.txt counts against this fetch's deadline too.
            budget -= time.monotonic() - asked
            if refused is not None:
                return _located(failure(url, refused), current, redirects)
            result = await self._attempts(
                current, rules, headers, delay, budget, cap, for_robots, method=method, body=body
            )
            budget -= result.elapsed
            if result.error is not None or result.status not in REDIRECT_STATUSES:
                return _located(result, current, redirects, original=url)
            target = redirect_target(result, current)
            if target is None:
                return _located(result, current, redirects, original=url)
            if known is not None and target not in redirects and known(target):
                result.known_target = target
                return _located(result, current, redirects, original=url)
            redirects.append(current)
            current = target
            method, body, headers = redirected_request(result.status, method, body, headers)
        too_many = FetchError(
            ErrorKind.REDIRECTS, f"more than {self.policy.max_redirects} redirects"
        )
        return _located(failure(url, too_many), current, redirects)

    async def _admission(
        self, url: str, rules: SiteRules, *, for_robots: bool
    ) -> tuple[FetchError | None, float]:
        """Return why `url` may not be asked (None if it may) and the delay its host wants."""
        refused = check_url(url, rules)
        if refused is not None or for_robots or not rules.obey_robots:
            return refused, rules.crawl_delay
        robots = await self.robots(url, rules)
        delay = rules.crawl_delay
        if robots.crawl_delay is not None:
            delay = max(delay, min(robots.crawl_delay, self.policy.max_crawl_delay))
        return await self._robots_refusal(robots, url), delay

    async def _robots_refusal(self, robots: RobotsRules, url: str) -> FetchError | None:
        """Return why robots.txt keeps us from `url`, or None."""
        passed_on = robots.error_kind
        if passed_on is not None and passed_on in _PASSED_ON:
            # The host itself may not be asked; saying "robots" would hide why.
            return FetchError(passed_on, f"robots.txt: {robots.unreachable}")
        if robots.unreachable:
            # RFC 9309 2.3.1.3-4: while robots.txt is unreachable (5xx, 429, timeout,
            # no connection) everything is disallowed. That is a wait, not a verdict
            # on this URL: "backoff" until the file is asked again.
            message = f"robots.txt unreachable ({robots.unreachable})"
            wait = await self._robots_wait(robots.origin, url)
            return FetchError(ErrorKind.BACKOFF, message, retry_after=wait)
        if not robots.allows(url):
            return FetchError(ErrorKind.ROBOTS, "disallowed by robots.txt")
        return None

    async def _attempts(
        self,
        url: str,
        rules: SiteRules,
        headers: dict[str, str],
        delay: float,
        budget: float,
        cap: int,
        truncate: bool,
        *,
        method: str = "GET",
        body: bytes | None = None,
    ) -> FetchResult:
        """Ask one URL, waiting and retrying while the host answers 429/503 with a short wait."""
        host = host_key(url)
        policy = self.policy
        elapsed = 0.0
        for attempt in range(policy.retries + 1):
            try:
                async with self.gate.slot(host, delay, policy.max_retry_wait):
                    async with self._slot():
                        result = await self._exchange(
                            url, rules, headers, budget - elapsed, cap, truncate, method, body
                        )
                    wait = await self._backoff(host, result)
            except Deferred as deferred:
                return failure(
                    url, FetchError(ErrorKind.BACKOFF, str(deferred), retry_after=deferred.wait)
                )
            elapsed += result.elapsed
            result.elapsed = elapsed
            if wait is None:
                return result
            assert result.error is not None
            result.error = FetchError(ErrorKind.HTTP, result.error.message, retry_after=wait)
            if attempt == policy.retries or wait > policy.max_retry_wait:
                return result
        raise AssertionError("unreachable")  # the loop always returns

    async def _backoff(self, host: str, result: FetchResult) -> float | None:
        """Defer the host after a 429/503 (still holding its slot, so every process sees the
        wait before its next request); return the wait, or None after a normal answer."""
        if result.status not in BACKOFF_STATUSES:
            await self.gate.clear(host)
            return None
        asked = parse_retry_after(result.headers.get("retry-after"), self.clock.time())
        policy = self.policy
        return await self.gate.defer(host, asked, policy.backoff_base, policy.max_backoff)

    async def _robots_wait(self, origin: str, url: str) -> float:
        """Return the seconds until an unreachable robots.txt may be asked again."""
        now = self.clock.monotonic()
        gate_wait = await self.gate.wait_for(host_key(url), 0.0)
        return max(self.robots_cache.expires_in(origin, now), gate_wait)

    @asynccontextmanager
    async def _slot(self) -> AsyncIterator[None]:
        if self._in_flight is None:
            self._in_flight = asyncio.Semaphore(self.policy.concurrency)
        async with self._in_flight:
            yield

    async def _session(self, rules: SiteRules, url: str) -> aiohttp.ClientSession:
        key = (rules.exempts(url), rules.allowed_networks)
        session = self._sessions.get(key)
        if session is None or session.closed:
            resolver = VettingResolver(self.resolver, allow_private=key[0], allowed=key[1])
            connector = aiohttp.TCPConnector(
                resolver=resolver,
                use_dns_cache=False,  # every new connection is resolved and vetted afresh
                limit=self.policy.concurrency,
                limit_per_host=0,  # the host gate already allows one request per host
            )
            session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,  # CappedDecoder inflates under the cap
                cookie_jar=aiohttp.DummyCookieJar(),  # stateless: no session-id traps
                trust_env=False,  # a proxy would connect to addresses we never vetted
                headers={
                    "User-Agent": self.policy.user_agent,
                    "Accept": ACCEPT_HEADER,
                    "Accept-Encoding": ACCEPT_ENCODING,
                },
            )
            self._sessions[key] = session
        return session

    async def _exchange(
        self,
        url: str,
        rules: SiteRules,
        headers: dict[str, str],
        budget: float,
        cap: int,
        truncate: bool,
        method: str = "GET",
        body: bytes | None = None,
    ) -> FetchResult:
        """Make one request and read its answer within the remaining total budget."""
        policy = self.policy
        timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=policy.connect_timeout, sock_read=policy.read_timeout
        )
        session = await self._session(rules, url)
        started = time.monotonic()
        try:
            if budget <= 0:
                raise TimeoutError
            async with asyncio.timeout(budget):
                async with session.request(
                    method, url, headers=headers, data=body, allow_redirects=False, timeout=timeout
                ) as response:
                    result = await read_response(url, response, cap, truncate)
        except TimeoutError as exc:
            result = failure(url, FetchError(ErrorKind.TIMEOUT, _timeout_message(exc, policy)))
        except BodyError as exc:
            result = failure(url, exc.error)
        except (aiohttp.InvalidURL, ValueError) as exc:
            result = failure(url, FetchError(ErrorKind.URL, f"invalid URL: {exc}"))
        except (aiohttp.ClientError, OSError) as exc:
            result = failure(url, connection_error(exc))
        result.elapsed = time.monotonic() - started
        return result


def connection_error(exc: BaseException) -> FetchError:
    """Return the error of a failed connection: SSRF when the vetting resolver refused it."""
    refused = refusal_in(exc)
    if refused is not None:
        return FetchError(ErrorKind.SSRF, str(refused))
    return FetchError(ErrorKind.CONNECTION, f"{type(exc).__name__}: {exc}")


def check_url(url: str, rules: SiteRules) -> FetchError | None:
    """Return why `url` may not be requested at all (scheme, syntax, SSRF by spelling)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
        # The host as the HTTP client will see it: IDNA folds "①②⑦.⓪.⓪.①" or
        # "127。0。0。1" into 127.0.0.1, an IP literal the client connects to without asking
        # any resolver, so that spelling must be vetted too.
        client_host = yarl.URL(url).raw_host or ""
    except (ValueError, UnicodeError) as exc:
        return FetchError(ErrorKind.URL, f"invalid URL: {exc}")
    if parts.scheme not in {"http", "https"}:
        return FetchError(ErrorKind.URL, f"scheme {parts.scheme!r} is not http or https")
    if not parts.hostname or not client_host:
        return FetchError(ErrorKind.URL, "URL has no host")
    # The private-network exemption covers the site's own origins only.
    exempt = rules.exempts(url)
    for host in dict.fromkeys((parts.hostname, client_host)):
        try:
            reason = host_refusal(host, rules.allowed_networks, allow_private=exempt)
        except ValueError as exc:  # a bad allowed_networks entry: refuse rather than guess
            return FetchError(ErrorKind.SSRF, f"bad allowed network: {exc}")
        if reason:
            return FetchError(ErrorKind.SSRF, reason)
    return None


def _located(
    result: FetchResult, final_url: str, redirects: list[str], original: str | None = None
) -> FetchResult:
    if original is not None:
        result.url = original
    result.final_url = final_url
    result.redirects = list(redirects)
    return result


def _timeout_message(exc: BaseException, policy: FetchPolicy) -> str:
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return f"no connection within {policy.connect_timeout:g} s"
    if isinstance(exc, aiohttp.SocketTimeoutError):
        return f"server silent for {policy.read_timeout:g} s"
    return f"no complete answer within the {policy.total_timeout:g} s total deadline"


def fetch_url(url: str, rules: SiteRules | None = None, **options: Any) -> FetchResult:
    """Fetch one URL from synchronous code (manage.py fetch); `options` go to Fetcher."""

    async def run() -> FetchResult:
        async with Fetcher(**options) as fetcher:
            return await fetcher.fetch(url, rules)

    return run_sync(run())
