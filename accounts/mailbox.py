"""Read the local mailbox that the file email backend writes (embedded default, DEBUG only)."""

from __future__ import annotations

import email
import email.policy
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path

_SEPARATOR = "-" * 79


@dataclass(frozen=True)
class StoredMail:
    file: str
    subject: str
    to: str
    sender: str
    date: str
    text: str

    @classmethod
    def from_message(cls, file: str, message: EmailMessage) -> StoredMail:
        part = message.get_body(preferencelist=("plain", "html"))
        text = part.get_content() if part is not None else ""
        return cls(
            file,
            str(message["Subject"] or ""),
            str(message["To"] or ""),
            str(message["From"] or ""),
            str(message["Date"] or ""),
            text,
        )


def read_mailbox(folder: str | Path, limit: int = 50) -> list[StoredMail]:
    """Return the newest messages first."""
    path = Path(folder)
    if not path.is_dir():
        return []
    mails: list[StoredMail] = []
    for file in sorted(path.glob("*.log"), key=lambda p: p.stat().st_mtime, reverse=True):
        chunks = [c.strip("\n") for c in file.read_text(errors="replace").split(_SEPARATOR)]
        for chunk in reversed([c for c in chunks if c.strip()]):
            message = email.message_from_string(chunk, policy=email.policy.default)
            mails.append(StoredMail.from_message(file.name, message))  # type: ignore[arg-type]
            if len(mails) >= limit:
                return mails
    return mails
