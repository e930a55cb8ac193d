"""The embedded broker: kombu's filesystem transport, each message file written atomically.

kombu writes a message file in place, and a consumer may move it away and read it before the
write ends (the writer's flock does not stop a rename): with the short polling interval
config/settings.py sets, a worker then read an empty message and died on it. Here a message
is written under a name no queue reads ("<id>.<queue>.msg.part") and renamed into place,
which is atomic within one folder.
"""

from __future__ import annotations

import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    """A filesystem channel whose messages appear whole or not at all."""

    def _put(self, queue: str, payload: object, **kwargs: object) -> None:
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + ".part"
        try:
            with open(partial, "wb") as out:
                out.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


def install() -> None:
    """Make "filesystem://" use this transport in this process."""
    TRANSPORT_ALIASES["filesystem"] = "config.broker:Transport"
