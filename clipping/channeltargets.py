"""Which channel URLs are accepted, and the addresses they reach, vetted when added.

A channel is accepted only if its scheme is on the allow list (`TARGETS`), which says where
its messages go: the service's own public endpoint (the URL names no host to reach), the
URL's host (a self-hosted service), or an SMTP server. That target is vetted by the
crawler's SSRF guard when the channel is added and again before every send. Schemes whose
target cannot be told from the URL (a local log, raw or UDP sockets, hosts built from parts
of the URL) are refused, whatever Apprise could do with them.

Refusals name the host as the person typed it, never the address it resolves to, nor
whether a port answered.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import apprise
from django.utils.translation import gettext as _

from clipping.conf import channel_settings
from crawler.fetch import SSRFRefused
from crawler.fetch.ssrf import vetted_addresses_now

FIXED = "fixed"  # the service's public endpoint, written in Apprise's plugin
HOST = "host"  # the URL's host
NTFY = "ntfy"  # ntfy.sh for a bare topic, else the URL's host
MAIL = "mail"  # the SMTP server (given, or the one known for the address's domain)

TARGETS = {
    "discord": FIXED,
    "tgram": FIXED,
    "slack": FIXED,
    "pover": FIXED,
    "pbul": FIXED,
    **dict.fromkeys(("json", "jsons", "xml", "xmls", "form", "forms"), HOST),
    **dict.fromkeys(("gotify", "gotifys", "mmost", "mmosts", "rocket", "rockets"), HOST),
    **dict.fromkeys(("apprise", "apprises"), HOST),
    **dict.fromkeys(("ntfy", "ntfys"), NTFY),
    **dict.fromkeys(("mailto", "mailtos"), MAIL),
}

# What a failed send's log may say that maps the network: addresses and port states.
_ADDRESS = re.compile(r"\[?\b(?:\d{1,3}\.){3}\d{1,3}\b\]?|\[[0-9A-Fa-f:.]+\]")
_NETWORK_STATE = re.compile(
    r"errno|refused|unreachable|timed out|timeout|reset by peer|no route|name or service"
    r"|resolve|connection (?:error|aborted)|newconnectionerror|max retries",
    re.IGNORECASE,
)


class ChannelError(Exception):
    """A send that failed; `permanent` when retrying cannot help (bad URL, refused address)."""

    def __init__(self, reason: str, *, permanent: bool = False) -> None:
        super().__init__(reason)
        self.permanent = permanent


@dataclass(frozen=True)
class Checked:
    """A channel URL Apprise understands, with what may be shown of it."""

    url: str
    shown: str
    service: str


def check_url(url: str) -> Checked:
    """Return a channel URL's masked form and service; raise ChannelError if it cannot work."""
    url = url.strip()
    if not url or len(url) > 2000:
        raise ChannelError(
            _("Give an Apprise URL, such as %(example)s.")
            % {"example": "ntfys://ntfy.sh/my-topic"},
            permanent=True,
        )
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        raise ChannelError(
            _("Apprise does not know this URL; see its list of services."), permanent=True
        )
    refusal = target_refusal(plugin, url)
    if refusal:
        raise ChannelError(refusal, permanent=True)
    return Checked(url=url, shown=masked(plugin), service=str(plugin.service_name or ""))


def masked(plugin: Any) -> str:
    """Return a channel URL with its secrets hidden: scheme, masked credentials and host."""
    parts = urlsplit(plugin.url(privacy=True))
    path = "/…" if parts.path.strip("/") else ""
    return f"{parts.scheme}://{parts.netloc}{path}"


def targets(plugin: Any, url: str) -> list[str] | None:
    """Return the hosts a channel's messages go to ([] for a fixed public endpoint), or None
    when its scheme is not on the allow list."""
    kind = TARGETS.get(urlsplit(url).scheme.lower())
    if kind is None:
        return None
    if kind == FIXED or (kind == NTFY and getattr(plugin, "mode", "") == "cloud"):
        return []
    hosts = [getattr(plugin, "smtp_host", None)] if kind == MAIL else []
    hosts.append(getattr(plugin, "host", None))
    return [str(h) for h in dict.fromkeys(hosts) if h]


def target_refusal(plugin: Any, url: str) -> str:
    """Return why a channel may not be sent to (its scheme, a private address), or ""."""
    hosts = targets(plugin, url)
    if hosts is None:
        return _(
            "Webclip does not send to this kind of channel; use a webhook (json://), ntfy, "
            "Gotify, Mattermost, Rocket.Chat, Discord, Telegram, Slack, Pushover, Pushbullet "
            "or e-mail."
        )
    allowed = channel_settings().networks()
    for host in hosts:
        try:
            vetted_addresses_now(host, allow_private=False, allowed=allowed)
        except SSRFRefused:
            return _("Channels may not reach private or local network addresses (%(host)s).") % {
                "host": host
            }
        except OSError:
            return _("The channel's host %(host)s cannot be found.") % {"host": host}
    return ""


def plain_failure(said: str) -> str:
    """Return a failed send's reason without addresses or the state of ports."""
    if _NETWORK_STATE.search(said):
        return _("The service could not be reached.")
    return _ADDRESS.sub("…", said)[:500]
