"""ESP tracking webhooks (django-anymail): bounced, complaining and refused addresses get no more mail.

Anymail's views parse each ESP's events and check its shared secret (HTTP basic auth,
ANYMAIL_WEBHOOK_SECRET, plus the ESP's own signature where it has one). Here the routes only
exist while a secret is configured, and only for the ESPs whose own settings are there (a
route whose ESP lacks its signing key or library answers 404, not a server error), and each
event is handled once: its id is recorded under a unique constraint, so a replayed webhook
changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from typing import Any

from anymail import urls as anymail_urls
from anymail.signals import AnymailTrackingEvent, EventType
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, RequestDataTooBig
from django.db import IntegrityError, transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern

from accounts.models import User
from base.bodies import check_json_depth
from clipping.models import Suppression, WebhookEvent
from clipping.publisher import block_address

logger = logging.getLogger(__name__)

WEBHOOK_MAX_BYTES = 1024 * 1024  # an ESP posts a batch of events; none comes near this

BLOCKING_EVENTS = {
    EventType.BOUNCED: "bounced",
    EventType.COMPLAINED: "complained",
    EventType.REJECTED: "rejected",
    EventType.UNSUBSCRIBED: "unsubscribed at the provider",
}


def webhook_secret_configured() -> bool:
    """Tell whether anymail webhooks have a shared secret (without one they stay closed)."""
    return bool(getattr(settings, "ANYMAIL", {}).get("WEBHOOK_SECRET"))


def handle_tracking(
    sender: object, event: AnymailTrackingEvent, esp_name: str, **kwargs: Any
) -> None:
    """Block the address of a bounce, complaint, rejection or ESP unsubscribe, once per event."""
    reason = BLOCKING_EVENTS.get(event.event_type)
    if reason is None or not event.recipient:
        return
    event_id = event.event_id or _payload_id(event)
    try:
        with transaction.atomic():
            WebhookEvent.objects.create(
                esp=esp_name[:40],
                event_id=str(event_id)[:200],
                event_type=str(event.event_type)[:40],
                recipient=event.recipient[:254],
            )
            detail = event.description or event.mta_response or str(event.reject_reason or "")
            block_address_of_recipient(event.recipient, reason, f"{esp_name}: {detail}")
    except IntegrityError:
        logger.info("Ignoring replayed %s event %s", esp_name, event_id)


def block_address_of_recipient(address: str, reason: str, detail: str) -> None:
    """Suppress an address and block the user who has it."""
    user = User.objects.filter(email__iexact=address.strip()).first()
    if user is None:
        Suppression.objects.get_or_create(
            address=address.strip().lower(), defaults={"reason": reason, "detail": detail[:500]}
        )
        return
    block_address(user, address, reason, detail)


def _payload_id(event: AnymailTrackingEvent) -> str:
    """Return a stable id for an event whose ESP gives none: the digest of its payload."""
    payload = json.dumps(event.esp_event, sort_keys=True, default=str)
    return "sha256:" + hashlib.sha256(payload.encode()).hexdigest()


def _secret_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    def guarded(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if not webhook_secret_configured():
            raise Http404("Tracking webhooks are off until ANYMAIL_WEBHOOK_SECRET is set.")
        try:
            if len(request.body) > WEBHOOK_MAX_BYTES:
                return HttpResponse("The body is too large.", status=413, content_type="text/plain")
            check_json_depth(request.body)
            return view(request, *args, **kwargs)
        except ImproperlyConfigured as exc:
            # Raised as anymail builds the view, before the request is read or checked.
            logger.info("Refusing a webhook for an ESP that is not set up: %s", exc)
            raise Http404("This ESP's tracking webhook is not set up.") from exc
        except RequestDataTooBig:
            return HttpResponse("The body is too large.", status=413, content_type="text/plain")
        except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError) as exc:
            # A body the ESP's parser cannot read (TooDeep is a ValueError): the sender's fault.
            logger.info("Refusing a malformed webhook body: %r", exc)
            return HttpResponse("Malformed body.", status=400, content_type="text/plain")

    guarded.csrf_exempt = True  # type: ignore[attr-defined]  # ESPs post without a CSRF token
    return guarded


def tracking_urlpatterns() -> list[URLPattern]:
    """Return anymail's tracking webhook routes, closed while no shared secret is set."""
    return [
        URLPattern(
            pattern.pattern, _secret_required(pattern.callback), pattern.default_args, pattern.name
        )
        for pattern in anymail_urls.urlpatterns
        if isinstance(pattern, URLPattern) and "tracking" in (pattern.name or "")
    ]
