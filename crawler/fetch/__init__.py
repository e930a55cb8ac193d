"""One place for all of fetching: polite, capped, SSRF-guarded HTTP with robots.txt.

async with Fetcher(policy_from_settings()) as fetcher:
    result = await fetcher.fetch(url, SiteRules.of(site), etag=page.etag)
    match result.error:
        case FetchError(kind=ErrorKind.ROBOTS): skip(url)
        case FetchError() as error: record(error)
        case None if result.not_modified: ...
        case None: analyze(result.body, result.final_url)
"""

from crawler.fetch.body import content_kind
from crawler.fetch.client import Fetcher, check_url, connection_error, fetch_url
from crawler.fetch.policy import FetchPolicy, SiteRules, policy_from_settings
from crawler.fetch.politeness import Clock, SystemClock, parse_retry_after
from crawler.fetch.result import ErrorKind, FetchError, FetchResult, PageRequest, failure
from crawler.fetch.robots import RobotsRules
from crawler.fetch.slots import Slots, shared_slots
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
    "PageRequest",
    "Resolver",
    "RobotsRules",
    "SSRFRefused",
    "SiteRules",
    "Slots",
    "SystemClock",
    "address_refusal",
    "check_url",
    "connection_error",
    "content_kind",
    "failure",
    "fetch_url",
    "host_refusal",
    "parse_retry_after",
    "policy_from_settings",
    "shared_slots",
    "system_resolve",
    "vetted_addresses",
]
