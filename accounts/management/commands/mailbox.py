from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.mailbox import read_mailbox


class Command(BaseCommand):
    help = "Show the newest mails in the local mailbox (EMAIL_PROVIDER=file)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--limit", type=int, default=5)

    def handle(self, *args, limit: int, **options) -> None:
        mails = read_mailbox(settings.EMAIL_FILE_PATH, limit=limit)
        if not mails:
            self.stdout.write(f"No mail in {settings.EMAIL_FILE_PATH}.")
        for mail in mails:
            self.stdout.write(
                self.style.MIGRATE_HEADING(f"{mail.date}  To: {mail.to}\nSubject: {mail.subject}")
            )
            self.stdout.write(mail.text.strip() + "\n")
