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
    # The mail's markup is served from its own address, never part of this page's markup.
    (mail,) = read_mailbox(file_mailbox)
    assert f'src="/mailbox/{mail.file}/{mail.number}/"' in frame
    assert "<script>alert(1)</script>" not in page and "srcdoc" not in frame
    assert "plain — text" in page


def test_the_html_part_keeps_its_styles_under_a_strict_policy_of_its_own(
    staff_client, file_mailbox
):
    styled = "<style>.card { color: #123456 }</style><p class=card style='margin:0'>styled</p>"
    send("Styled", "text", styled + "<script>alert(1)</script><img src='https://x.example/t.gif'>")
    (mail,) = read_mailbox(file_mailbox)

    body = staff_client.get(f"/mailbox/{mail.file}/{mail.number}/")

    assert body.status_code == 200 and styled in body.content.decode()
    policy = dict(part.strip().split(" ", 1) for part in body["Content-Security-Policy"].split(";"))
    assert policy["style-src"] == "'unsafe-inline'"  # the mail's own styles apply
    assert policy["default-src"] == "'none'" and policy["img-src"] == "data:"
    assert "script-src" not in policy  # default-src 'none': no script runs
    assert policy["sandbox"] == "allow-popups allow-popups-to-escape-sandbox"
    assert policy["frame-ancestors"] == "'self'" and body["X-Frame-Options"] == "SAMEORIGIN"


def test_a_mail_body_is_shown_only_to_who_may_read_the_mail(client, file_mailbox, bob):
    send("For dana", "text", "<p>dana's</p>")
    (mail,) = read_mailbox(file_mailbox)
    url = f"/mailbox/{mail.file}/{mail.number}/"
    assert client.get(url).status_code == 404  # nobody signed in
    client.force_login(bob)
    assert client.get(url).status_code == 404  # not bob's mail
    assert client.get(f"/mailbox/..%2F{mail.file}/{mail.number}/").status_code == 404
    assert client.get(f"/mailbox/{mail.file}/{mail.number + 1}/").status_code == 404


def test_the_mailbox_shows_times_in_the_persons_zone(client, file_mailbox):
    from tests.factories import make_user

    dana = make_user("dana@example.com", time_zone="Asia/Kolkata", time_zone_confirmed=True)
    send("Zoned", "text")
    (mail,) = read_mailbox(file_mailbox)
    assert mail.sent_at is not None and mail.sent_at.utcoffset() is not None
    client.force_login(dana)

    page = client.get("/mailbox/").content.decode()

    from zoneinfo import ZoneInfo

    local = mail.sent_at.astimezone(ZoneInfo("Asia/Kolkata"))
    assert f'datetime="{local.isoformat(timespec="seconds")}"' in page


def test_a_text_only_mail_shows_its_text(staff_client, file_mailbox):
    send("Only text", "just — words")
    page = staff_client.get("/mailbox/").content.decode()
    assert "<iframe" not in page and "just — words" in page
