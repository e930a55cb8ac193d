"""Real notification endpoints on 127.0.0.1: a JSON webhook and an ntfy-style server.

Both record every message they accept; `failing` scripts the next answers (500, 503...).
Apprise's json:// URL posts {"title", "message", ...} to the URL's path; its ntfy:// URL
posts {"topic", "title", "message"} to "/", as ntfy's JSON publishing does.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Received:
    path: str
    payload: dict


@dataclass
class Endpoint:
    """What the server got and what it answers next."""

    messages: list[Received] = field(default_factory=list)
    failing: list[int] = field(default_factory=list)  # statuses for the next requests
    attempts: int = 0
    redirect_to: str = ""  # when set, every post is answered 307 to this URL


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        endpoint = self.server.endpoint
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if endpoint.redirect_to:
            self.send_response(307)
            self.send_header("Location", endpoint.redirect_to)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        with self.server.lock:
            endpoint.attempts += 1
            status = endpoint.failing.pop(0) if endpoint.failing else 200
            if status == 200:
                endpoint.messages.append(Received(self.path, json.loads(body or b"{}")))
        answer = b'{"ok": true}' if status == 200 else b'{"error": "down"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        return


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    endpoint: Endpoint
    lock: threading.Lock


class NotifyServer:
    """A threaded HTTP server that takes webhook and ntfy posts."""

    def __init__(self) -> None:
        self.endpoint = Endpoint()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.endpoint = self.endpoint
        self._server.lock = threading.Lock()
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> NotifyServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def messages(self) -> list[Received]:
        return self.endpoint.messages

    def json_url(self, path: str = "/hook") -> str:
        return f"json://127.0.0.1:{self.port}{path}"

    def ntfy_url(self, topic: str = "clips") -> str:
        return f"ntfy://127.0.0.1:{self.port}/{topic}"


class CountingListener:
    """A TCP port on `host` that counts the connections it accepts and closes them."""

    def __init__(self, host: str) -> None:
        self._socket = socket.create_server((host, 0))
        self._socket.settimeout(0.1)
        self.url = f"http://{host}:{self._socket.getsockname()[1]}/inside"
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            connection.close()

    def __enter__(self) -> CountingListener:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._socket.close()
