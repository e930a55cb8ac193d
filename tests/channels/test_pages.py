"""The channels panel of the account page: secrets kept sealed, tests sent, others' 404."""

from __future__ import annotations

import pytest
from django.urls import reverse

from clipping import channels
from clipping.models import Channel, ChannelDelivery, ListChannel
from tests.channels.helpers import make_channel
from tests.factories import make_list

pytestmark = pytest.mark.django_db

SECRET = "s3cret-Passw0rd"


def test_a_channel_url_is_stored_sealed_and_shown_masked(client, alice, notify_server):
    url = f"json://bot:{SECRET}@127.0.0.1:{notify_server.port}/hook-token-7f3a"
    client.force_login(alice)

    response = client.post(reverse("channel_add"), {"name": "Webhook", "url": url}, follow=True)

    channel = Channel.objects.get(owner=alice)
    assert SECRET not in channel.sealed_url and "hook-token" not in channel.sealed_url
    assert channel.url == url  # opens with SECRET_KEY to send
    assert channel.shown_url == f"json://bot:****@127.0.0.1:{notify_server.port}/…"
    page = response.content.decode()
    assert "Webhook" in page and channel.shown_url in page
    assert SECRET not in page and "hook-token-7f3a" not in page


def test_a_test_message_reaches_the_server_and_is_recorded(client, alice, notify_server):
    channel = make_channel(alice, notify_server.ntfy_url("alice"))
    client.force_login(alice)

    response = client.post(reverse("channel_test", args=[channel.pk]), follow=True)

    assert "A test message went to Phone" in response.content.decode()
    (message,) = notify_server.messages
    assert (
        message.payload["topic"] == "alice" and message.payload["title"] == "Webclip test message"
    )
    assert ChannelDelivery.objects.get().kind == "test"


def test_a_failed_test_message_says_why(client, alice, notify_server):
    notify_server.endpoint.failing.append(500)
    channel = make_channel(alice, notify_server.json_url())
    client.force_login(alice)

    response = client.post(reverse("channel_test", args=[channel.pk]), follow=True)

    assert "The test message to Phone failed" in response.content.decode()
    assert ChannelDelivery.objects.get().status == "failed"


def test_a_private_address_is_refused_unless_the_operator_allows_its_network(settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""
    with pytest.raises(channels.ChannelError, match="private or local network"):
        channels.check_url("json://127.0.0.1:8080/hook")
    with pytest.raises(channels.ChannelError, match="private or local network"):
        channels.check_url("ntfy://10.1.2.3/topic")
    # Cloud metadata stays out of reach whatever the operator allows.
    settings.CLIPPING_CHANNEL_NETWORKS = "0.0.0.0/0"
    with pytest.raises(channels.ChannelError, match="private or local network"):
        channels.check_url("json://169.254.169.254/latest/meta-data")


def test_a_url_apprise_does_not_know_is_refused(client, alice):
    client.force_login(alice)
    response = client.post(
        reverse("channel_add"), {"name": "X", "url": "gopher://example.com/"}, follow=True
    )
    assert "Apprise does not know this URL" in response.content.decode()
    assert not Channel.objects.exists()


def test_someone_elses_channel_is_not_found(client, alice, bob, notify_server):
    channel = make_channel(alice, notify_server.json_url())
    client.force_login(bob)
    for name in ("channel_test", "channel_resume", "channel_delete"):
        assert client.post(reverse(name, args=[channel.pk])).status_code == 404
    assert Channel.objects.filter(id=channel.id).exists()
    assert notify_server.messages == []


def test_each_list_chooses_its_channels_and_others_lists_are_left_alone(
    client, alice, bob, notify_server
):
    energy, rail = make_list(alice, "Energy", "subsidy"), make_list(alice, "Rail", "strike")
    phone = make_channel(alice, notify_server.json_url())
    bobs_list = make_list(bob, "Bob's", "tax")
    client.force_login(alice)

    client.post(
        reverse("channel_routes"),
        {
            f"route-{energy.id}-{phone.id}": "digest",
            f"route-{rail.id}-{phone.id}": "instant",
            f"route-{bobs_list.id}-{phone.id}": "instant",
        },
    )
    assert dict(ListChannel.objects.values_list("keyword_list__name", "mode")) == {
        "Energy": "digest",
        "Rail": "instant",
    }
    client.post(reverse("channel_routes"), {f"route-{rail.id}-{phone.id}": "off"})
    assert not ListChannel.objects.exists()

    page = client.get(reverse("account_settings")).content.decode()
    assert 'aria-label="Energy to Phone"' in page


def test_the_channel_count_is_capped(client, alice, notify_server, settings):
    settings.CLIPPING_CHANNELS_MAX = 1
    make_channel(alice, notify_server.json_url())
    client.force_login(alice)
    response = client.post(
        reverse("channel_add"), {"name": "Second", "url": notify_server.ntfy_url()}, follow=True
    )
    assert "the most allowed" in response.content.decode()
    assert Channel.objects.count() == 1
