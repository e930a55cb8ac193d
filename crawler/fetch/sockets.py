"""Synchronous clients (requests through urllib3, smtplib) connecting only to vetted addresses.

Inside `vetted_sockets(allowed)`, every TCP connection the current thread opens through
`socket.create_connection` (smtplib, http.client) or urllib3 (requests, and so Apprise) resolves
its host once, is judged as the crawler's fetcher judges it (`vetted_addresses_now`: private,
loopback, link-local and metadata addresses refused unless in `allowed`, metadata and link-local
always) and connects to the address it vetted. Redirects are covered because every hop opens
its own connection, and DNS rebinding finds no second lookup to answer. A refused connection
raises `SSRFRefused`, an `OSError`, which the clients report as a failed connection.

Outside the block, and in other threads, the two functions behave exactly as before.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import urllib3.util.connection

from crawler.fetch.ssrf import SSRFRefused, vetted_addresses_now

# The networks a guarded block may reach beyond the public internet, and the refusals it met;
# None: not guarded.
_BLOCK: ContextVar[tuple[tuple[str, ...], list[str]] | None] = ContextVar(
    "vetted_sockets", default=None
)
_INSTALL = threading.Lock()
_installed = False


@contextmanager
def vetted_sockets(allowed: tuple[str, ...] = ()) -> Iterator[list[str]]:
    """Make this thread's TCP connections go only to vetted addresses while the block runs.

    Yields the list of refusals met in the block (clients often swallow the exception).
    """
    _install()
    refusals: list[str] = []
    token = _BLOCK.set((tuple(allowed), refusals))
    try:
        yield refusals
    finally:
        _BLOCK.reset(token)


def vetted_address(host: str, allowed: tuple[str, ...] = ()) -> str:
    """Resolve `host` once and return the address to connect to; raise SSRFRefused if refused."""
    return str(vetted_addresses_now(host, allow_private=False, allowed=allowed)[0])


def _guarded(connect: Callable[..., Any]) -> Callable[..., Any]:
    def create_connection(address: tuple[str, int], *args: Any, **kwargs: Any) -> Any:
        block = _BLOCK.get()
        if block is not None:
            allowed, refusals = block
            host, port = address[0], address[1]
            try:
                address = (vetted_address(str(host), allowed), port)
            except SSRFRefused as exc:
                refusals.append(str(exc))
                raise
        return connect(address, *args, **kwargs)

    create_connection.__wrapped__ = connect  # type: ignore[attr-defined]
    return create_connection


def _install() -> None:
    global _installed
    with _INSTALL:
        if _installed:
            return
        socket.create_connection = _guarded(socket.create_connection)
        urllib3.util.connection.create_connection = _guarded(
            urllib3.util.connection.create_connection
        )
        _installed = True
