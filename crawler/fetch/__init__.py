"""One place for all of fetching: polite, capped, SSRF-guarded HTTP with robots.txt.

async with Fetcher(policy_from_settings()) as fetcher:
    result = await fetcher.fetch(url, SiteRules.of(site), etag=page.etag)
    if result.error: record(result.error.kind, result.error.message)
    elif result.not_modified: ...
    else: analyze(result.body, result.final_url)
"""

from crawler.fetch.body import content_kind
from crawler.fetch.client import Fetcher, check_url, fetch_url
from crawler.fetch.policy import FetchPolicy, SiteRules, policy_from_settings
from crawler.fetch.politeness import Clock, SystemClock, parse_retry_after
from crawler.fetch.result import ErrorKind, FetchError, FetchResult
from crawler.fetch.robots import RobotsRules, origin_of
from crawler.fetch.ssrf import (
    Resolver,
    SSRFRefused,
    address_refusal,
    host_refusal,
    system_resolve,
    vetted_addresses,
)

__all__ = [
    "Clock",
    "ErrorKind",
    "FetchError",
    "FetchPolicy",
    "FetchResult",
    "Fetcher",
    "Resolver",
    "RobotsRules",
    "SSRFRefused",
    "SiteRules",
    "SystemClock",
    "address_refusal",
    "check_url",
    "content_kind",
    "fetch_url",
    "host_refusal",
    "origin_of",
    "parse_retry_after",
    "policy_from_settings",
    "system_resolve",
    "vetted_addresses",
]
