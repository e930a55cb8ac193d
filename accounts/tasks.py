"""Celery tasks of accounts: the account mails (verification, reset, notices), sent off the request.

A sign-up answers before its mail is sent: the time of the answer then says nothing about
whether a mail went out (allauth sends a taken address at most one notice per few minutes), and
an SMTP outage retries the mail instead of failing the sign-up.
"""

from __future__ import annotations

import smtplib
from typing import Any

from celery import shared_task
from django.core.mail import EmailMessage, EmailMultiAlternatives


def serialize(message: EmailMessage) -> dict[str, Any]:
    """Return the parts of a rendered mail as plain JSON."""
    return {
        "subject": message.subject,
        "body": message.body,
        "from_email": message.from_email,
        "to": list(message.to),
        "headers": dict(message.extra_headers),
        "content_subtype": message.content_subtype,
        "alternatives": [list(part) for part in getattr(message, "alternatives", [])],
    }


def deserialize(parts: dict[str, Any]) -> EmailMultiAlternatives:
    message = EmailMultiAlternatives(
        subject=parts["subject"],
        body=parts["body"],
        from_email=parts["from_email"],
        to=parts["to"],
        headers=parts["headers"],
    )
    message.content_subtype = parts["content_subtype"]
    for content, mimetype in parts["alternatives"]:
        message.attach_alternative(content, mimetype)
    return message


@shared_task(
    autoretry_for=(OSError, smtplib.SMTPException),
    retry_backoff=5,  # seconds, doubled per attempt: 5, 10, 20 ... up to ten minutes
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def send_account_mail(parts: dict[str, Any]) -> None:
    """Send one rendered account mail (retried with backoff while the mail server fails)."""
    deserialize(parts).send()
