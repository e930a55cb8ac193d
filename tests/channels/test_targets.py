"""Channels accept only schemes whose target the add-time vetting checks, and their refusals
and failures never name a resolved address or the state of a port."""

from __future__ import annotations

import pytest

from clipping import channels
from tests.channels.helpers import make_channel
from tests.servers import free_port

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "syslog://",
        "notica://127.0.0.2/token",
        "pushdeer://127.0.0.2/pushkey",
        "rsyslog://127.0.0.2",
    ],
)
def test_a_scheme_off_the_allow_list_is_refused_when_added(url, settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""
    with pytest.raises(channels.ChannelError, match="does not send to this kind of channel"):
        channels.check_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "json://127.0.0.2/hook",
        "gotify://127.0.0.2/token",
        "ntfys://127.0.0.2/topic",
        "mmost://127.0.0.2/token",
        "apprise://127.0.0.2/token",
        "mailto://user:pass@example.com?smtp=127.0.0.2",
    ],
)
def test_every_allowed_scheme_has_its_target_vetted_when_added(url, settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""
    with pytest.raises(channels.ChannelError, match="private or local network"):
        channels.check_url(url)


def test_a_service_with_its_own_public_endpoint_needs_no_host_of_the_url(settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""
    checked = channels.check_url("ntfy://my-topic")
    assert checked.service


def test_a_refusal_names_the_host_as_typed_never_its_address(settings):
    settings.CLIPPING_CHANNEL_NETWORKS = ""
    with pytest.raises(channels.ChannelError) as refused:
        channels.check_url("json://localhost/hook")

    assert "localhost" in str(refused.value)
    assert "127.0.0.1" not in str(refused.value) and "::1" not in str(refused.value)


def test_a_failed_send_says_nothing_of_the_ports_state(alice, settings):
    settings.CLIPPING_CHANNEL_NETWORKS = "127.0.0.1/32"
    channel = make_channel(alice, f"json://127.0.0.1:{free_port()}/hook")  # nobody listens

    error = channels.send_test(channel)

    assert error == "The service could not be reached."


def test_a_failure_text_loses_its_addresses():
    said = "Failed to send to 10.1.2.3 and [fd00::1]: HTTP 502"
    assert channels.plain_failure(said) == "Failed to send to … and …: HTTP 502"
    assert channels.plain_failure("[Errno 111] Connection refused") == (
        "The service could not be reached."
    )
