"""Hostile servers: huge bodies, decompression bombs, silence, trickling. Every fetch ends."""

from __future__ import annotations

import gzip
import socket
import threading
import time

import brotli
import pytest

from crawler.fetch import FetchPolicy, SiteRules
from tests.crawler.servers import Response, SiteServer, fetch_once, gzip_bomb

# Small caps keep the suite fast; the defaults (5 MiB, 30 s) are the same code path.
CAP = 256 * 1024
QUICK = FetchPolicy(
    max_body_bytes=CAP, connect_timeout=1.0, read_timeout=1.0, total_timeout=2.0, retries=0
)
# The bound for any one fetch; ours end far sooner with the test caps.
HARD_LIMIT = 30.0


@pytest.fixture
def site():
    with SiteServer() as server:
        server.robots("", status=404)
        yield server


def timed_fetch(url, policy=QUICK):
    started = time.monotonic()
    result = fetch_once(url, policy=policy)
    return result, time.monotonic() - started


def test_a_body_over_the_cap_is_refused(site):
    site.route("/big", site.huge(CAP * 4))

    result, took = timed_fetch(site.url("/big"))

    assert result.error.kind == "too_large"
    assert result.body == b""
    assert took < HARD_LIMIT


def test_a_chunked_body_over_the_cap_is_refused_while_reading(site):
    site.route("/big", site.huge(CAP * 4, chunked=True))

    result, _ = timed_fetch(site.url("/big"))

    assert result.error.kind == "too_large"
    assert "decompression" in result.error.message or "over" in result.error.message


def test_a_body_just_under_the_cap_is_kept(site):
    site.route("/fits", site.huge(CAP))

    result, _ = timed_fetch(site.url("/fits"))

    assert result.error is None
    assert len(result.body) == CAP


def test_a_gzip_bomb_is_refused_at_the_cap_after_decompression(site):
    bomb = gzip_bomb(64 * 1024 * 1024)  # 64 MiB of zeros in about 64 KiB
    assert len(bomb.payload()) < CAP  # the compressed size alone passes the cap
    site.route("/bomb", bomb)

    result, took = timed_fetch(site.url("/bomb"))

    assert result.error.kind == "too_large"
    assert "decompression" in result.error.message
    assert took < HARD_LIMIT


def test_a_brotli_bomb_is_refused_too(site):
    payload = brotli.compress(b"<p>" + b"a" * (32 * 1024 * 1024))
    site.route(
        "/bomb", Response(payload, headers={"Content-Type": "text/html", "Content-Encoding": "br"})
    )

    result, _ = timed_fetch(site.url("/bomb"))

    assert result.error.kind == "too_large"


def test_stacked_encodings_are_refused(site):
    twice = gzip.compress(gzip.compress(b"<p>hello</p>"))
    site.route(
        "/twice",
        Response(twice, headers={"Content-Type": "text/html", "Content-Encoding": "gzip, gzip"}),
    )

    result, _ = timed_fetch(site.url("/twice"))

    assert result.error.kind == "decoding"
    assert "stacked" in result.error.message


def test_a_server_that_never_answers_times_out(site):
    site.route("/silent", site.never_answers)

    result, took = timed_fetch(site.url("/silent"))

    assert result.error.kind == "timeout"
    assert took < QUICK.total_timeout + 1.5


@pytest.mark.slow
def test_a_server_that_trickles_a_byte_per_second_hits_the_total_deadline(site):
    # Each byte arrives before the read timeout, so only the total deadline can stop it.
    patient = FetchPolicy(
        max_body_bytes=CAP, connect_timeout=1.0, read_timeout=5.0, total_timeout=2.0, retries=0
    )
    site.route("/drip", site.trickle(interval=1.0, size=1000))

    result, took = timed_fetch(site.url("/drip"), patient)

    assert result.error.kind == "timeout"
    assert "total deadline" in result.error.message
    assert 1.5 < took < patient.total_timeout + 1.5


@pytest.mark.slow
def test_the_total_deadline_covers_the_whole_redirect_chain(site):
    patient = FetchPolicy(connect_timeout=1.0, read_timeout=5.0, total_timeout=2.0, retries=0)
    site.redirect("/start", "/drip")
    site.route("/drip", site.trickle(interval=0.5, size=1000))

    result, took = timed_fetch(site.url("/start"), patient)

    assert result.error.kind == "timeout"
    assert result.final_url == site.url("/drip")
    assert took < patient.total_timeout + 1.5


def test_a_server_that_accepts_but_never_sends_headers_is_cut_by_the_read_timeout():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    held = []

    def accept():
        conn, _ = listener.accept()
        held.append(conn)  # read nothing, answer nothing

    threading.Thread(target=accept, daemon=True).start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
    started = time.monotonic()
    result = fetch_once(
        url, SiteRules(crawl_delay=0, obey_robots=False, allow_private_network=True), policy=QUICK
    )
    took = time.monotonic() - started
    listener.close()
    for conn in held:
        conn.close()

    assert result.error.kind == "timeout"
    assert took < QUICK.total_timeout + 1.5


@pytest.mark.slow
def test_a_slow_robots_txt_counts_against_the_same_deadline():
    patient = FetchPolicy(connect_timeout=1.0, read_timeout=5.0, total_timeout=2.0, retries=0)
    with SiteServer() as server:
        # robots.txt takes about 1.5 s to arrive, then the page trickles on.
        server.route("/robots.txt", server.trickle(interval=0.5, size=3))
        server.route("/drip", server.trickle(interval=0.5, size=1000))

        result, took = timed_fetch(server.url("/drip"), patient)

    assert result.error.kind == "timeout"
    assert "/drip" in server.paths()
    assert took < patient.total_timeout + 0.8
