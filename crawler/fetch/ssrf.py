"""Server-side request forgery guard: resolve a host once, vet every address, pin it.

The HTTP client never resolves names itself: its connector asks `VettingResolver`, which
resolves through an injectable `Resolver`, refuses the whole answer if any address is not
public, and hands the client exactly the vetted addresses to connect to. IP literals never
reach a resolver, so `host_refusal` vets them (and odd numeric spellings) before a request.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
import socket
from collections.abc import Awaitable, Callable, Sequence
from functools import lru_cache
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# Answers a host name with IP address strings; tests inject stubs.
Resolver = Callable[[str], Awaitable[Sequence[str]]]

# What inet_aton accepts besides the dotted quad: 1 to 4 parts, each decimal, octal (leading
# 0) or hex (0x). 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 all mean 127.0.0.1 to a resolver.
_INET_ATON = re.compile(r"(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]+)){0,3}\.?", re.I)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_METADATA = {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
# Special-purpose blocks (IANA registries) that older Pythons' ipaddress still calls global:
# IETF protocol assignments (dummy, NAT64 discovery, ...) and the 2024 IPv6 documentation block.
_SPECIAL_PURPOSE = (ipaddress.ip_network("192.0.0.0/24"), ipaddress.ip_network("3fff::/20"))


class SSRFRefused(OSError):
    """A host or address the site may not reach; raised inside the connector."""


def never_reachable(ip: IPAddress) -> str | None:
    """Return why `ip` is refused whatever a site allows (metadata, link-local), or None."""
    return _judged(ip, lambda plain: "link-local address" if plain.is_link_local else None)


def address_refusal(ip: IPAddress) -> str | None:
    """Return why `ip` may not be fetched from, or None for a public address."""
    return _judged(ip, _plain_refusal)


def _judged(ip: IPAddress, judge: Callable[[IPAddress], str | None]) -> str | None:
    # Metadata first, then an IPv4 address hidden in an IPv6 one is judged as itself.
    if ip in _METADATA:
        return "cloud metadata address"
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            form, inner = embedded
            reason = _judged(inner, judge)
            return f"{form} form of {inner} ({reason})" if reason else None
    return judge(ip)


def _plain_refusal(ip: IPAddress) -> str | None:
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in _NAT64_LOCAL:
            return "local-use NAT64 address"
        if ip in _IPV4_COMPATIBLE and not (ip.is_loopback or ip.is_unspecified):
            return "IPv4-compatible IPv6 address"
        if ip.teredo is not None:
            return "Teredo address"
        if ip.is_site_local:
            return "site-local address"
    for test, reason in (
        (ip.is_unspecified, "unspecified address"),
        (ip.is_loopback, "loopback address"),
        (ip.is_link_local, "link-local address"),
        (ip.is_multicast, "multicast address"),
        (ip in ipaddress.ip_network("100.64.0.0/10"), "carrier-grade NAT address"),
        (ip.is_private, "private address"),
        (ip.is_reserved, "reserved address"),
        (any(ip in net for net in _SPECIAL_PURPOSE), "special-purpose address"),
        (not ip.is_global, "non-global address"),
    ):
        if test:
            return reason
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[str, ipaddress.IPv4Address] | None:
    if ip.ipv4_mapped is not None:
        return "IPv4-mapped", ip.ipv4_mapped
    if ip.sixtofour is not None:
        return "6to4", ip.sixtofour
    if ip in _NAT64:
        return "NAT64", ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def parse_ip(host: str) -> IPAddress | None:
    """Return the address a canonical IP literal names, or None for anything else."""
    text = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


@lru_cache(maxsize=256)
def networks(specs: tuple[str, ...]) -> tuple[IPNetwork, ...]:
    """Parse CIDR strings ("10.1.2.0/24", "127.0.0.1") once; raise ValueError on a bad one."""
    return tuple(ipaddress.ip_network(spec.strip(), strict=False) for spec in specs)


def refusal(
    ip: IPAddress, allowed: tuple[str, ...] = (), *, allow_private: bool = False
) -> str | None:
    """Return why `ip` is refused unless private ones are allowed or it is in `allowed`."""
    never = never_reachable(ip)
    if never or allow_private:
        return never
    if allowed and any(ip in net for net in networks(allowed) if net.version == ip.version):
        return None
    return address_refusal(ip)


def host_refusal(
    host: str, allowed: tuple[str, ...] = (), *, allow_private: bool = False
) -> str | None:
    """Return why a URL host is refused before any DNS lookup, or None to go on resolving."""
    host = host.strip().lower()
    if not host:
        return "empty host"
    ip = parse_ip(host)
    if ip is not None:
        reason = refusal(ip, allowed, allow_private=allow_private)
        return f"{host}: {reason}" if reason else None
    if _INET_ATON.fullmatch(host):
        if not allow_private:
            return f"{host}: odd numeric spelling of an IP address"
        try:
            meant = ipaddress.IPv4Address(socket.inet_aton(host.rstrip(".")))
        except (OSError, ValueError):
            return None
        reason = never_reachable(meant)
        return f"{host}: spelling of {meant} ({reason})" if reason else None
    return None


async def system_resolve(host: str) -> list[str]:
    """Resolve `host` with the system resolver (getaddrinfo), IPv4 and IPv6."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, None, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


