"""The local mailbox reads the file backend's bytes: headers and bodies decoded once, the HTML
part shown in a sandboxed frame beside the text part."""

from __future__ import annotations

import pytest
from django.core.mail import EmailMultiAlternatives

from accounts.mailbox import read_mailbox

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


def send(subject: str, text: str, html: str | None = None) -> None:
    message = EmailMultiAlternatives(subject, text, "Webclip <w@localhost>", ["dana@example.com"])
    if html is not None:
        message.attach_alternative(html, "text/html")
    message.send()


def test_non_ascii_text_reads_as_written(file_mailbox):
    send("Solar — news für dich", "Préfecture — “quoted” ümlauts\n" + "long line " * 20)

    (mail,) = read_mailbox(file_mailbox)

    assert mail.subject == "Solar — news für dich"
    assert mail.text.startswith("Préfecture — “quoted” ümlauts")
    assert "\\u2014" not in mail.text and "=E2=80=94" not in mail.text
    assert mail.sent_at is not None


def test_the_page_shows_the_html_part_sandboxed_and_the_text_part(staff_client, file_mailbox):
    send("Hello", "plain — text", "<p>html <b>part</b> — <script>alert(1)</script></p>")

    page = staff_client.get("/mailbox/").content.decode()

    frame = page[page.index("<iframe") : page.index("</iframe>")]
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in frame
    assert "allow-scripts" not in frame and "allow-same-origin" not in frame
    # The mail's markup is an attribute value: escaped, never part of this page's markup.
    assert 'srcdoc="&lt;p&gt;html &lt;b&gt;part&lt;/b&gt; — &lt;script&gt;' in frame
    assert "<script>alert(1)</script>" not in page
    assert "plain — text" in page


def test_a_text_only_mail_shows_its_text(staff_client, file_mailbox):
    send("Only text", "just — words")
    page = staff_client.get("/mailbox/").content.decode()
    assert "<iframe" not in page and "just — words" in page
