"""Read the local mailbox that the file email backend writes (embedded default, DEBUG only)."""

from __future__ import annotations

import email
import email.policy
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path

from django.http import HttpRequest

_SEPARATOR = b"-" * 79
_SESSION_KEY = "mailbox_addresses"
_FILE_NAME = re.compile(r"[\w.-]{1,200}\.log")
MAX_MAILS = 10_000


@dataclass(frozen=True)
class StoredMail:
    file: str
    subject: str
    to: str
    sender: str
    date: str
    text: str
    html: str = ""
    number: int = 0  # its place in its file: the file and number name the mail

    @classmethod
    def from_message(cls, file: str, message: EmailMessage, number: int = 0) -> StoredMail:
        """Read headers (RFC 2047 words decoded) and the text and HTML parts of one message."""
        return cls(
            file,
            str(message["Subject"] or ""),
            str(message["To"] or ""),
            str(message["From"] or ""),
            str(message["Date"] or ""),
            _part(message, "plain"),
            _part(message, "html"),
            number,
        )

    @property
    def sent_at(self) -> datetime | None:
        """The Date header as an aware time (Django writes UTC as "-0000", read as naive)."""
        try:
            sent = parsedate_to_datetime(self.date) if self.date else None
        except (TypeError, ValueError):
            return None
        if sent is not None and sent.tzinfo is None:
            sent = sent.replace(tzinfo=UTC)
        return sent

    def recipients(self) -> set[str]:
        return {address.lower() for _, address in getaddresses([self.to]) if address}


def read_mailbox(folder: str | Path, limit: int | None = 50) -> list[StoredMail]:
    """Return the newest messages first."""
    path = Path(folder)
    if not path.is_dir():
        return []
    mails: list[StoredMail] = []
    for file in sorted(path.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True):
        # Bytes, as the file backend wrote them: a text read would leave 8-bit and
        # quoted-printable bodies to be decoded twice or not at all.
        chunks = [c.strip(b"\r\n") for c in file.read_bytes().split(_SEPARATOR)]
        numbered = list(enumerate(c for c in chunks if c.strip()))
        for number, chunk in reversed(numbered):
            message = email.message_from_bytes(chunk, policy=email.policy.default)
            mails.append(StoredMail.from_message(file.name, message, number))  # type: ignore[arg-type]
            if limit is not None and len(mails) >= limit:
                return mails
    return mails


def _part(message: EmailMessage, subtype: str) -> str:
    part = message.get_body(preferencelist=(subtype,))
    if part is None:
        return ""
    try:
        return str(part.get_content())
    except (LookupError, ValueError):  # an unknown charset or a broken encoding
        return part.get_payload(decode=True).decode("utf-8", errors="replace")


def grant_confirmation(request: HttpRequest, address: str, key: str) -> None:
    """Let this session read one verification mail: the one to `address` carrying `key`.

    Nothing else sent to the address becomes readable (a password reset, a digest): the
    session is granted the mail it asked for, never the address.
    """
    granted = [pair for pair in request.session.get(_SESSION_KEY, []) if isinstance(pair, list)]
    granted.append([address.lower(), key])
    request.session[_SESSION_KEY] = granted[-5:]


def readable_addresses(request: HttpRequest) -> set[str]:
    """Return the addresses whose mail this person may read: those verified on their account."""
    user = request.user
    if not user.is_authenticated:
        return set()
    own = user.emailaddress_set.filter(verified=True).values_list("email", flat=True)
    return {a.lower() for a in own}


def readable_mails(request: HttpRequest, folder: str | Path, limit: int = 50) -> list[StoredMail]:
    """Return the newest mails this visitor may read: to an address verified on their own
    account, or a verification mail this session was granted."""
    addresses = readable_addresses(request)
    grants = [pair for pair in request.session.get(_SESSION_KEY, []) if isinstance(pair, list)]
    mails = [
        mail
        for mail in read_mailbox(folder, limit=None)
        if mail.recipients() & addresses
        or any(
            address in mail.recipients() and key in mail.text + mail.html for address, key in grants
        )
    ]
    return mails[:limit]


def find_mail(
    request: HttpRequest, folder: str | Path, file: str, number: int
) -> StoredMail | None:
    """Return one mail by its file and place, if this visitor may read it (as on the page)."""
    if not _FILE_NAME.fullmatch(file):
        return None
    if request.user.is_staff:
        mails = read_mailbox(folder, limit=None)
    else:
        mails = readable_mails(request, folder, limit=MAX_MAILS)
    return next((m for m in mails if m.file == file and m.number == number), None)
