"""The browser's network: every request a rendered page makes goes through our own client.

The route handler hands each request here; the relay checks the URL (scheme, allowed hosts,
SSRF by spelling), connects through the same vetting resolver as the fetcher (resolve once,
connect to the vetted address), caps the body, and the handler fulfils the browser's request
with the answer. Redirects are followed here, hop by hop, because Chromium would follow a
fulfilled redirect outside any interception. What escapes interception (preconnects,
workers, navigations Chromium starts on its own) reaches the context's egress proxy
(`crawler.render.egress`), which judges it with the same relay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import aiohttp

from crawler.canonical import same_site
from crawler.fetch.body import BodyError, CappedDecoder, encodings_of, parse_content_type
from crawler.fetch.client import check_url, connection_error
from crawler.fetch.policy import FetchPolicy, SiteRules
from crawler.fetch.reading import REDIRECT_STATUSES
from crawler.fetch.result import ErrorKind, FetchError
from crawler.fetch.ssrf import Resolver, VettingResolver

# Request headers the browser sends that belong to its own connection, not to ours.
_DROPPED_REQUEST = {"host", "connection", "keep-alive", "accept-encoding", "content-length"}
# Response headers that describe the wire form; the browser gets the decoded body.
_DROPPED_RESPONSE = {"content-encoding", "content-length", "transfer-encoding", "connection"}


class Refused(Exception):
    """The relay will not (or could not) make this request; `error` says why."""

    def __init__(self, error: FetchError) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass
class Answer:
    """A response to hand to the browser."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def media_type(self) -> str:
        """Return the media type of the answer, lower case."""
        return parse_content_type(self.headers.get("content-type"))[0]

    @property
    def location(self) -> str | None:
        """Return the absolute redirect target of a 3xx answer, or None."""
        if self.status not in REDIRECT_STATUSES:
            return None
        location = next((v for k, v in self.headers.items() if k.lower() == "location"), "")
        return urljoin(self.url, location.strip()) if location.strip() else None


class Relay:
    """Make one page's requests under one site's rules; close it with the page."""

    def __init__(
        self,
        policy: FetchPolicy,
        resolver: Resolver,
        rules: SiteRules,
        hosts: Iterable[str] | None,
    ) -> None:
        self.policy = policy
        self.resolver = resolver
        self.rules = rules
        # None: any host, judged by its address alone (the browser's default proxy).
        self.hosts = None if hosts is None else tuple(hosts)
        # One session per exemption: only the site's own origins may reach private addresses.
        self._sessions: dict[bool, aiohttp.ClientSession] = {}

    def refusal(self, url: str) -> FetchError | None:
        """Return why the page may not request `url`, or None."""
        error = check_url(url, self.rules)
        if error is not None and error.kind != ErrorKind.SSRF:
            return error
        # Off the site says more than the address refusal an off-site host also earns.
        if self.hosts is not None and not same_site(url, self.hosts):
            host = urlsplit(url).hostname
            return FetchError(ErrorKind.OFFSITE, f"{host} is not one of the site's hosts")
        return error

    async def exchange(
        self,
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes | None,
        *,
        follow: bool,
    ) -> Answer:
        """Make the request (following redirects when `follow`); raise Refused on failure."""
        for _ in range(self.policy.max_redirects + 1):
            refused = self.refusal(url)
            if refused is not None:
                raise Refused(refused)
            answer = await self._once(method, url, headers, body)
            target = answer.location
            if not follow or target is None:
                return answer
            if answer.status == 303 or (answer.status in {301, 302} and method == "POST"):
                method, body = "GET", None
            url = target
        raise Refused(
            FetchError(ErrorKind.REDIRECTS, f"more than {self.policy.max_redirects} redirects")
        )

    async def _once(
        self, method: str, url: str, headers: dict[str, str], body: bytes | None
    ) -> Answer:
        session = self._open(url)
        sent = {
            k: v
            for k, v in headers.items()
            if k.lower() not in _DROPPED_REQUEST and not k.startswith(":")
        }
        sent["Accept-Encoding"] = "gzip, deflate, br"
        timeout = aiohttp.ClientTimeout(
            total=None,
            sock_connect=self.policy.connect_timeout,
            sock_read=self.policy.read_timeout,
        )
        try:
            async with asyncio.timeout(self.policy.total_timeout):
                async with session.request(
                    method, url, headers=sent, data=body, allow_redirects=False, timeout=timeout
                ) as response:
                    return await self._answer(url, response)
        except TimeoutError:
            raise Refused(FetchError(ErrorKind.TIMEOUT, f"no answer from {url} in time")) from None
        except BodyError as exc:
            raise Refused(exc.error) from None
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            raise Refused(connection_error(exc)) from None

    async def _answer(self, url: str, response: aiohttp.ClientResponse) -> Answer:
        decoder = CappedDecoder(
            encodings_of(response.headers.get("Content-Encoding"), ""),
            self.policy.max_body_bytes,
        )
        parts = [decoder.feed(chunk) async for chunk in response.content.iter_any()]
        headers: dict[str, str] = {}
        for name, value in response.headers.items():
            key = name.lower()
            if key in _DROPPED_RESPONSE:
                continue
            # Playwright takes repeated headers (Set-Cookie) joined by newlines.
            headers[key] = f"{headers[key]}\n{value}" if key in headers else value
        return Answer(url, response.status, headers, b"".join(parts))

    def _open(self, url: str) -> aiohttp.ClientSession:
        exempt = self.rules.exempts(url)
        session = self._sessions.get(exempt)
        if session is None:
            connector = aiohttp.TCPConnector(
                resolver=VettingResolver(
                    self.resolver, allow_private=exempt, allowed=self.rules.allowed_networks
                ),
                use_dns_cache=False,
                limit=6,  # what a browser opens per host
            )
            session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                cookie_jar=aiohttp.DummyCookieJar(),  # the browser context keeps the cookies
                trust_env=False,
            )
            self._sessions[exempt] = session
        return session

    async def close(self) -> None:
        """Close the page's connections."""
        sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            await session.close()
