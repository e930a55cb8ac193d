"""Signed one-click unsubscribe tokens (RFC 8058): stop mail for one list, or all mail.

A token is a bearer capability in the mail that carries it, so the POST that uses it needs no
cookie or login. It is signed with SECRET_KEY; anything altered fails with BadToken.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext

from accounts.models import User
from clipping.models import KeywordList, Match

SALT = "clipping.unsubscribe"


class BadToken(ValueError):
    """The token was not made by this site, or was altered."""


@dataclass(frozen=True)
class Target:
    """What a token stops: one list's mail, or (list None) every mail of the user."""

    user: User
    keyword_list: KeywordList | None

    def describe(self) -> str:
        if self.keyword_list is None:
            return gettext("all mail from us")
        return gettext("mail for your list “%(name)s”") % {"name": self.keyword_list.name}


def make_token(user_id: int, list_id: int | None = None) -> str:
    """Return a token that stops one list's mail, or all mail when list_id is None."""
    return signing.dumps([user_id, list_id], salt=SALT, compress=False)


def unsubscribe_url(user_id: int, list_id: int | None = None) -> str:
    """Return the absolute one-click URL for a token."""
    return settings.SITE_URL + reverse("unsubscribe", args=[make_token(user_id, list_id)])


def read_token(token: str) -> Target:
    """Return what a token stops; BadToken if forged, LookupError if its list or user is gone."""
    try:
        user_id, list_id = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise BadToken("This unsubscribe link is not valid.") from exc
    if not isinstance(user_id, int) or not (list_id is None or isinstance(list_id, int)):
        raise BadToken("This unsubscribe link is not valid.")
    user = User.objects.filter(id=user_id).first()
    if user is None:
        raise LookupError("The account no longer exists.")
    if list_id is None:
        return Target(user, None)
    keyword_list = KeywordList.objects.owned_by(user).filter(id=list_id).first()
    if keyword_list is None:
        raise LookupError("The list no longer exists.")
    return Target(user, keyword_list)


def stop_mail(target: Target) -> None:
    """Stop the mail a token names, at once: nothing still waiting is sent."""
    with transaction.atomic():
        pending = Match.objects.undelivered().filter(owner=target.user)
        if target.keyword_list is None:
            User.objects.filter(id=target.user.id).update(mail_paused=True)
            note = "Mail paused by one-click unsubscribe."
        else:
            KeywordList.objects.filter(id=target.keyword_list.id).update(mail_enabled=False)
            pending = pending.filter(keyword_list=target.keyword_list)
            note = "Mail for this list stopped by one-click unsubscribe."
        pending.update(mail_status=Match.MailStatus.SKIPPED, mail_note=note)
