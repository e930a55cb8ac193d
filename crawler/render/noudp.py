"""Chromium without UDP: a seccomp filter on the browser's processes refuses UDP sockets.

Every TCP connection of the browser goes through an egress proxy of ours, but WebRTC's STUN,
TURN and ICE packets are UDP, which no HTTP proxy carries, and no switch of this Chromium
stops them (`--force-webrtc-ip-handling-policy` did not). So the browser is started through
a small launcher that installs a seccomp filter before it executes Chromium: socket() for
AF_INET or AF_INET6 with SOCK_DGRAM fails with EPERM in the browser and every process it
starts (a filter is inherited and cannot be removed); raw and packet sockets go too. DNS is off anyway
(--host-resolver-rules) and QUIC too (--disable-quic), so nothing it needs is lost. Pages
also lose RTCPeerConnection (`WEBRTC_OFF`, an init script in every frame).
"""

from __future__ import annotations

import hashlib
import os
import platform
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.async_api import BrowserContext

# Runs in the launcher process: plain Python, no project imports.
FILTER_SOURCE = r'''
import ctypes, os, struct, sys

def refuse_udp():
    """Install a seccomp filter: an AF_INET or AF_INET6 socket() other than SOCK_STREAM,
    any AF_PACKET socket, and io_uring (which makes sockets past the filter) -> EPERM."""
    ld_w_abs, jeq_k, and_k, ret_k = 0x20, 0x15, 0x54, 0x06
    allow, eperm = 0x7FFF0000, 0x00050000 | 1
    audit_arch_x86_64, nr_socket, nr_io_uring_setup = 0xC000003E, 41, 425
    af_inet, af_inet6, af_packet, sock_stream = 2, 10, 17, 1
    program = [
        (ld_w_abs, 0, 0, 4), (jeq_k, 1, 0, audit_arch_x86_64), (ret_k, 0, 0, eperm),
        (ld_w_abs, 0, 0, 0), (jeq_k, 9, 0, nr_io_uring_setup), (jeq_k, 0, 7, nr_socket),
        (ld_w_abs, 0, 0, 16), (jeq_k, 6, 0, af_packet), (jeq_k, 1, 0, af_inet),
        (jeq_k, 0, 3, af_inet6),
        (ld_w_abs, 0, 0, 24), (and_k, 0, 0, 0xF), (jeq_k, 0, 1, sock_stream),
        (ret_k, 0, 0, allow), (ret_k, 0, 0, eperm),
    ]
    raw = b"".join(struct.pack("HBBI", *insn) for insn in program)
    buffer = ctypes.create_string_buffer(raw)
    class Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    prog = Prog(len(program), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:  # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "seccomp filter refused")

refuse_udp()
os.execv(CHROMIUM, [CHROMIUM, *sys.argv[1:]])
'''

# Deletes WebRTC's constructors in every frame before the page's scripts run (a backstop:
# the seccomp filter is what stops the packets).
WEBRTC_OFF = """(() => {
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel",
                      "RTCIceCandidate", "RTCSessionDescription", "RTCRtpSender",
                      "RTCRtpReceiver", "RTCRtpTransceiver"]) {
    try { delete globalThis[name]; } catch (e) {}
    try { Object.defineProperty(globalThis, name, {value: undefined, configurable: false}); }
    catch (e) {}
  }
})();"""


async def harden(context: BrowserContext) -> BrowserContext:
    """Take WebRTC away from every frame of a new context (UDP is refused below it anyway)."""
    await context.add_init_script(WEBRTC_OFF)
    return context


def supported() -> bool:
    """Tell whether this machine can filter system calls the way the launcher does."""
    return sys.platform == "linux" and platform.machine() in {"x86_64", "AMD64"}


def launcher(chromium: str) -> str:
    """Return the path of an executable that starts `chromium` with UDP refused.

    Written once per Chromium path and user into the temporary folder; a machine the filter
    does not know (not Linux on x86-64) gets `chromium` itself.
    """
    if not supported():
        return chromium
    source = (
        f"#!{sys.executable}\n# Webclip: Chromium with UDP refused (crawler/render/noudp.py)\n"
        f"CHROMIUM = {chromium!r}\n{FILTER_SOURCE}"
    )
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / f"webclip-chromium-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"chromium-noudp-{digest}"
    if not path.exists():
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(source)
        partial.chmod(0o700)
        partial.replace(path)
    return str(path)
