"""Rendering sends no UDP: WebRTC's STUN and ICE packets, the one way out of a page that does
not go through the egress proxy, reach nothing, whatever the page asks of RTCPeerConnection."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from crawler.fetch import FetchPolicy, SiteRules
from crawler.fetch.sync import run_sync
from crawler.render import Renderer, noudp
from tests.crawler.servers import SiteServer

POLICY = FetchPolicy(render_timeout=15.0, render_settle=2.0, connect_timeout=2.0)

STUN_PAGE = """<!doctype html><title>rtc</title><p id="own">own page</p><script>
for (const Peer of [window.RTCPeerConnection, window.webkitRTCPeerConnection]) {{
  if (!Peer) continue;
  const pc = new Peer({{iceServers: [{{urls: "stun:127.0.0.1:{port}"}},
                                     {{urls: "turn:127.0.0.1:{port}?transport=udp",
                                       username: "u", credential: "c"}}]}});
  pc.createDataChannel("probe");
  pc.createOffer().then(offer => pc.setLocalDescription(offer));
}}
const frame = document.createElement("iframe");
frame.srcdoc = "<script>const pc = new RTCPeerConnection({{iceServers: [{{urls: " +
  "'stun:127.0.0.1:{port}'}}]}}); pc.createDataChannel('f'); " +
  "pc.createOffer().then(o => pc.setLocalDescription(o));<\\/script>";
document.body.append(frame);
</script>"""


class UdpListener:
    """A UDP socket on 127.0.0.1 that counts the datagrams it receives."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]

    def received(self) -> int:
        count = 0
        while True:
            try:
                self.sock.recvfrom(65536)
            except BlockingIOError:
                return count
            count += 1

    def close(self) -> None:
        self.sock.close()


def render_stun_page() -> int:
    """Render a page that asks WebRTC for STUN and TURN on a UDP listener; return what it got."""
    listener = UdpListener()
    try:
        with SiteServer() as site:
            site.html("/", STUN_PAGE.format(port=listener.port))
            rules = SiteRules(
                crawl_delay=0,
                obey_robots=False,
                allow_private_network=True,
                private_origins=(site.origin,),
            )
            result = run_sync(Renderer(POLICY).render(site.url("/"), rules, ("127.0.0.1",)))
        assert result.error is None, result.error
        assert "own page" in result.html
        return listener.received()
    finally:
        listener.close()


@pytest.mark.browser
def test_a_page_asking_webrtc_for_stun_sends_no_udp_packet():
    assert render_stun_page() == 0


@pytest.mark.browser
def test_udp_is_refused_below_the_page_even_with_webrtc_left_in_it(monkeypatch):
    async def untouched(context):
        return context

    monkeypatch.setattr("crawler.render.page.harden", untouched)

    assert render_stun_page() == 0


PROBE = """
import socket
for family, kind in [(2, 1), (10, 1), (2, 2), (10, 2), (2, 3), (1, 2)]:
    try:
        socket.socket(family, kind).close()
        print(family, kind, "open")
    except OSError:
        print(family, kind, "refused")
"""


def test_the_launcher_refuses_udp_and_raw_sockets_and_keeps_tcp_and_local_ones():
    launched = subprocess.run(
        [noudp.launcher(sys.executable), "-c", PROBE], capture_output=True, text=True, check=True
    )

    assert launched.stdout.split("\n")[:-1] == [
        "2 1 open",
        "10 1 open",
        "2 2 refused",
        "10 2 refused",
        "2 3 refused",
        "1 2 open",
    ]
