"""Account mail leaves the request: a sign-up answers without a mail server, the mail follows."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.tasks import send_account_mail
from config.celery_app import app
from tests.factories import PASSWORD
from tests.servers import free_port

pytestmark = pytest.mark.django_db


def queued(task_name: str) -> list[dict]:
    """Take the queued calls of `task_name` off the broker's publish queue."""
    calls = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue("publish")
        try:
            while True:
                try:
                    message = queue.get(timeout=1)
                except queue.Empty:
                    return calls
                message.ack()
                if message.headers.get("task") == task_name:
                    args, kwargs, _ = message.payload
                    calls.append({"args": args, "kwargs": kwargs})
        finally:
            queue.close()


def test_sign_up_answers_while_the_mail_server_is_down_and_the_mail_follows(
    client, settings, smtp_server
):
    queued(send_account_mail.name)  # whatever earlier tests left
    reachable = settings.EMAIL_PORT
    settings.EMAIL_PORT = free_port()  # nothing listens: the mail server is down
    response = client.post(
        reverse("account_signup"),
        {"email": "dana@example.com", "password1": PASSWORD, "password2": PASSWORD},
    )
    assert response.status_code == 302
    assert smtp_server.messages == []

    calls = queued(send_account_mail.name)
    assert len(calls) == 1
    settings.EMAIL_PORT = reachable  # the server is back; the worker runs the task
    send_account_mail.apply(args=calls[0]["args"], kwargs=calls[0]["kwargs"]).get()
    [message] = smtp_server.messages
    assert message["To"] == "dana@example.com"
    assert re.search(r"/accounts/confirm-email/\S+/", message.get_body().get_content())
