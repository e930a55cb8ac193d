"""Secrets at rest: Fernet with a key derived from SECRET_KEY (HKDF), never stored.

Notification channel URLs carry tokens and passwords; they are kept sealed and opened only to
send. SECRET_KEY_FALLBACKS keep opening what an older SECRET_KEY sealed, as Django's signing
does, so rotating the key loses no channel.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings
from django.utils.translation import gettext as _

_INFO = b"webclip: notification channel URLs"


class SealError(ValueError):
    """A sealed value that no current or fallback key opens."""


def _key(secret: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(
        secret.encode()
    )
    return Fernet(base64.urlsafe_b64encode(derived))


def _keys() -> MultiFernet:
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet([_key(secret) for secret in secrets])


def seal(text: str) -> str:
    """Return `text` encrypted and authenticated with the current key."""
    return _keys().encrypt(text.encode()).decode("ascii")


def unseal(token: str) -> str:
    """Return the text of a sealed value; raise SealError if no key opens it."""
    try:
        return _keys().decrypt(token.encode("ascii")).decode()
    except (InvalidToken, UnicodeError) as exc:
        raise SealError(_("The sealed value cannot be opened with SECRET_KEY.")) from exc
