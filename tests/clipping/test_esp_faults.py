"""Mail through an ESP's HTTP API (anymail's Postmark backend) against a real local server.

The server speaks Postmark's /email API on 127.0.0.1 and answers as scripted: errors the ESP
may recover from are retried, a refused recipient blocks the address, other client errors are
permanent, and a stalled API hits anymail's timeout (set from EMAIL_TIMEOUT). As with SMTP,
an ESP that took a message but whose answer never came back is sent it again on retry.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from accounts.models import User
from clipping import publisher
from clipping.models import Delivery, Match, Suppression
from clipping.publisher import Outcome, TransientSendError
from tests.factories import make_list, make_match

pytestmark = pytest.mark.django_db

INACTIVE = (
    "You tried to send to recipient(s) that have been marked as inactive.\n"
    "Found inactive addresses: alice@example.com.\n"
    "Inactive recipients are ones that have generated a hard bounce, a spam complaint, "
    "or a manual suppression."
)


@dataclass
class FakePostmark:
    """A local HTTP server answering Postmark's send API; replies are (status, body or STALL)."""

    port: int = 0
    replies: list[tuple[int, object]] = field(default_factory=list)
    accepted: list[dict[str, object]] = field(default_factory=list)
    requests: int = 0


@pytest.fixture
def postmark(settings) -> Iterator[FakePostmark]:
    state = FakePostmark()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server hook name)
            payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests += 1
            status, body = state.replies.pop(0) if state.replies else (200, None)
            if body == "STALL":
                time.sleep(3)  # longer than the client waits; the message is not taken
                body = {"ErrorCode": 0, "Message": "Gateway timeout"}
            if status == 200:
                state.accepted.append(payload)
                body = {
                    "To": payload["To"],
                    "SubmittedAt": "2025-03-03T08:00:00Z",
                    "MessageID": f"pm-{state.requests}",
                    "ErrorCode": 0,
                    "Message": "OK",
                }
            data = json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up waiting

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.EMAIL_BACKEND = "anymail.backends.postmark.EmailBackend"
    settings.ANYMAIL = {
        "POSTMARK_SERVER_TOKEN": "test-token",
        "POSTMARK_API_URL": f"http://127.0.0.1:{state.port}/",
        "REQUESTS_TIMEOUT": 1,
    }
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "reply",
    [
        (500, {"ErrorCode": 500, "Message": "Internal server error"}),
        (503, {"ErrorCode": 0, "Message": "Service unavailable"}),
        (429, {"ErrorCode": 429, "Message": "Rate limit exceeded"}),
        (504, "STALL"),
    ],
    ids=["500", "503", "429", "stall"],
)
def test_an_esp_error_that_may_pass_is_retried_and_the_match_sent_once(alice, postmark, reply):
    postmark.replies.append(reply)
    match = make_match(make_list(alice, "Energy", "subsidy"))

    with pytest.raises(TransientSendError):
        publisher.deliver_match(match.id)
    assert publisher.deliver_match(match.id) == Outcome.SENT
    assert publisher.deliver_match(match.id) == Outcome.BUSY

    (sent,) = postmark.accepted
    assert (
        sent["To"] == "alice@example.com"
        and sent["Subject"] == f"[Webclip] Energy: {match.clip.title}"
    )
    assert {"Name": "List-Unsubscribe-Post", "Value": "List-Unsubscribe=One-Click"} in sent[
        "Headers"
    ]
    assert sent["HtmlBody"] and sent["TextBody"]
    failed, ok = Delivery.objects.order_by("id")
    assert failed.status == "failed" and not failed.permanent
    assert ok.status == "sent"


def test_an_inactive_recipient_at_the_esp_blocks_the_address_for_good(alice, postmark):
    postmark.replies.append((422, {"ErrorCode": 406, "Message": INACTIVE}))
    match = make_match(make_list(alice, "Energy", "subsidy"))
    later = make_match(make_list(alice, "Housing", "subsidy"), title="Later")

    assert publisher.deliver_match(match.id) == Outcome.FAILED
    assert publisher.deliver_match(later.id) == Outcome.SKIPPED

    assert postmark.requests == 1 and postmark.accepted == []
    assert Match.objects.get(id=match.id).mail_status == "failed"
    assert Suppression.objects.holds("alice@example.com")
    assert User.objects.get(id=alice.id).mail_blocked_reason.startswith("refused")
    assert Delivery.objects.get().permanent


def test_a_refused_request_is_permanent_but_leaves_the_address_open(alice, postmark):
    postmark.replies.append((422, {"ErrorCode": 300, "Message": "Invalid 'From' address."}))
    match = make_match(make_list(alice, "Energy", "subsidy"))

    assert publisher.deliver_match(match.id) == Outcome.FAILED
    assert publisher.deliver_match(match.id) == Outcome.BUSY

    assert postmark.requests == 1
    assert not Suppression.objects.exists()
    assert User.objects.get(id=alice.id).mail_blocked_reason == ""
