"""Synchronous clients inside `vetted_sockets` connect only where the fetcher would."""

from __future__ import annotations

import smtplib
import socket
import threading

import pytest
import requests

from crawler.fetch import SSRFRefused
from crawler.fetch.sockets import vetted_sockets
from tests.channels.servers import CountingListener


def test_a_refused_address_gets_no_connection_inside_the_block_and_one_outside():
    with CountingListener("127.0.0.2") as inside:
        port = int(inside.url.split(":")[2].split("/")[0])
        with vetted_sockets() as refusals, pytest.raises(SSRFRefused):
            socket.create_connection(("127.0.0.2", port), timeout=2)
        assert refusals and "127.0.0.2" in refusals[0]
        socket.create_connection(("127.0.0.2", port), timeout=2).close()
        wait = threading.Event()
        wait.wait(0.3)
    assert inside.accepted == 1


def test_requests_and_smtplib_are_guarded_and_an_allowed_network_passes():
    with CountingListener("127.0.0.2") as inside:
        port = int(inside.url.split(":")[2].split("/")[0])
        with vetted_sockets() as refusals:
            with pytest.raises(requests.ConnectionError):
                requests.get(inside.url, timeout=2)
            with pytest.raises(SSRFRefused):
                smtplib.SMTP("127.0.0.2", port, timeout=2)
            with pytest.raises(SSRFRefused):
                socket.create_connection(("localhost", port), timeout=2)
        assert len(refusals) == 3
        with vetted_sockets(("127.0.0.2/32",)), pytest.raises(OSError):
            requests.get(inside.url, timeout=2)  # connects; the listener just hangs up
        threading.Event().wait(0.3)
    assert inside.accepted == 1


def test_metadata_stays_refused_whatever_the_allowed_networks():
    with (
        vetted_sockets(("0.0.0.0/0",)) as refusals,
        pytest.raises(SSRFRefused),
    ):
        socket.create_connection(("169.254.169.254", 80), timeout=2)
    assert "metadata" in refusals[0]


def test_other_threads_are_not_guarded_by_this_block():
    with CountingListener("127.0.0.2") as inside:
        port = int(inside.url.split(":")[2].split("/")[0])
        with vetted_sockets():
            thread = threading.Thread(
                target=lambda: socket.create_connection(("127.0.0.2", port), timeout=2).close()
            )
            thread.start()
            thread.join()
        threading.Event().wait(0.3)
    assert inside.accepted == 1