async def vetted_addresses(
    host: str, resolver: Resolver, *, allow_private: bool, allowed: tuple[str, ...] = ()
) -> list[IPAddress]:
    """Resolve `host` once and return its addresses; raise SSRFRefused if any is not public.

    `allowed` names networks a site may reach even without `allow_private`; metadata and
    link-local addresses are refused whatever either says.
    """
    reason = host_refusal(host, allowed, allow_private=allow_private)
    if reason:
        raise SSRFRefused(reason)
    literal = parse_ip(host)
    answers = [str(literal)] if literal is not None else await resolver(host.rstrip("."))
    return _vetted(host, answers, allow_private=allow_private, allowed=allowed)


def vetted_addresses_now(
    host: str, *, allow_private: bool, allowed: tuple[str, ...] = ()
) -> list[IPAddress]:
    """`vetted_addresses` for synchronous code, with the system resolver (getaddrinfo)."""
    reason = host_refusal(host, allowed, allow_private=allow_private)
    if reason:
        raise SSRFRefused(reason)
    literal = parse_ip(host)
    if literal is not None:
        answers = [str(literal)]
    else:
        infos = socket.getaddrinfo(
            host.rstrip("."), None, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
        answers = list(dict.fromkeys(str(info[4][0]) for info in infos))
    return _vetted(host, answers, allow_private=allow_private, allowed=allowed)


def _vetted(
    host: str, answers: Sequence[str], *, allow_private: bool, allowed: tuple[str, ...]
) -> list[IPAddress]:
    addresses = [ip for ip in (parse_ip(a) for a in answers) if ip is not None]
    if not addresses:
        raise OSError(f"{host} has no usable address")
    # One bad answer poisons the lot: a mixed answer is how DNS rebinding gets in.
    for ip in addresses:
        reason = refusal(ip, allowed, allow_private=allow_private)
        if reason:
            raise SSRFRefused(f"{host} resolves to {ip}: {reason}")
    return addresses


class VettingResolver(AbstractResolver):
    """aiohttp resolver that returns only vetted addresses, so the client connects to them."""

    def __init__(
        self, resolver: Resolver, *, allow_private: bool, allowed: tuple[str, ...] = ()
    ) -> None:
        self._resolver = resolver
        self._allow_private = allow_private
        self._allowed = allowed

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await vetted_addresses(
            host, self._resolver, allow_private=self._allow_private, allowed=self._allowed
        )
        results: list[ResolveResult] = []
        for ip in addresses:
            ip_family = socket.AF_INET if ip.version == 4 else socket.AF_INET6
            if family not in (socket.AF_UNSPEC, ip_family):
                continue
            results.append(
                ResolveResult(
                    hostname=host,
                    host=str(ip),
                    port=port,
                    family=ip_family,
                    proto=0,
                    flags=socket.AI_NUMERICHOST,
                )
            )
        if not results:
            raise OSError(f"{host} has no address of family {family!r}")
        return results

    async def close(self) -> None:
        return None


def refusal_in(exc: BaseException | None) -> SSRFRefused | None:
    """Find an SSRFRefused in an exception's cause chain (aiohttp wraps resolver errors)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, SSRFRefused):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__ or _os_error(exc)
    return None


def _os_error(exc: BaseException) -> Any:
    return getattr(exc, "os_error", None)
