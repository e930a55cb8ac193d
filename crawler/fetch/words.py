"""A fetch error in words a reader understands: the one mapping every page and mail uses.

Library text ("ClientConnectorDNSError: Cannot connect to host ...") never reaches a person.
What is said about a failed connection stays vague on purpose: a name that does not exist
is said (anyone can look it up), but never the address a name resolved to, nor whether a
port answered, so a preview is no port scanner.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from crawler.fetch.result import ErrorKind, FetchError

# How aiohttp and the resolver say that a host name does not exist.
_NO_SUCH_NAME = re.compile(
    r"DNSError|Name or service not known|nodename nor servname|No address associated|"
    r"getaddrinfo failed|Temporary failure in name resolution|Domain name not found",
    re.IGNORECASE,
)
_STATUS = re.compile(r"\b([1-5]\d\d)\b")
_MISSING = {404, 410}


def error_words(error: FetchError) -> str:
    """Say why nothing usable came back, in one sentence without library text."""
    match error.kind:
        case ErrorKind.SSRF:
            return _("Webclip does not visit private or local network addresses.")
        case ErrorKind.ROBOTS:
            return _(
                "The site's robots.txt asks crawlers to stay away from this page; Webclip obeys it."
            )
        case ErrorKind.URL:
            return _("This address cannot be fetched: it is not a valid web address.")
        case ErrorKind.CONNECTION if _NO_SUCH_NAME.search(error.message):
            return _("The site's name could not be found (DNS).")
        case ErrorKind.TIMEOUT | ErrorKind.CONNECTION | ErrorKind.BACKOFF:
            # Backoff too: an unreachable robots.txt is one, and says no more than that.
            return _("The site could not be reached. Try again later.")
        case ErrorKind.CONTENT_TYPE:
            return _("This address is not a web page, feed or sitemap.")
        case ErrorKind.HTTP:
            return _http_words(error.message)
        case ErrorKind.TOO_LARGE:
            return _("The page is larger than Webclip reads.")
        case ErrorKind.REDIRECTS:
            return _("The page redirects too often, or to nowhere.")
        case ErrorKind.DECODING:
            return _("The page's compression could not be read.")
        case ErrorKind.OFFSITE:
            return _("The page led away from the site.")
        case _:
            return _("The page could not be fetched.")


def stored_error_words(text: str) -> str:
    """Say a stored error ("kind: message", as pages and runs keep it) in words."""
    kind, _sep, message = text.partition(": ")
    if kind in ErrorKind._value2member_map_:
        return error_words(FetchError(ErrorKind(kind), message))
    return _("The page could not be fetched.")


def is_miss(error: FetchError, status: int | None) -> bool:
    """Tell a page that is not there (404, 410) from a failure of the site."""
    return error.kind == ErrorKind.HTTP and status in _MISSING


def _http_words(message: str) -> str:
    found = _STATUS.search(message)
    status = int(found.group(1)) if found else None
    if status in _MISSING:
        return _("The page does not exist (HTTP %(status)s).") % {"status": status}
    if status is not None and status >= 500:
        return _("The site had an error (HTTP %(status)s). Try again later.") % {"status": status}
    if status is not None:
        return _("The site refused the page (HTTP %(status)s).") % {"status": status}
    return _("The site answered with an error.")
