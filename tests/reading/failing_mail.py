"""A mail backend whose server refuses every message, as an SMTP outage does."""

from __future__ import annotations

from smtplib import SMTPServerDisconnected

from django.core.mail.backends.base import BaseEmailBackend


class FailingBackend(BaseEmailBackend):
    def send_messages(self, email_messages):  # noqa: ANN001, ANN201
        raise SMTPServerDisconnected("the mail server went away")
